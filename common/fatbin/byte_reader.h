// Bounds-checked little-endian reads from a byte span, shared by the fatbin and ELF readers.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

namespace rgpu::fatbin::detail {

static_assert(std::endian::native == std::endian::little,
              "fatbins and CUDA ELFs are little-endian; this reader copies fields as they are");

// True when [offset, offset + length) lies inside `bytes` (overflow-safe).
inline bool in_bounds(std::span<const uint8_t> bytes, uint64_t offset, uint64_t length) {
  return offset <= bytes.size() && length <= bytes.size() - offset;
}

// Reads a T at `offset`; false (and *out untouched) when it does not fit. memcpy because fields
// of a corrupt image may be misaligned.
template <typename T>
bool read_le(std::span<const uint8_t> bytes, uint64_t offset, T* out) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (!in_bounds(bytes, offset, sizeof(T))) return false;
  std::memcpy(out, bytes.data() + offset, sizeof(T));
  return true;
}

}  // namespace rgpu::fatbin::detail
