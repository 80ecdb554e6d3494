// Bounds-checked kernelParams construction.
#include "server/backends/cuda/kernel_params.h"

namespace rgpu::server::cuda {

cudaError_t build_kernel_params(std::span<const KernelParam> layout, std::span<const uint8_t> args,
                                std::vector<void*>& pointers) {
  pointers.clear();
  for (const KernelParam& param : layout) {
    // 64-bit sum: offset + size cannot wrap.
    if (uint64_t{param.offset} + param.size > args.size()) {
      pointers.clear();
      return cudaErrorInvalidValue;
    }
    pointers.push_back(const_cast<uint8_t*>(args.data() + param.offset));
  }
  return cudaSuccess;
}

}  // namespace rgpu::server::cuda
