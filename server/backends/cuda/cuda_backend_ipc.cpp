// The allocation behind an address (Backend::allocation_range): memory another session exported
// with cudaIpcGetMemHandle and this one opened is mapped whole, so the client's memory map can
// record its true extent (the handle does not carry it).
#include "server/backends/cuda/cu_to_cuda_error.h"
#include "server/backends/cuda/cuda_backend.h"

namespace rgpu::server::cuda {

int32_t CudaBackend::allocation_range(uint64_t address, uint64_t* base, uint64_t* size) {
  CUdeviceptr b = 0;
  size_t n = 0;
  if (CUresult r = driver_.cuMemGetAddressRange_v2(&b, &n, address); r != CUDA_SUCCESS) return cu_to_cuda_error(r);
  *base = b;
  *size = n;
  return cudaSuccess;
}

}  // namespace rgpu::server::cuda
