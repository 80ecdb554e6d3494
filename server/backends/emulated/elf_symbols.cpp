// Bounds-checked reading of a cubin's sections and data symbols.
#include "server/backends/emulated/elf_symbols.h"

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace rgpu::server::emulated {
namespace {

template <typename T>
bool read_at(std::span<const uint8_t> image, uint64_t offset, T* out) {
  if (offset > image.size() || sizeof(T) > image.size() - offset) return false;
  std::memcpy(out, image.data() + offset, sizeof(T));
  return true;
}

bool in_bounds(std::span<const uint8_t> image, uint64_t offset, uint64_t size) {
  return offset <= image.size() && size <= image.size() - offset;
}

// A NUL-terminated name at `offset` of the string table section `strtab`.
bool name_at(std::span<const uint8_t> image, const Elf64_Shdr& strtab, uint64_t offset, std::string_view* out) {
  if (offset >= strtab.sh_size || !in_bounds(image, strtab.sh_offset, strtab.sh_size)) return false;
  const char* begin = reinterpret_cast<const char*>(image.data() + strtab.sh_offset + offset);
  const void* end = std::memchr(begin, 0, strtab.sh_size - offset);
  if (!end) return false;
  *out = std::string_view(begin, static_cast<const char*>(end) - begin);
  return true;
}

// An .nv.info section is a list of attributes: u8 format, u8 attribute, then by format nothing
// (1), a u16 (2, 3) or a u16 size and that many bytes (4). Calls `use` with each sized one.
constexpr uint8_t kFormatSized = 4;
constexpr uint8_t kAttrMaxThreads = 0x05;  // in .nv.info.<kernel>: u32 x, y, z of __launch_bounds__
constexpr uint8_t kAttrRegCount = 0x2f;    // in .nv.info: u32 kernel symbol index, u32 registers

template <typename Use>
Status for_each_attribute(std::span<const uint8_t> info, Use use) {
  for (size_t at = 0; at + 2 <= info.size();) {
    uint8_t format = info[at], attribute = info[at + 1];
    if (format == 1) {
      at += 2;
      continue;
    }
    uint16_t value = 0;
    if (!read_at(info, at + 2, &value)) return RGPU_ERROR(kInvalidArgument, "cubin: truncated .nv.info");
    if (format != kFormatSized) {
      at += 4;
      continue;
    }
    if (!in_bounds(info, at + 4, value)) return RGPU_ERROR(kInvalidArgument, "cubin: truncated .nv.info");
    use(attribute, info.subspan(at + 4, value));
    at += 4 + value;
  }
  return Status::ok();
}

}  // namespace

Result<ElfSymbols> read_elf_symbols(std::span<const uint8_t> image) {
  Elf64_Ehdr eh;
  if (!read_at(image, 0, &eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
    return RGPU_ERROR(kInvalidArgument, "cubin: not an ELF image");
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
    return RGPU_ERROR(kInvalidArgument, "cubin: not a 64-bit little-endian ELF");
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || !in_bounds(image, eh.e_shoff, uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr)))
    return RGPU_ERROR(kInvalidArgument, "cubin: section header table out of bounds");
  if (eh.e_shstrndx >= eh.e_shnum) return RGPU_ERROR(kInvalidArgument, "cubin: bad section name table index");

  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  for (size_t i = 0; i < sections.size(); ++i) read_at(image, eh.e_shoff + i * sizeof(Elf64_Shdr), &sections[i]);

  ElfSymbols out;
  std::span<const uint8_t> info;  // the module-wide .nv.info
  const Elf64_Shdr& names = sections[eh.e_shstrndx];
  for (const Elf64_Shdr& s : sections) {
    std::string_view name;
    if (!name_at(image, names, s.sh_name, &name)) return RGPU_ERROR(kInvalidArgument, "cubin: bad section name");
    out.section_sizes[std::string(name)] = s.sh_size;
    if (s.sh_type != SHT_NOBITS && !in_bounds(image, s.sh_offset, s.sh_size))
      return RGPU_ERROR(kInvalidArgument, "cubin: section '" + std::string(name) + "' out of bounds");
    constexpr std::string_view kKernelInfo = ".nv.info.";
    if (name.starts_with(kKernelInfo) && s.sh_type != SHT_NOBITS) {
      std::string kernel(name.substr(kKernelInfo.size()));
      RGPU_TRY(for_each_attribute(image.subspan(s.sh_offset, s.sh_size), [&](uint8_t attr, auto value) {
        uint32_t dims[3];
        if (attr != kAttrMaxThreads || value.size() != sizeof dims) return;
        std::memcpy(dims, value.data(), sizeof dims);
        uint64_t product = uint64_t{dims[0]} * dims[1] * dims[2];
        if (product > 0 && product <= UINT32_MAX) out.max_threads[kernel] = static_cast<uint32_t>(product);
      }));
    }
    if (name == ".nv.info" && s.sh_type != SHT_NOBITS) info = image.subspan(s.sh_offset, s.sh_size);
  }

  std::vector<std::string_view> symbol_names;  // by symbol index, for .nv.info's references
  for (const Elf64_Shdr& symtab : sections) {
    if (symtab.sh_type != SHT_SYMTAB) continue;
    if (symtab.sh_entsize != sizeof(Elf64_Sym) || symtab.sh_link >= sections.size())
      return RGPU_ERROR(kInvalidArgument, "cubin: malformed symbol table");
    const Elf64_Shdr& strtab = sections[symtab.sh_link];
    for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= symtab.sh_size; off += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      read_at(image, symtab.sh_offset + off, &sym);
      std::string_view name;
      if (!name_at(image, strtab, sym.st_name, &name)) return RGPU_ERROR(kInvalidArgument, "cubin: bad symbol name");
      symbol_names.push_back(name);
      if (ELF64_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= sections.size())
        continue;
      const Elf64_Shdr& home = sections[sym.st_shndx];
      ElfObject object{sym.st_size, {}};
      if (home.sh_type != SHT_NOBITS) {
        // Offsets in a cubin are section-relative (sh_addr is 0); allow for an address anyway.
        uint64_t within = sym.st_value - home.sh_addr;
        if (sym.st_value < home.sh_addr || !in_bounds(image.subspan(home.sh_offset, home.sh_size), within, sym.st_size))
          return RGPU_ERROR(kInvalidArgument, "cubin: symbol '" + std::string(name) + "' lies outside its section");
        object.initial = image.subspan(home.sh_offset + within, sym.st_size);
      }
      out.objects[std::string(name)] = object;
    }
  }

  RGPU_TRY(for_each_attribute(info, [&](uint8_t attr, auto value) {
    uint32_t entry[2];  // kernel symbol index, registers per thread
    if (attr != kAttrRegCount || value.size() != sizeof entry) return;
    std::memcpy(entry, value.data(), sizeof entry);
    if (entry[0] < symbol_names.size()) out.registers[std::string(symbol_names[entry[0]])] = entry[1];
  }));
  return out;
}

}  // namespace rgpu::server::emulated
