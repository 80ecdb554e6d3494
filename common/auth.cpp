// Token authentication primitives on top of the kernel CSPRNG and OpenSSL libcrypto.
#include "common/auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/random.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/openssl_init.h"

namespace rgpu::auth {

Nonce random_nonce() {
  Nonce nonce;
  size_t filled = 0;
  while (filled < nonce.size()) {
    ssize_t n = getrandom(nonce.data() + filled, nonce.size() - filled, 0);
    if (n > 0) {
      filled += static_cast<size_t>(n);
    } else if (n < 0 && errno != EINTR) {
      std::fprintf(stderr, "rgpu: getrandom failed (%s); refusing to authenticate with a weak nonce\n",
                   std::strerror(errno));
      std::abort();
    }
  }
  return nonce;
}

Mac hmac_sha256(std::string_view token, std::span<const uint8_t> message) {
  start_openssl();
  Mac mac{};
  unsigned int len = 0;
  // An empty key is legal for HMAC; OpenSSL wants a non-null pointer for it.
  static const char kEmpty = 0;
  const void* key = token.empty() ? &kEmpty : token.data();
  if (HMAC(EVP_sha256(), key, static_cast<int>(token.size()), message.data(), message.size(), mac.data(), &len) ==
          nullptr ||
      len != mac.size()) {
    std::fprintf(stderr, "rgpu: HMAC-SHA256 failed in libcrypto\n");
    std::abort();
  }
  return mac;
}

bool equal_constant_time(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  // The length is not secret (a MAC is always 32 bytes); only the contents are compared in constant time.
  if (a.size() != b.size()) return false;
  return a.empty() || CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace rgpu::auth
