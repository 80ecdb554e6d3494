// decompress: an entry's payload as the driver would see it, inflated with libzstd or liblz4 and
// checked against the size its header promises.
#include <lz4.h>
#include <zstd.h>

#include <limits>
#include <string>

#include "common/fatbin/fatbin.h"

namespace rgpu::fatbin {
namespace {

// No single image comes near this; a larger claim is a corrupt header, refused before allocating.
constexpr uint64_t kMaxUncompressed = uint64_t{1} << 32;

Status check_claim(const Entry& entry) {
  if (entry.uncompressed_size == 0 || entry.uncompressed_size > kMaxUncompressed)
    return RGPU_ERROR(kInvalidArgument, "fatbin entry claims an uncompressed size of " +
                                            std::to_string(entry.uncompressed_size) + " bytes");
  return Status::ok();
}

// The sum of the content sizes that the frames of `data` declare.
Result<uint64_t> zstd_content_size(std::span<const uint8_t> data) {
  uint64_t total = 0;
  while (!data.empty()) {
    unsigned long long frame = ZSTD_getFrameContentSize(data.data(), data.size());
    size_t frame_bytes = ZSTD_findFrameCompressedSize(data.data(), data.size());
    if (frame == ZSTD_CONTENTSIZE_ERROR || frame == ZSTD_CONTENTSIZE_UNKNOWN ||
        ZSTD_isError(frame_bytes) || frame_bytes == 0 || frame > kMaxUncompressed - total)
      return RGPU_ERROR(kInvalidArgument, "zstd payload is not a sequence of frames of known size");
    total += frame;
    data = data.subspan(frame_bytes);
  }
  return total;
}

Result<std::vector<uint8_t>> inflate_zstd(const Entry& entry) {
  RGPU_TRY(check_claim(entry));
  // nvcc's frames record their content size; their sum must agree with the entry header, which
  // is checked before the output buffer is allocated.
  RGPU_ASSIGN_OR_RETURN(uint64_t frames_size, zstd_content_size(entry.payload));
  if (frames_size != entry.uncompressed_size)
    return RGPU_ERROR(kInvalidArgument, "zstd frames hold " + std::to_string(frames_size) +
                                            " bytes, the entry header says " +
                                            std::to_string(entry.uncompressed_size));
  std::vector<uint8_t> out(entry.uncompressed_size);
  size_t got = ZSTD_decompress(out.data(), out.size(), entry.payload.data(), entry.payload.size());
  if (ZSTD_isError(got))
    return RGPU_ERROR(kInvalidArgument, std::string("zstd: ") + ZSTD_getErrorName(got));
  if (got != out.size())
    return RGPU_ERROR(kInvalidArgument, "zstd produced " + std::to_string(got) +
                                            " bytes, expected " + std::to_string(out.size()));
  return out;
}

Result<std::vector<uint8_t>> inflate_lz4(const Entry& entry) {
  RGPU_TRY(check_claim(entry));
  // An LZ4 block expands at most 255-fold: a larger claim cannot be honest.
  constexpr uint64_t kMaxRatio = 255;
  if (entry.payload.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      entry.uncompressed_size > static_cast<uint64_t>(std::numeric_limits<int>::max()) ||
      entry.uncompressed_size > entry.payload.size() * kMaxRatio + 16)
    return RGPU_ERROR(kInvalidArgument,
                      "LZ4 entry sizes out of range: " + std::to_string(entry.payload.size()) +
                          " -> " + std::to_string(entry.uncompressed_size));
  std::vector<uint8_t> out(entry.uncompressed_size);
  int got = LZ4_decompress_safe(
      reinterpret_cast<const char*>(entry.payload.data()), reinterpret_cast<char*>(out.data()),
      static_cast<int>(entry.payload.size()), static_cast<int>(out.size()));
  if (got < 0) return RGPU_ERROR(kInvalidArgument, "LZ4 block is corrupt");
  if (static_cast<size_t>(got) != out.size())
    return RGPU_ERROR(kInvalidArgument, "LZ4 produced " + std::to_string(got) +
                                            " bytes, expected " + std::to_string(out.size()));
  return out;
}

}  // namespace

Result<std::vector<uint8_t>> decompress(const Entry& entry) {
  switch (entry.compression) {
    case Compression::kNone:
      return std::vector<uint8_t>(entry.payload.begin(), entry.payload.end());
    case Compression::kZstd:
      return inflate_zstd(entry);
    case Compression::kLz4:
      return inflate_lz4(entry);
  }
  return RGPU_ERROR(kInternal, "unknown compression");
}

}  // namespace rgpu::fatbin
