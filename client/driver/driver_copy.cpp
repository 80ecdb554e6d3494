// Copies and memsets through the runtime's (its bulk paths, its ordering on the one pipe). The
// _ptds/_ptsz entry points run on the calling thread's default stream.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "client/driver/driver_errors.h"
#include "client/driver/driver_stream.h"
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

// Sets `value` in `height` rows of `width` bytes, `pitch` apart: on the legacy stream (the
// synchronous entry points), on stream *s, or (per thread, no stream given) on the thread's
// default stream, waited for.
CUresult memset_rows(CUdeviceptr dst, unsigned char value, size_t pitch, size_t width, size_t height,
                     const CUstream* s, bool per_thread) {
  if (!s && !per_thread) {
    if (pitch == width) return to_cu(cudaMemset(ptr(dst), value, width * height));
    return to_cu(cudaMemset2D(ptr(dst), pitch, value, width, height));
  }
  cudaStream_t rs = runtime_stream(s ? *s : nullptr, per_thread);
  cudaError_t st = pitch == width ? cudaMemsetAsync(ptr(dst), value, width * height, rs)
                                  : cudaMemset2DAsync(ptr(dst), pitch, value, width, height, rs);
  if (st != cudaSuccess || s) return to_cu(st);
  return to_cu(cudaStreamSynchronize(rs));
}

// The runtime sets bytes. An element pattern (16 or 32 bits) whose bytes agree is one byte memset;
// any other is one strided memset per byte, byte k of every element (rows of 1 byte, `size` bytes
// apart), in stream order.
CUresult memset_elements(CUdeviceptr dst, uint32_t value, unsigned size, size_t n, const CUstream* s, bool per_thread) {
  if (n > SIZE_MAX / size) return CUDA_ERROR_INVALID_VALUE;
  auto byte = static_cast<unsigned char>(value);
  bool uniform = true;
  for (unsigned k = 1; k < size; ++k) uniform = uniform && static_cast<unsigned char>(value >> (8 * k)) == byte;
  if (uniform) return memset_rows(dst, byte, n * size, n * size, 1, s, per_thread);
  if (n == 0) return CUDA_SUCCESS;
  // The per-thread synchronous form waits once, after the last of them.
  CUstream stream = s ? *s : nullptr;
  const CUstream* each = per_thread && !s ? &stream : s;
  for (unsigned k = 0; k < size; ++k) {
    auto b = static_cast<unsigned char>(value >> (8 * k));
    if (CUresult r = memset_rows(dst + k, b, size, 1, n, each, per_thread); r != CUDA_SUCCESS) return r;
  }
  return per_thread && !s ? to_cu(cudaStreamSynchronize(runtime_stream(nullptr, true))) : CUDA_SUCCESS;
}

CUresult memset32(CUdeviceptr dst, unsigned value, size_t n, const CUstream* s, bool per_thread) {
  return memset_elements(dst, value, 4, n, s, per_thread);
}

CUresult memset16(CUdeviceptr dst, unsigned short value, size_t n, const CUstream* s, bool per_thread) {
  return memset_elements(dst, value, 2, n, s, per_thread);
}

CUresult memset8(CUdeviceptr dst, unsigned char value, size_t n, const CUstream* s, bool per_thread) {
  return memset_rows(dst, value, n, n, 1, s, per_thread);
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
  return memset8(dst, uc, n, nullptr, false);
}
extern "C" CUresult cuMemsetD8_v2_ptds(CUdeviceptr dst, unsigned char uc, size_t n) {
  return memset8(dst, uc, n, nullptr, true);
}
extern "C" CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char uc, size_t n, CUstream s) {
  return memset8(dst, uc, n, &s, false);
}
extern "C" CUresult cuMemsetD8Async_ptsz(CUdeviceptr dst, unsigned char uc, size_t n, CUstream s) {
  return memset8(dst, uc, n, &s, true);
}
extern "C" CUresult cuMemsetD16_v2(CUdeviceptr dst, unsigned short us, size_t n) {
  return memset16(dst, us, n, nullptr, false);
}
extern "C" CUresult cuMemsetD16_v2_ptds(CUdeviceptr dst, unsigned short us, size_t n) {
  return memset16(dst, us, n, nullptr, true);
}
extern "C" CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short us, size_t n, CUstream s) {
  return memset16(dst, us, n, &s, false);
}
extern "C" CUresult cuMemsetD16Async_ptsz(CUdeviceptr dst, unsigned short us, size_t n, CUstream s) {
  return memset16(dst, us, n, &s, true);
}
extern "C" CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int ui, size_t n) {
  return memset32(dst, ui, n, nullptr, false);
}
extern "C" CUresult cuMemsetD32_v2_ptds(CUdeviceptr dst, unsigned int ui, size_t n) {
  return memset32(dst, ui, n, nullptr, true);
}
extern "C" CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int ui, size_t n, CUstream s) {
  return memset32(dst, ui, n, &s, false);
}
extern "C" CUresult cuMemsetD32Async_ptsz(CUdeviceptr dst, unsigned int ui, size_t n, CUstream s) {
  return memset32(dst, ui, n, &s, true);
}
