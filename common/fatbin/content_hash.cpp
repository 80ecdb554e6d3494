// content_hash: SHA-256 of a module's bytes, the key under which rgpud's module cache keeps it.
// A cryptographic hash, since the cache is shared by tenants: one must not be able to craft an
// image that another's key finds.
#include <openssl/sha.h>

#include "common/fatbin/fatbin.h"
#include "common/openssl_init.h"

namespace rgpu::fatbin {

ContentHash content_hash(std::span<const uint8_t> bytes) {
  ContentHash h{};
  start_openssl();
  SHA256(bytes.data(), bytes.size(), h.data());
  return h;
}

std::string to_hex(const ContentHash& h) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(h.size() * 2);
  for (uint8_t b : h) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

}  // namespace rgpu::fatbin
