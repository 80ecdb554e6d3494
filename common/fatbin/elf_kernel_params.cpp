// kernel_params_from_elf: parameter layouts from a CUDA ELF's .nv.info.<kernel> sections.
//
// Kernels are the .symtab functions marked as CUDA entries (st_other 0x10); device functions also
// get .nv.info.<name> sections, so those alone do not tell. Each .nv.info section is a list of
// records: u8 format, u8 attribute, u16 value; format 4 (EIFMT_SVAL) means the u16 is the size
// of the data that follows. EIATTR_KPARAM_INFO (0x17) data: u32 index, u16 ordinal, u16 offset,
// u32 whose bits 18..31 are the size. EIATTR_CBANK_PARAM_SIZE (0x19) holds the total.
#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/fatbin/byte_reader.h"
#include "common/fatbin/fatbin.h"

namespace rgpu::fatbin {
namespace {

using detail::in_bounds;
using detail::read_le;

constexpr uint32_t kSectionSymtab = 2;
constexpr uint8_t kSymbolFunc = 2;
constexpr uint8_t kCudaEntry = 0x10;
constexpr uint64_t kSectionHeaderSize = 64;
constexpr uint64_t kSymbolSize = 24;

constexpr uint8_t kFormatSval = 0x04;
constexpr uint8_t kAttrKparamInfo = 0x17;
constexpr uint8_t kAttrCbankParamSize = 0x19;

struct Section {
  uint32_t name;
  uint32_t type;
  uint64_t offset;
  uint64_t size;
  uint32_t link;
  std::span<const uint8_t> bytes;
};

class ElfReader {
 public:
  explicit ElfReader(std::span<const uint8_t> image) : image_(image) {}

  Status load_sections() {
    static constexpr uint8_t kIdent[] = {0x7f, 'E', 'L', 'F', 2 /*64-bit*/, 1 /*little-endian*/};
    if (!in_bounds(image_, 0, sizeof(kIdent)) ||
        !std::equal(std::begin(kIdent), std::end(kIdent), image_.begin()))
      return RGPU_ERROR(kInvalidArgument, "not a little-endian ELF64 image");
    uint64_t table = 0;
    uint16_t entry_size = 0, count = 0, names_index = 0;
    if (!read_le(image_, 0x28, &table) || !read_le(image_, 0x3a, &entry_size) ||
        !read_le(image_, 0x3c, &count) || !read_le(image_, 0x3e, &names_index))
      return RGPU_ERROR(kInvalidArgument, "ELF header truncated");
    if (entry_size != kSectionHeaderSize || !in_bounds(image_, table, count * kSectionHeaderSize))
      return RGPU_ERROR(kInvalidArgument, "ELF section header table out of bounds");
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t at = table + i * kSectionHeaderSize;
      Section s{};
      (void)read_le(image_, at + 0x00, &s.name);
      (void)read_le(image_, at + 0x04, &s.type);
      (void)read_le(image_, at + 0x18, &s.offset);
      (void)read_le(image_, at + 0x20, &s.size);
      (void)read_le(image_, at + 0x28, &s.link);
      // NOBITS sections (.nv.global, .nv.shared) occupy no file bytes; none of them is read here.
      if (in_bounds(image_, s.offset, s.size)) s.bytes = image_.subspan(s.offset, s.size);
      sections_.push_back(s);
    }
    if (names_index >= sections_.size())
      return RGPU_ERROR(kInvalidArgument, "ELF section name table index out of range");
    auto names = sections_[names_index].bytes;
    for (const Section& s : sections_) {
      RGPU_ASSIGN_OR_RETURN(std::string_view name, string_at(names, s.name));
      by_name_.emplace(name, &s);
    }
    return Status::ok();
  }

  // The names of the kernels (CUDA entry functions) in .symtab.
  Result<std::vector<std::string>> kernel_names() const {
    auto symtab = std::find_if(sections_.begin(), sections_.end(),
                               [](const Section& s) { return s.type == kSectionSymtab; });
    if (symtab == sections_.end()) return std::vector<std::string>{};
    if (symtab->bytes.size() != symtab->size)
      return RGPU_ERROR(kInvalidArgument, "ELF .symtab lies outside the image");
    if (symtab->link >= sections_.size())
      return RGPU_ERROR(kInvalidArgument, "ELF .symtab string table index out of range");
    auto strings = sections_[symtab->link].bytes;
    std::vector<std::string> names;
    for (uint64_t at = 0; in_bounds(symtab->bytes, at, kSymbolSize); at += kSymbolSize) {
      uint32_t name = 0;
      uint8_t info = 0, other = 0;
      uint16_t section = 0;
      (void)read_le(symtab->bytes, at + 0, &name);
      (void)read_le(symtab->bytes, at + 4, &info);
      (void)read_le(symtab->bytes, at + 5, &other);
      (void)read_le(symtab->bytes, at + 6, &section);
      if ((info & 0xf) != kSymbolFunc || (other & kCudaEntry) == 0 || section == 0) continue;
      RGPU_ASSIGN_OR_RETURN(std::string_view text, string_at(strings, name));
      names.emplace_back(text);
    }
    return names;
  }

