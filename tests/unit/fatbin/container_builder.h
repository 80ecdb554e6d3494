// Builds fatbin containers byte by byte for tests, in the layout nvcc 13 writes
// (common/fatbin/README.md).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace rgpu::fatbin::testing {

struct EntrySpec {
  uint16_t kind = 2;  // 1 PTX, 2 ELF
  uint32_t arch = 90;
  uint64_t flags = 0x11;           // 64-bit, Linux; add 0x2000 (LZ4) or 0x8000 (zstd)
  std::vector<uint8_t> payload;    // stored as is, then padded to 8
  uint32_t compressed_size = 0;    // 0 unless compressed
  uint64_t uncompressed_size = 0;  // 0 unless compressed
  uint32_t header_size = 64;
};

template <typename T>
void put(std::vector<uint8_t>* bytes, size_t offset, T value) {
  std::memcpy(bytes->data() + offset, &value, sizeof(value));
}

inline std::vector<uint8_t> build_entry(const EntrySpec& spec) {
  const size_t padded = (spec.payload.size() + 7) / 8 * 8;
  std::vector<uint8_t> bytes(spec.header_size + padded, 0);
  put<uint16_t>(&bytes, 0, spec.kind);
  put<uint16_t>(&bytes, 2, 0x0101);
  put<uint32_t>(&bytes, 4, spec.header_size);
  put<uint64_t>(&bytes, 8, padded);
  put<uint32_t>(&bytes, 16, spec.compressed_size);
  put<uint32_t>(&bytes, 28, spec.arch);
  put<uint64_t>(&bytes, 40, spec.flags);
  put<uint64_t>(&bytes, 56, spec.uncompressed_size);
  std::memcpy(bytes.data() + spec.header_size, spec.payload.data(), spec.payload.size());
  return bytes;
}

inline std::vector<uint8_t> build_container(const std::vector<EntrySpec>& entries) {
  std::vector<uint8_t> bytes(16, 0);
  for (const EntrySpec& e : entries) {
    auto entry = build_entry(e);
    bytes.insert(bytes.end(), entry.begin(), entry.end());
  }
  put<uint32_t>(&bytes, 0, 0xBA55ED50);
  put<uint16_t>(&bytes, 4, 1);
  put<uint16_t>(&bytes, 6, 16);
  put<uint64_t>(&bytes, 8, bytes.size() - 16);
  return bytes;
}

inline std::vector<uint8_t> bytes_of(const char* text) {
  return std::vector<uint8_t>(text, text + std::strlen(text));
}

}  // namespace rgpu::fatbin::testing
