// Device memory through the runtime: a CUdeviceptr is the runtime's device address, so the
// runtime's allocation map answers address ranges and pointer attributes locally.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "client/driver/driver_errors.h"
#include "client/driver/driver_stream.h"
#include "client/runtime/memory_map.h"
#include "gen/cuda/cuda_decls.h"

using rgpu::client::driver::runtime_stream;
using rgpu::client::driver::to_cu;

namespace {

void* ptr(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

CUresult alloc_async(CUdeviceptr* dptr, size_t bytesize, CUstream s, bool per_thread) {
  if (!dptr) return CUDA_ERROR_INVALID_VALUE;
  void* p = nullptr;
  CUresult r = to_cu(cudaMallocAsync(&p, bytesize, runtime_stream(s, per_thread)));
  if (r == CUDA_SUCCESS) *dptr = reinterpret_cast<uintptr_t>(p);
  return r;
}

}  // namespace

extern "C" CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytesize) {
  if (!dptr) return CUDA_ERROR_INVALID_VALUE;
  if (bytesize == 0) return CUDA_ERROR_INVALID_VALUE;  // the driver refuses empty allocations
  void* p = nullptr;
  CUresult r = to_cu(cudaMalloc(&p, bytesize));
  if (r == CUDA_SUCCESS) *dptr = reinterpret_cast<uintptr_t>(p);
  return r;
}

extern "C" CUresult cuMemFree_v2(CUdeviceptr dptr) { return to_cu(cudaFree(ptr(dptr))); }

extern "C" CUresult cuMemAllocAsync(CUdeviceptr* dptr, size_t bytesize, CUstream hStream) {
  return alloc_async(dptr, bytesize, hStream, false);
}
extern "C" CUresult cuMemAllocAsync_ptsz(CUdeviceptr* dptr, size_t bytesize, CUstream hStream) {
  return alloc_async(dptr, bytesize, hStream, true);
}
extern "C" CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) {
  return to_cu(cudaFreeAsync(ptr(dptr), runtime_stream(hStream, false)));
}
extern "C" CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream) {
  return to_cu(cudaFreeAsync(ptr(dptr), runtime_stream(hStream, true)));
}

// Pinned host memory is the runtime's (client memory tracked as pinned); CU_MEMHOSTALLOC_* and
// CU_MEMHOSTREGISTER_* have the runtime's flag values.
static_assert(CU_MEMHOSTALLOC_PORTABLE == cudaHostAllocPortable && CU_MEMHOSTALLOC_DEVICEMAP == cudaHostAllocMapped &&
              CU_MEMHOSTALLOC_WRITECOMBINED == cudaHostAllocWriteCombined);
static_assert(CU_MEMHOSTREGISTER_PORTABLE == cudaHostRegisterPortable &&
              CU_MEMHOSTREGISTER_DEVICEMAP == cudaHostRegisterMapped);
extern "C" CUresult cuMemAllocHost_v2(void** pp, size_t bytesize) { return to_cu(cudaMallocHost(pp, bytesize)); }
extern "C" CUresult cuMemHostAlloc(void** pp, size_t bytesize, unsigned int Flags) {
  return to_cu(cudaHostAlloc(pp, bytesize, Flags));
}
extern "C" CUresult cuMemHostRegister_v2(void* p, size_t bytesize, unsigned int Flags) {
  return to_cu(cudaHostRegister(p, bytesize, Flags));
}
extern "C" CUresult cuMemHostUnregister(void* p) { return to_cu(cudaHostUnregister(p)); }

extern "C" CUresult cuMemFreeHost(void* p) { return to_cu(cudaFreeHost(p)); }

extern "C" CUresult cuMemGetInfo_v2(size_t* free, size_t* total) { return to_cu(cudaMemGetInfo(free, total)); }

extern "C" CUresult cuMemGetAddressRange_v2(CUdeviceptr* pbase, size_t* psize, CUdeviceptr dptr) {
  auto region = rgpu::client::MemoryMap::get().find_device(ptr(dptr));
  if (!region) return CUDA_ERROR_NOT_FOUND;
  if (pbase) *pbase = region->base;
  if (psize) *psize = region->size;
  return CUDA_SUCCESS;
}

extern "C" CUresult cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr p) {
  if (!data) return CUDA_ERROR_INVALID_VALUE;
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, ptr(p)) != cudaSuccess) return CUDA_ERROR_INVALID_VALUE;
  // Memory the runtime does not know (plain host memory) has no driver attributes.
  if (a.type == cudaMemoryTypeUnregistered) return CUDA_ERROR_INVALID_VALUE;
  switch (attribute) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: {
      CUcontext ctx = nullptr;
      CUresult r = cuDevicePrimaryCtxRetain(&ctx, a.device);  // the token; the count is put back
      if (r == CUDA_SUCCESS) cuDevicePrimaryCtxRelease_v2(a.device);
      *static_cast<CUcontext*>(data) = ctx;
      return r;
    }
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      *static_cast<unsigned*>(data) = a.type == cudaMemoryTypeDevice ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
      *static_cast<CUdeviceptr*>(data) = reinterpret_cast<uintptr_t>(a.devicePointer);
      return a.devicePointer ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
      *static_cast<void**>(data) = a.hostPointer;
      return a.hostPointer ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
      *static_cast<bool*>(data) = false;  // managed memory is not supported
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
      *static_cast<int*>(data) = a.device;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: {
      CUdeviceptr base = 0;
      size_t size = 0;
      if (CUresult r = cuMemGetAddressRange_v2(&base, &size, p); r != CUDA_SUCCESS) return CUDA_ERROR_INVALID_VALUE;
      if (attribute == CU_POINTER_ATTRIBUTE_RANGE_START_ADDR) *static_cast<CUdeviceptr*>(data) = base;
      else *static_cast<size_t*>(data) = size;
      return CUDA_SUCCESS;
    }
    default:
      return CUDA_ERROR_NOT_SUPPORTED;
  }
}
