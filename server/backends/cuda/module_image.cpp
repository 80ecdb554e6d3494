// Module image classification and bounds checks (fatbin container, ELF64 cubin, PTX).
#include "server/backends/cuda/module_image.h"

#include <elf.h>

#include <algorithm>
#include <cstring>

namespace rgpu::server::cuda {
namespace {

constexpr uint32_t kFatbinContainerMagic = 0xBA55ED50;
constexpr size_t kFatbinHeaderSize = 16;
constexpr size_t kFatbinEntryMinHeaderSize = 16;  // kind, version, header size, payload size

template <typename T>
T load(std::span<const uint8_t> bytes, size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

// True when [offset, offset + size) lies inside a buffer of `limit` bytes (no wrap-around).
bool inside(uint64_t offset, uint64_t size, uint64_t limit) { return offset <= limit && size <= limit - offset; }

// Container header: u32 magic, u16 version, u16 header size, u64 payload size; then entries, each
// with u16 kind, u16 version, u32 header size, u64 payload size at the start of its header.
bool fatbin_consistent(std::span<const uint8_t> image) {
  if (image.size() < kFatbinHeaderSize) return false;
  uint16_t header_size = load<uint16_t>(image, 6);
  uint64_t payload_size = load<uint64_t>(image, 8);
  if (header_size < kFatbinHeaderSize || !inside(header_size, payload_size, image.size())) return false;
  uint64_t end = header_size + payload_size;
  uint64_t at = header_size;
  while (at < end) {
    if (!inside(at, kFatbinEntryMinHeaderSize, end)) return false;
    uint32_t entry_header = load<uint32_t>(image, at + 4);
    uint64_t entry_payload = load<uint64_t>(image, at + 8);
    if (entry_header < kFatbinEntryMinHeaderSize || !inside(at, entry_header, end) ||
        !inside(at + entry_header, entry_payload, end))
      return false;
    at += entry_header + entry_payload;
  }
  return true;
}

// ELF64 little-endian (what nvcc emits): header, program and section header tables, and every
// section with file contents must lie inside the image.
bool elf_consistent(std::span<const uint8_t> image) {
  if (image.size() < sizeof(Elf64_Ehdr)) return false;
  auto header = load<Elf64_Ehdr>(image, 0);
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB) return false;
  if (header.e_phnum && (header.e_phentsize < sizeof(Elf64_Phdr) ||
                         !inside(header.e_phoff, uint64_t{header.e_phentsize} * header.e_phnum, image.size())))
    return false;
  if (header.e_shnum && (header.e_shentsize < sizeof(Elf64_Shdr) ||
                         !inside(header.e_shoff, uint64_t{header.e_shentsize} * header.e_shnum, image.size())))
    return false;
  for (uint16_t i = 0; i < header.e_phnum; ++i) {
    auto segment = load<Elf64_Phdr>(image, header.e_phoff + uint64_t{i} * header.e_phentsize);
    if (!inside(segment.p_offset, segment.p_filesz, image.size())) return false;
  }
  for (uint16_t i = 0; i < header.e_shnum; ++i) {
    auto section = load<Elf64_Shdr>(image, header.e_shoff + uint64_t{i} * header.e_shentsize);
    if (section.sh_type != SHT_NOBITS && !inside(section.sh_offset, section.sh_size, image.size())) return false;
  }
  return true;
}

}  // namespace

cudaError_t prepare_module_image(std::span<const uint8_t> image, std::vector<uint8_t>& storage, PreparedImage* out) {
  if (image.empty()) return cudaErrorInvalidKernelImage;
  if (image.size() >= 4 && load<uint32_t>(image, 0) == kFatbinContainerMagic) {
    if (!fatbin_consistent(image)) return cudaErrorInvalidKernelImage;
    *out = {ModuleImageKind::kFatbin, image.data()};
    return cudaSuccess;
  }
  if (image.size() >= SELFMAG && std::memcmp(image.data(), ELFMAG, SELFMAG) == 0) {
    if (!elf_consistent(image)) return cudaErrorInvalidKernelImage;
    *out = {ModuleImageKind::kElf, image.data()};
    return cudaSuccess;
  }
  if (std::find(image.begin(), image.end(), uint8_t{0}) != image.end()) {
    *out = {ModuleImageKind::kPtx, image.data()};
    return cudaSuccess;
  }
  storage.assign(image.begin(), image.end());
  storage.push_back(0);
  *out = {ModuleImageKind::kPtx, storage.data()};
  return cudaSuccess;
}

}  // namespace rgpu::server::cuda
