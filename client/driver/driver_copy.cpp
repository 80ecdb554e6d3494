// Copies and memsets through the runtime's (its bulk paths, its ordering on the one pipe). The
// _ptds/_ptsz entry points run on the calling thread's default stream.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "client/driver/driver_errors.h"
#include "client/driver/driver_stream.h"
#include "client/runtime/call.h"
#include "gen/cuda/cuda_decls.h"

using rgpu::client::driver::runtime_stream;
using rgpu::client::driver::to_cu;

namespace {

void* ptr(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

// A synchronous copy; per thread: on the thread's default stream, which is then waited for.
CUresult copy(void* dst, const void* src, size_t n, cudaMemcpyKind kind, bool per_thread) {
  if (!per_thread) return to_cu(cudaMemcpy(dst, src, n, kind));
  cudaError_t st = cudaMemcpyAsync(dst, src, n, kind, cudaStreamPerThread);
  return to_cu(st != cudaSuccess ? st : cudaStreamSynchronize(cudaStreamPerThread));
}

CUresult copy_async(void* dst, const void* src, size_t n, cudaMemcpyKind kind, CUstream s, bool per_thread) {
  return to_cu(cudaMemcpyAsync(dst, src, n, kind, runtime_stream(s, per_thread)));
}

// The runtime sets bytes; a 32-bit pattern is a byte pattern only when its four bytes agree.
CUresult memset_bytes(CUdeviceptr dst, unsigned value, size_t bytes, const CUstream* s, bool per_thread) {
  if (!s && !per_thread) return to_cu(cudaMemset(ptr(dst), static_cast<int>(value), bytes));
  cudaStream_t rs = runtime_stream(s ? *s : nullptr, per_thread);
  cudaError_t st = cudaMemsetAsync(ptr(dst), static_cast<int>(value), bytes, rs);
  if (st != cudaSuccess || s) return to_cu(st);
  return to_cu(cudaStreamSynchronize(rs));
}

CUresult memset32(CUdeviceptr dst, unsigned value, size_t n, const CUstream* s, bool per_thread, const char* name) {
  unsigned byte = value & 0xFF;
  if (value != byte * 0x01010101u) {
    rgpu::client::report_unsupported(name);  // "with a pattern of unequal bytes": no runtime call does it
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (n > SIZE_MAX / 4) return CUDA_ERROR_INVALID_VALUE;
  return memset_bytes(dst, byte, n * 4, s, per_thread);
}

}  // namespace

extern "C" CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  return copy(ptr(dst), ptr(src), n, cudaMemcpyDefault, false);
}
extern "C" CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  return copy(ptr(dst), ptr(src), n, cudaMemcpyDefault, true);
}
extern "C" CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t n) {
  return copy(ptr(dst), src, n, cudaMemcpyHostToDevice, false);
}
extern "C" CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dst, const void* src, size_t n) {
  return copy(ptr(dst), src, n, cudaMemcpyHostToDevice, true);
}
extern "C" CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t n) {
  return copy(dst, ptr(src), n, cudaMemcpyDeviceToHost, false);
}
extern "C" CUresult cuMemcpyDtoH_v2_ptds(void* dst, CUdeviceptr src, size_t n) {
  return copy(dst, ptr(src), n, cudaMemcpyDeviceToHost, true);
}
extern "C" CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  return copy(ptr(dst), ptr(src), n, cudaMemcpyDeviceToDevice, false);
}
extern "C" CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  return copy(ptr(dst), ptr(src), n, cudaMemcpyDeviceToDevice, true);
}

extern "C" CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  return copy_async(ptr(dst), ptr(src), n, cudaMemcpyDefault, s, false);
}
extern "C" CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  return copy_async(ptr(dst), ptr(src), n, cudaMemcpyDefault, s, true);
}
extern "C" CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t n, CUstream s) {
  return copy_async(ptr(dst), src, n, cudaMemcpyHostToDevice, s, false);
}
extern "C" CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dst, const void* src, size_t n, CUstream s) {
  return copy_async(ptr(dst), src, n, cudaMemcpyHostToDevice, s, true);
}
extern "C" CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t n, CUstream s) {
  return copy_async(dst, ptr(src), n, cudaMemcpyDeviceToHost, s, false);
}
extern "C" CUresult cuMemcpyDtoHAsync_v2_ptsz(void* dst, CUdeviceptr src, size_t n, CUstream s) {
  return copy_async(dst, ptr(src), n, cudaMemcpyDeviceToHost, s, true);
}
extern "C" CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  return copy_async(ptr(dst), ptr(src), n, cudaMemcpyDeviceToDevice, s, false);
}
extern "C" CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  return copy_async(ptr(dst), ptr(src), n, cudaMemcpyDeviceToDevice, s, true);
}

extern "C" CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char uc, size_t n) {
  return memset_bytes(dst, uc, n, nullptr, false);
}
extern "C" CUresult cuMemsetD8_v2_ptds(CUdeviceptr dst, unsigned char uc, size_t n) {
  return memset_bytes(dst, uc, n, nullptr, true);
}
extern "C" CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char uc, size_t n, CUstream s) {
  return memset_bytes(dst, uc, n, &s, false);
}
extern "C" CUresult cuMemsetD8Async_ptsz(CUdeviceptr dst, unsigned char uc, size_t n, CUstream s) {
  return memset_bytes(dst, uc, n, &s, true);
}
extern "C" CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int ui, size_t n) {
  return memset32(dst, ui, n, nullptr, false, "cuMemsetD32_v2 with a pattern of unequal bytes");
}
extern "C" CUresult cuMemsetD32_v2_ptds(CUdeviceptr dst, unsigned int ui, size_t n) {
  return memset32(dst, ui, n, nullptr, true, "cuMemsetD32_v2_ptds with a pattern of unequal bytes");
}
extern "C" CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int ui, size_t n, CUstream s) {
  return memset32(dst, ui, n, &s, false, "cuMemsetD32Async with a pattern of unequal bytes");
}
extern "C" CUresult cuMemsetD32Async_ptsz(CUdeviceptr dst, unsigned int ui, size_t n, CUstream s) {
  return memset32(dst, ui, n, &s, true, "cuMemsetD32Async_ptsz with a pattern of unequal bytes");
}
