// Image reading for the emulated backend: format detection, slice choice, layouts and symbols.
#include "server/backends/emulated/emulated_module.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "common/log.h"
#include "server/backends/emulated/device_spec.h"
#include "server/backends/emulated/elf_symbols.h"
#include "server/backends/emulated/ptx_symbols.h"

namespace rgpu::server::emulated {
namespace {

cudaError_t fail(cudaError_t err, const Status& why) {
  RGPU_LOG_WARN("emulated backend: module rejected: %s", why.to_string().c_str());
  return err;
}

bool starts_with(std::span<const uint8_t> image, const void* magic, size_t n) {
  return image.size() >= n && std::memcmp(image.data(), magic, n) == 0;
}

// PTX is NUL-terminated text (and padded with NULs inside a container).
std::string_view ptx_text(std::span<const uint8_t> bytes) {
  std::string_view view(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return view.substr(0, view.find('\0'));
}

// A kernel's static shared memory is the size of .nv.shared.<kernel>. For sm_90 the compiler
// puts the driver's reserved 1 KiB at the front of it (marked by .nv.shared.reserved.0); CUDA
// reports that part separately (reservedSharedMemPerBlock), so it is left out here.
uint32_t static_shared_size(const ElfSymbols& symbols, const std::string& kernel) {
  auto shared = symbols.section_sizes.find(".nv.shared." + kernel);
  if (shared == symbols.section_sizes.end()) return 0;
  uint64_t reserved = symbols.section_sizes.count(".nv.shared.reserved.0") ? kReservedSharedMemPerBlock : 0;
  uint64_t size = shared->second > reserved ? shared->second - reserved : 0;
  return static_cast<uint32_t>(std::min<uint64_t>(size, kSharedMemPerBlockOptin));
}

cudaError_t read_cubin(std::span<const uint8_t> cubin, ModuleImage* out) {
  Result<ElfSymbols> symbols = read_elf_symbols(cubin);
  if (!symbols.is_ok()) return fail(cudaErrorInvalidKernelImage, symbols.status());
  Result<std::vector<fatbin::KernelParams>> kernels = fatbin::kernel_params_from_elf(cubin);
  if (!kernels.is_ok()) return fail(cudaErrorInvalidKernelImage, kernels.status());
  out->kernels = std::move(kernels.value());
  for (const auto& k : out->kernels)
    if (uint32_t shared = static_shared_size(symbols.value(), k.name)) out->static_shared[k.name] = shared;
  out->max_threads = std::move(symbols.value().max_threads);
  out->registers = std::move(symbols.value().registers);
  for (const auto& [name, object] : symbols.value().objects)
    out->variables[name] = {object.size, {object.initial.begin(), object.initial.end()}};
  return cudaSuccess;
}

cudaError_t read_ptx(std::string_view ptx, ModuleImage* out) {
  if (ptx.find(".version") == std::string_view::npos)
    return fail(cudaErrorInvalidKernelImage, RGPU_ERROR(kInvalidArgument, "neither a fatbin, a cubin nor PTX"));
  Result<std::vector<fatbin::KernelParams>> kernels = fatbin::kernel_params_from_ptx(ptx);
  if (!kernels.is_ok()) return fail(cudaErrorInvalidPtx, kernels.status());
  Result<PtxSymbols> symbols = read_ptx_symbols(ptx);
  if (!symbols.is_ok()) return fail(cudaErrorInvalidPtx, symbols.status());
  out->kernels = std::move(kernels.value());
  for (const auto& [kernel, bytes] : symbols.value().static_shared)
    out->static_shared[kernel] = static_cast<uint32_t>(std::min<uint64_t>(bytes, kSharedMemPerBlockOptin));
  for (auto& [name, v] : symbols.value().variables) out->variables[name] = {v.size, std::move(v.initial)};
  out->unreadable = std::move(symbols.value().unreadable);
  out->max_threads = std::move(symbols.value().max_threads);
  return cudaSuccess;
}

// The entry a device of compute capability `arch` would load: the newest SASS of its major
// family not newer than it, else the newest PTX not newer than it (JIT-compiled by a driver).
const fatbin::Entry* choose_entry(const fatbin::Container& c, uint32_t arch) {
  const fatbin::Entry* elf = nullptr;
  const fatbin::Entry* ptx = nullptr;
  for (const fatbin::Entry& e : c.entries) {
    if (e.arch > arch) continue;
    if (e.kind == fatbin::EntryKind::kElf && e.arch / 10 == arch / 10 && (!elf || e.arch > elf->arch)) elf = &e;
    if (e.kind == fatbin::EntryKind::kPtx && (!ptx || e.arch > ptx->arch)) ptx = &e;
  }
  return elf ? elf : ptx;
}

cudaError_t read_container(std::span<const uint8_t> image, uint32_t arch, ModuleImage* out) {
  Result<fatbin::Container> container = fatbin::parse_container(image);
  if (!container.is_ok()) return fail(cudaErrorInvalidKernelImage, container.status());
  const fatbin::Entry* entry = choose_entry(container.value(), arch);
  if (!entry)
    return fail(cudaErrorNoKernelImageForDevice,
                RGPU_ERROR(kNotSupported, "the fatbin has no code for sm_" + std::to_string(arch)));
  Result<std::vector<uint8_t>> payload = fatbin::decompress(*entry);
  if (!payload.is_ok()) return fail(cudaErrorInvalidKernelImage, payload.status());
  if (entry->kind == fatbin::EntryKind::kElf) return read_cubin(payload.value(), out);
  return read_ptx(ptx_text(payload.value()), out);
}

}  // namespace

cudaError_t read_module_image(std::span<const uint8_t> image, uint32_t arch, ModuleImage* out) {
  const uint32_t container_magic = fatbin::kContainerMagic;  // little-endian in the file, as here
  if (starts_with(image, &container_magic, sizeof container_magic)) return read_container(image, arch, out);
  if (starts_with(image, "\x7f" "ELF", 4)) return read_cubin(image, out);
  return read_ptx(ptx_text(image), out);
}

}  // namespace rgpu::server::emulated
