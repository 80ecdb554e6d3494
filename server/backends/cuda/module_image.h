// Bounds checks on a module image before cuModuleLoadData, which takes no size: the driver finds
// the extent of a fatbin container or ELF from its headers and reads PTX up to its NUL, so a
// truncated or lying image from a peer must be refused here, not read past.
#pragma once

#include <driver_types.h>

#include <cstdint>
#include <span>
#include <vector>

namespace rgpu::server::cuda {

enum class ModuleImageKind { kFatbin, kElf, kPtx };

struct PreparedImage {
  ModuleImageKind kind = ModuleImageKind::kPtx;
  const void* data = nullptr;  // what to hand to cuModuleLoadData
};

// Checks `image` and sets `out`: a fatbin container (magic 0xBA55ED50) whose header and every
// entry lie inside the image, an ELF (cubin) whose header tables and sections lie inside it, or
// anything else as PTX text, which gets a terminating NUL (copied into `storage`) when it lacks
// one. Returns cudaErrorInvalidKernelImage for an empty or inconsistent image.
cudaError_t prepare_module_image(std::span<const uint8_t> image, std::vector<uint8_t>& storage, PreparedImage* out);

}  // namespace rgpu::server::cuda
