#include "common/openssl_init.h"

#include <openssl/crypto.h>

namespace rgpu {

void start_openssl() {
  // Once: the first init decides; OpenSSL's own later (implicit) inits find it done.
  static const bool started = OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, nullptr) == 1;
  (void)started;
}

}  // namespace rgpu
