// cuRAND's quasi-random tables (curandGetDirectionVectors32/64, curandGetScrambleConstants32/64):
// constants in the library's host memory, 20,000 dimensions each. (Measured on libcurand.so.10 of
// CUDA 13: each set lies exactly 20,000 entries from the next.) The client copies each table from
// the server once; both ends size it from here.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rgpu::curand_tables {

inline constexpr size_t kDimensions = 20000;
inline constexpr size_t kDirectionVectors32Bytes = kDimensions * 32 * sizeof(uint32_t);
inline constexpr size_t kDirectionVectors64Bytes = kDimensions * 64 * sizeof(uint64_t);
inline constexpr size_t kScrambleConstants32Bytes = kDimensions * sizeof(uint32_t);
inline constexpr size_t kScrambleConstants64Bytes = kDimensions * sizeof(uint64_t);

}  // namespace rgpu::curand_tables
