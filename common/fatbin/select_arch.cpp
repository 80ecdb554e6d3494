// select_for_arch: the slice of a container that a GPU of one compute capability can use, rebuilt
// as a container of its own so that the driver loads it like the original.
#include <cstring>

#include "common/fatbin/byte_reader.h"
#include "common/fatbin/fatbin.h"
#include "common/fatbin/layout.h"

namespace rgpu::fatbin {
namespace {

uint64_t entry_flags(const Entry& e) {
  uint64_t flags = 0;
  (void)detail::read_le(e.header, detail::kEntryFlagsAt, &flags);  // inside the checked header
  return flags;
}

// Whether an image built for `e.arch` runs on (SASS) or JIT-compiles for (PTX) `gpu`: sm_90a
// code only on exactly 90; SASS and family PTX (compute_100f) within the major family up to the
// GPU's minor; plain PTX on any later GPU.
bool usable_on(const Entry& e, uint32_t gpu) {
  const uint64_t flags = entry_flags(e);
  if (flags & detail::kFlagArchSpecific) return e.arch == gpu;
  if (e.kind == EntryKind::kElf || (flags & detail::kFlagFamilySpecific))
    return e.arch / 10 == gpu / 10 && e.arch <= gpu;
  return e.arch <= gpu;
}

// Among usable entries of one kind, the newest arch; on a tie the more specific build (sm_90a
// over sm_90), which was made for exactly this GPU.
const Entry* best_of_kind(const Container& c, EntryKind kind, uint32_t gpu) {
  const Entry* best = nullptr;
  auto specific = [](const Entry& e) {
    return (entry_flags(e) & (detail::kFlagArchSpecific | detail::kFlagFamilySpecific)) != 0;
  };
  for (const Entry& e : c.entries) {
    if (e.kind != kind || !usable_on(e, gpu)) continue;
    if (best == nullptr || e.arch > best->arch ||
        (e.arch == best->arch && specific(e) && !specific(*best)))
      best = &e;
  }
  return best;
}

// The entry's header and its whole stored payload (padding included), as they lie in the container.
std::span<const uint8_t> stored_bytes(const Entry& e) {
  uint64_t stored_size = 0;
  (void)detail::read_le(e.header, detail::kEntryPayloadSizeAt, &stored_size);
  return {e.header.data(), e.header.size() + stored_size};  // checked by parse_container
}

void append(std::vector<uint8_t>* out, std::span<const uint8_t> bytes) {
  out->insert(out->end(), bytes.begin(), bytes.end());
}

}  // namespace

std::vector<uint8_t> select_for_arch(const Container& c, uint32_t arch) {
  const Entry* elf = best_of_kind(c, EntryKind::kElf, arch);
  const Entry* ptx = best_of_kind(c, EntryKind::kPtx, arch);
  if (elf == nullptr && ptx == nullptr) return {c.bytes.begin(), c.bytes.end()};

  // Same header (its size field kept), a new payload size, the chosen entries in their order.
  uint16_t header_size = 0;
  (void)detail::read_le(c.bytes, detail::kContainerHeaderSizeAt, &header_size);
  std::vector<uint8_t> out(c.bytes.begin(), c.bytes.begin() + header_size);
  for (const Entry& e : c.entries)
    if (&e == elf || &e == ptx) append(&out, stored_bytes(e));
  const uint64_t payload_size = out.size() - header_size;
  std::memcpy(out.data() + detail::kContainerPayloadSizeAt, &payload_size, sizeof(payload_size));
  return out;
}

}  // namespace rgpu::fatbin
