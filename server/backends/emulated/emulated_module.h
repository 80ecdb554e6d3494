// Reads an image a client uploads (a fatbin container, a cubin or PTX text) into what the
// emulated backend needs: the kernels' parameter layouts and, from the cubin chosen for the
// device, the data symbols (variables) and section sizes (static shared memory).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <span>
#include <vector>

#include "common/fatbin/fatbin.h"
#include "server/backends/emulated/elf_symbols.h"

namespace rgpu::server::emulated {

struct ModuleImage {
  std::vector<fatbin::KernelParams> kernels;
  std::vector<uint8_t> cubin;  // the code chosen for the device; empty when only PTX fits
  ElfSymbols symbols;          // of `cubin` (its spans point into it: do not copy a ModuleImage)

  ModuleImage() = default;
  ModuleImage(const ModuleImage&) = delete;
  ModuleImage& operator=(const ModuleImage&) = delete;
};

// cudaErrorInvalidKernelImage for a corrupt image (cudaErrorInvalidPtx for unreadable PTX),
// cudaErrorNoKernelImageForDevice when a container holds nothing a device of compute capability
// `arch` (e.g. 90) can run. The reason is logged.
cudaError_t read_module_image(std::span<const uint8_t> image, uint32_t arch, ModuleImage* out);

}  // namespace rgpu::server::emulated
