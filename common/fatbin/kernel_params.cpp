// kernel_params: a container's kernel parameter layouts, from its newest ELF, else its newest PTX.
#include <string_view>

#include "common/fatbin/fatbin.h"

namespace rgpu::fatbin {
namespace {

const Entry* newest(const Container& c, EntryKind kind) {
  const Entry* best = nullptr;
  for (const Entry& e : c.entries)
    if (e.kind == kind && (best == nullptr || e.arch > best->arch)) best = &e;
  return best;
}

}  // namespace

Result<std::vector<KernelParams>> kernel_params(const Container& c) {
  // Every image of a container comes from the same source, so one describes all kernels; the
  // ELF's layout is the compiler's own, PTX is read only when there is no ELF.
  if (const Entry* elf = newest(c, EntryKind::kElf)) {
    RGPU_ASSIGN_OR_RETURN(std::vector<uint8_t> image, decompress(*elf));
    return kernel_params_from_elf(image);
  }
  if (const Entry* ptx = newest(c, EntryKind::kPtx)) {
    RGPU_ASSIGN_OR_RETURN(std::vector<uint8_t> text, decompress(*ptx));
    // PTX is NUL-terminated and padded with NULs.
    std::string_view view(reinterpret_cast<const char*>(text.data()), text.size());
    return kernel_params_from_ptx(view.substr(0, view.find('\0')));
  }
  return std::vector<KernelParams>{};
}

}  // namespace rgpu::fatbin
