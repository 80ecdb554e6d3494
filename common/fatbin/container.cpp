// parse_container: the container header and the walk over its entries, every read bounds-checked.
#include <string>

#include "common/fatbin/byte_reader.h"
#include "common/fatbin/fatbin.h"
#include "common/fatbin/layout.h"

namespace rgpu::fatbin {
namespace {

using detail::read_le;

std::string at_offset(uint64_t offset) {
  return " (entry at offset " + std::to_string(offset) + ")";
}

// Reads the entry whose header starts at `offset` inside `body` (the container, header included);
// sets *next to the offset after its payload. Entries of kinds other than PTX and ELF (e.g. 8,
// LTO IR) are walked over but reported as skipped through *skipped.
Status parse_entry(std::span<const uint8_t> body, uint64_t offset, Entry* entry, uint64_t* next,
                   bool* skipped) {
  using namespace detail;
  uint16_t kind = 0;
  uint32_t header_size = 0;
  uint64_t stored_size = 0;
  if (!read_le(body, offset + kEntryKindAt, &kind) ||
      !read_le(body, offset + kEntryHeaderSizeAt, &header_size) ||
      !read_le(body, offset + kEntryPayloadSizeAt, &stored_size))
    return RGPU_ERROR(kInvalidArgument, "fatbin entry header truncated" + at_offset(offset));
  if (header_size < kEntryHeaderMin || !in_bounds(body, offset, header_size))
    return RGPU_ERROR(kInvalidArgument, "fatbin entry header size " + std::to_string(header_size) +
                                            " invalid or past the container" + at_offset(offset));
  if (!in_bounds(body, offset + header_size, stored_size))
    return RGPU_ERROR(kInvalidArgument, "fatbin entry payload size " + std::to_string(stored_size) +
                                            " runs past the container" + at_offset(offset));
  *next = offset + header_size + stored_size;
  *skipped = kind != static_cast<uint16_t>(EntryKind::kPtx) &&
             kind != static_cast<uint16_t>(EntryKind::kElf);
  if (*skipped) return Status::ok();

  // All fields below lie inside the 64 header bytes checked above.
  auto header = body.subspan(offset, header_size);
  uint32_t compressed_size = 0;
  uint64_t flags = 0;
  uint64_t uncompressed_size = 0;
  (void)read_le(header, kEntryCompressedSizeAt, &compressed_size);
  (void)read_le(header, kEntryArchAt, &entry->arch);
  (void)read_le(header, kEntryFlagsAt, &flags);
  (void)read_le(header, kEntryUncompressedSizeAt, &uncompressed_size);
  entry->kind = static_cast<EntryKind>(kind);
  entry->header = header;
  auto stored = body.subspan(offset + header_size, stored_size);

  const bool lz4 = (flags & kFlagLz4) != 0;
  const bool zstd = (flags & kFlagZstd) != 0;
  if (lz4 && zstd)
    return RGPU_ERROR(kInvalidArgument,
                      "fatbin entry flagged both LZ4 and zstd" + at_offset(offset));
  if (!lz4 && !zstd) {
    entry->compression = Compression::kNone;
    entry->uncompressed_size = stored_size;
    entry->payload = stored;
    return Status::ok();
  }
  // Compressed payloads are padded to 8 bytes; only the first compressed_size bytes are data.
  if (compressed_size == 0 || compressed_size > stored_size)
    return RGPU_ERROR(kInvalidArgument, "fatbin entry compressed size " +
                                            std::to_string(compressed_size) + " invalid for " +
                                            std::to_string(stored_size) + " stored bytes" +
                                            at_offset(offset));
  entry->compression = lz4 ? Compression::kLz4 : Compression::kZstd;
  entry->uncompressed_size = uncompressed_size;
  entry->payload = stored.first(compressed_size);
  return Status::ok();
}

}  // namespace

Result<Container> parse_container(std::span<const uint8_t> data) {
  using namespace detail;
  uint32_t magic = 0;
  uint16_t version = 0;
  uint16_t header_size = 0;
  uint64_t payload_size = 0;
  if (!read_le(data, 0, &magic) || !read_le(data, kContainerVersionAt, &version) ||
      !read_le(data, kContainerHeaderSizeAt, &header_size) ||
      !read_le(data, kContainerPayloadSizeAt, &payload_size))
    return RGPU_ERROR(kInvalidArgument, "fatbin container shorter than its 16-byte header (" +
                                            std::to_string(data.size()) + " bytes)");
  if (magic != kContainerMagic)
    return RGPU_ERROR(kInvalidArgument, "not a fatbin container: magic " + std::to_string(magic));
  if (version != kContainerVersion)
    return RGPU_ERROR(kNotSupported,
                      "fatbin container version " + std::to_string(version) + " (only 1 is known)");
  if (header_size < kContainerHeaderMin || !in_bounds(data, 0, header_size) ||
      !in_bounds(data, header_size, payload_size))
    return RGPU_ERROR(kInvalidArgument, "fatbin container header size " +
                                            std::to_string(header_size) + " + payload size " +
                                            std::to_string(payload_size) + " exceed the " +
                                            std::to_string(data.size()) + " readable bytes");
  Container container;
  container.bytes = data.first(header_size + payload_size);
  uint64_t offset = header_size;
  while (offset < container.bytes.size()) {
    Entry entry{};
    uint64_t next = 0;
    bool skipped = false;
    RGPU_TRY(parse_entry(container.bytes, offset, &entry, &next, &skipped));
    if (!skipped) container.entries.push_back(entry);
    offset = next;
  }
  return container;
}

}  // namespace rgpu::fatbin
