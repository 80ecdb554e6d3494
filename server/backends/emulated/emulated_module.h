// Reads an image a client uploads (a fatbin container, a cubin or PTX text) into what the
// emulated backend needs: the kernels' parameter layouts and static shared memory, and the
// module's variables (size and initial bytes), from the cubin chosen for the device or its PTX.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/fatbin/fatbin.h"

namespace rgpu::server::emulated {

struct ModuleVariable {
  uint64_t size = 0;
  std::vector<uint8_t> initial;  // shorter than size when the rest is zero
};

struct ModuleImage {
  std::vector<fatbin::KernelParams> kernels;
  std::unordered_map<std::string, uint32_t> static_shared;  // bytes, by kernel (absent: none)
  std::unordered_map<std::string, uint32_t> max_threads;    // by kernel (absent: the device's)
  std::unordered_map<std::string, uint32_t> registers;      // per thread, by kernel (absent: unknown)
  std::unordered_map<std::string, ModuleVariable> variables;
  std::unordered_map<std::string, std::string> unreadable;  // variables it cannot emulate: why
};

// cudaErrorInvalidKernelImage for a corrupt image (cudaErrorInvalidPtx for unreadable PTX),
// cudaErrorNoKernelImageForDevice when a container holds nothing a device of compute capability
// `arch` (e.g. 90) can run. The reason is logged.
cudaError_t read_module_image(std::span<const uint8_t> image, uint32_t arch, ModuleImage* out);

}  // namespace rgpu::server::emulated