  // The section called `name`, or null.
  const Section* find(const std::string& name) const {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : it->second;
  }

 private:
  static Result<std::string_view> string_at(std::span<const uint8_t> table, uint32_t offset) {
    if (offset >= table.size())
      return RGPU_ERROR(kInvalidArgument, "ELF string offset out of range");
    auto rest = table.subspan(offset);
    auto end = std::find(rest.begin(), rest.end(), uint8_t{0});
    if (end == rest.end()) return RGPU_ERROR(kInvalidArgument, "ELF string not terminated");
    return std::string_view(reinterpret_cast<const char*>(rest.data()), end - rest.begin());
  }

  std::span<const uint8_t> image_;
  std::vector<Section> sections_;
  std::unordered_map<std::string_view, const Section*> by_name_;
};

struct RawParam {
  uint16_t ordinal;
  KernelParams::Param param;
};

// Reads the records of one kernel's .nv.info section into its parameter list.
Result<KernelParams> parse_nv_info(const std::string& kernel, std::span<const uint8_t> info) {
  std::vector<RawParam> raw;
  uint16_t total = 0;
  bool has_total = false;
  uint64_t at = 0;
  while (at < info.size()) {
    uint8_t format = 0, attribute = 0;
    uint16_t value = 0;
    if (!read_le(info, at, &format) || !read_le(info, at + 1, &attribute) ||
        !read_le(info, at + 2, &value))
      return RGPU_ERROR(kInvalidArgument, ".nv.info." + kernel + ": record header truncated");
    at += 4;
    if (format == kFormatSval) {
      if (!in_bounds(info, at, value))
        return RGPU_ERROR(kInvalidArgument, ".nv.info." + kernel + ": record data truncated");
      auto data = info.subspan(at, value);
      at += value;
      if (attribute != kAttrKparamInfo) continue;
      uint16_t ordinal = 0, offset = 0;
      uint32_t packed = 0;
      if (!read_le(data, 4, &ordinal) || !read_le(data, 6, &offset) || !read_le(data, 8, &packed))
        return RGPU_ERROR(kInvalidArgument,
                          ".nv.info." + kernel + ": KPARAM_INFO record too short");
      raw.push_back({ordinal, {offset, packed >> 18}});
    } else if (format >= 0x01 && format <= 0x03) {  // no data, or a value held in the u16
      if (attribute == kAttrCbankParamSize) {
        total = value;
        has_total = true;
      }
    } else {
      return RGPU_ERROR(kInvalidArgument,
                        ".nv.info." + kernel + ": unknown record format " + std::to_string(format));
    }
  }
  std::sort(raw.begin(), raw.end(),
            [](const RawParam& a, const RawParam& b) { return a.ordinal < b.ordinal; });
  KernelParams result{kernel, {}};
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i].ordinal != i)
      return RGPU_ERROR(kInvalidArgument, ".nv.info." + kernel +
                                              ": parameter ordinals are not 0.." +
                                              std::to_string(raw.size() - 1));
    const auto& p = raw[i].param;
    if (has_total && uint64_t{p.offset} + p.size > total)
      return RGPU_ERROR(kInvalidArgument,
                        ".nv.info." + kernel + ": parameter " + std::to_string(i) +
                            " lies past the parameter space of " + std::to_string(total));
    result.params.push_back(p);
  }
  return result;
}

}  // namespace

Result<std::vector<KernelParams>> kernel_params_from_elf(std::span<const uint8_t> image) {
  ElfReader elf(image);
  RGPU_TRY(elf.load_sections());
  RGPU_ASSIGN_OR_RETURN(std::vector<std::string> kernels, elf.kernel_names());
  std::vector<KernelParams> result;
  for (const std::string& kernel : kernels) {
    const Section* info = elf.find(".nv.info." + kernel);
    if (info == nullptr)
      return RGPU_ERROR(kInvalidArgument,
                        "kernel " + kernel + " has no .nv.info." + kernel + " section");
    if (info->bytes.size() != info->size)
      return RGPU_ERROR(kInvalidArgument, ".nv.info." + kernel + " lies outside the image");
    RGPU_ASSIGN_OR_RETURN(KernelParams params, parse_nv_info(kernel, info->bytes));
    result.push_back(std::move(params));
  }
  return result;
}

}  // namespace rgpu::fatbin
