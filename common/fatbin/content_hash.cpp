// content_hash: FNV-1a 64 over a module's bytes, the key under which modules are cached.
#include "common/fatbin/fatbin.h"

namespace rgpu::fatbin {

uint64_t content_hash(std::span<const uint8_t> bytes) {
  constexpr uint64_t kOffsetBasis = 0xcbf29ce484222325ull;
  constexpr uint64_t kPrime = 0x100000001b3ull;
  uint64_t hash = kOffsetBasis;
  for (uint8_t byte : bytes) {
    hash ^= byte;
    hash *= kPrime;
  }
  return hash;
}

}  // namespace rgpu::fatbin
