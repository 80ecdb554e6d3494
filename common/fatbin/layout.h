// Field offsets and flags of the fatbin container and its entry headers (CUDA 13, see README.md).
#pragma once

#include <cstdint>

namespace rgpu::fatbin::detail {

// Container header: u32 magic, u16 version, u16 header size, u64 payload size.
inline constexpr uint64_t kContainerHeaderMin = 16;
inline constexpr uint64_t kContainerVersionAt = 4;
inline constexpr uint64_t kContainerHeaderSizeAt = 6;
inline constexpr uint64_t kContainerPayloadSizeAt = 8;
inline constexpr uint16_t kContainerVersion = 1;

// Entry header. The payload size at 8 counts the stored bytes, padded to 8; the exact length of
// compressed data is the u32 at 16 (0 when the payload is not compressed).
inline constexpr uint64_t kEntryHeaderMin = 64;
inline constexpr uint64_t kEntryKindAt = 0;
inline constexpr uint64_t kEntryHeaderSizeAt = 4;
inline constexpr uint64_t kEntryPayloadSizeAt = 8;
inline constexpr uint64_t kEntryCompressedSizeAt = 16;
inline constexpr uint64_t kEntryArchAt = 28;
inline constexpr uint64_t kEntryFlagsAt = 40;
inline constexpr uint64_t kEntryUncompressedSizeAt = 56;

inline constexpr uint64_t kFlagLz4 = 0x2000;
inline constexpr uint64_t kFlagZstd = 0x8000;
inline constexpr uint64_t kFlagArchSpecific = 0x100000;    // sm_90a: runs on exactly that arch
inline constexpr uint64_t kFlagFamilySpecific = 0x200000;  // sm_100f: runs within the major family

// Wrapper (__fatBinC_Wrapper_t): i32 magic, i32 version, pointer to the container, then a file
// name (version 1) or a NULL-terminated array of prelinked containers (version 2, -rdc).
inline constexpr uint64_t kWrapperSize = 24;
inline constexpr uint32_t kWrapperVersionPlain = 1;
inline constexpr uint32_t kWrapperVersionLinked = 2;

}  // namespace rgpu::fatbin::detail
