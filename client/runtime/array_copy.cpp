// Copies to, from and between CUDA arrays, and cudaMemcpy3DPeer: each becomes one or more
// cudaMemcpy3D-shaped copies (memcpy.cpp's copy_pitched, the path of cudaMemcpy2D/3D of linear
// memory), so host bytes travel packed the same way. The 2D calls give offsets and widths in
// bytes; the array's element size (from the client's record) turns them into elements. The legacy
// linear calls (cudaMemcpyToArray, ...) run on from one array row to the next: they are split
// into rectangles (split_linear).
#include <cuda_runtime_api.h>

#include "client/runtime/arrays.h"
#include "client/runtime/call.h"
#include "client/runtime/cudart_errors.h"
#include "client/runtime/memcpy.h"
#include "common/wire/array_geometry.h"
#include "common/wire/pitched.h"
#include "gen/cudart/cudart_decls.h"
#include "gen/cudart/cudart_ids.h"

namespace rgpu::client {
namespace {
namespace ids = gen::cudart;

// One side of a rectangle copy: an array at byte column `x`, row `y`; or memory at `ptr` whose
// rows are `pitch` apart.
struct Side {
  cudaArray_const_t array = nullptr;
  size_t x = 0;
  size_t y = 0;
  void* ptr = nullptr;
  size_t pitch = 0;
};

Side on_array(cudaArray_const_t a, size_t x, size_t y) { return Side{a, x, y, nullptr, 0}; }
Side in_memory(const void* p, size_t pitch) { return Side{nullptr, 0, 0, const_cast<void*>(p), pitch}; }

// The element size of the side's array (1 for memory); 0 for an unknown array.
size_t element_of(const Side& s, cudaError_t* err) {
  if (!s.array) return 1;
  auto r = find_array(s.array);
  if (!r) {
    *err = cudaErrorInvalidResourceHandle;
    return 0;
  }
  size_t e = channel_bytes(r->desc);
  if (!e) *err = cudaErrorNotSupported;
  return e;
}

cudaError_t copy_rect(const Side& dst, const Side& src, size_t width, size_t height, cudaMemcpyKind kind, bool async,
                      cudaStream_t stream, bool per_thread) {
  cudaError_t err = cudaSuccess;
  size_t elem = dst.array ? element_of(dst, &err) : element_of(src, &err);
  if (!elem) {
    if (err == cudaErrorNotSupported) report_unsupported("copies of CUDA arrays whose elements are not whole bytes");
    return cudart_finish(err);
  }
  // Offsets and widths in bytes must be whole elements of the array.
  if (width % elem || dst.x % elem || src.x % elem) return cudart_finish(cudaErrorInvalidValue);
  cudaMemcpy3DParms p{};
  p.dstArray = const_cast<cudaArray_t>(dst.array);
  p.dstPos = cudaPos{dst.x / elem, dst.y, 0};
  p.dstPtr = pitched(dst.ptr, dst.pitch, width, height);
  p.srcArray = const_cast<cudaArray_t>(src.array);
  p.srcPos = cudaPos{src.x / elem, src.y, 0};
  p.srcPtr = pitched(src.ptr, src.pitch, width, height);
  p.extent = cudaExtent{width / elem, height, 1};
  p.kind = kind;
  return copy_3d_parms(p, async, stream, per_thread);
}

// The bytes of one row of an array (0 for memory or an unknown array: copy_rect reports it).
size_t row_bytes(const Side& s) {
  if (!s.array) return 0;
  auto r = find_array(s.array);
  return r ? r->extent.width * channel_bytes(r->desc) : 0;
}

cudaError_t copy_linear_range(const Side& dst, const Side& src, size_t count, cudaMemcpyKind kind, bool async,
                              cudaStream_t stream, bool per_thread) {
  if (count == 0) return cudaSuccess;
  if ((!dst.array && !dst.ptr) || (!src.array && !src.ptr)) return cudart_finish(cudaErrorInvalidValue);
  LinearSide a{row_bytes(dst), dst.x, dst.y};
  LinearSide b{row_bytes(src), src.x, src.y};
  if ((dst.array && !a.row_bytes) || (src.array && !b.row_bytes))
    return copy_rect(dst, src, count, 1, kind, async, stream, per_thread);  // reports the unknown array
  auto pieces = split_linear(a, b, count);
  if (pieces.empty()) return cudart_finish(cudaErrorInvalidValue);
  for (const LinearPiece& piece : pieces) {
    Side d = dst.array ? on_array(dst.array, piece.a_x, piece.a_y)
                       : in_memory(static_cast<char*>(dst.ptr) + piece.offset, piece.width);
    Side s = src.array ? on_array(src.array, piece.b_x, piece.b_y)
                       : in_memory(static_cast<char*>(src.ptr) + piece.offset, piece.width);
    if (cudaError_t st = copy_rect(d, s, piece.width, piece.height, kind, async, stream, per_thread); st != cudaSuccess)
      return st;
  }
  return cudaSuccess;
}

cudaError_t copy_3d_peer(const cudaMemcpy3DPeerParms* p, bool async, cudaStream_t stream, bool per_thread) {
  if (!p) return cudart_finish(cudaErrorInvalidValue);
  cudaMemcpy3DParms q{};
  q.srcArray = p->srcArray;
  q.srcPos = p->srcPos;
  q.srcPtr = p->srcPtr;
  q.dstArray = p->dstArray;
  q.dstPos = p->dstPos;
  q.dstPtr = p->dstPtr;
  q.extent = p->extent;
  q.kind = cudaMemcpyDeviceToDevice;
  uint32_t id = async ? (per_thread ? ids::k_cudaMemcpy3DPeerAsync_ptsz : ids::k_cudaMemcpy3DPeerAsync)
                      : (per_thread ? ids::k_cudaMemcpy3DPeer_ptds : ids::k_cudaMemcpy3DPeer);
  return copy_pitched(q, true, async, stream, per_thread, id, PeerDevices{p->dstDevice, p->srcDevice});
}

}  // namespace
}  // namespace rgpu::client

using rgpu::client::copy_linear_range;
using rgpu::client::copy_rect;
using rgpu::client::in_memory;
using rgpu::client::on_array;

// The entry points: each family's sync, _ptds, Async and Async_ptsz forms differ only in the
// stream and in whether the null stream is the calling thread's default stream.

extern "C" cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                                           size_t spitch, size_t width, size_t height, cudaMemcpyKind kind) {
  return copy_rect(on_array(dst, wOffset, hOffset), in_memory(src, spitch), width, height, kind, false, nullptr, false);
}
extern "C" cudaError_t cudaMemcpy2DToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                                                size_t spitch, size_t width, size_t height, cudaMemcpyKind kind) {
  return copy_rect(on_array(dst, wOffset, hOffset), in_memory(src, spitch), width, height, kind, false, nullptr, true);
}
extern "C" cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                                                size_t spitch, size_t width, size_t height, cudaMemcpyKind kind,
                                                cudaStream_t stream) {
  return copy_rect(on_array(dst, wOffset, hOffset), in_memory(src, spitch), width, height, kind, true, stream, false);
}
extern "C" cudaError_t cudaMemcpy2DToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                                                     size_t spitch, size_t width, size_t height, cudaMemcpyKind kind,
                                                     cudaStream_t stream) {
  return copy_rect(on_array(dst, wOffset, hOffset), in_memory(src, spitch), width, height, kind, true, stream, true);
}

extern "C" cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                             size_t hOffset, size_t width, size_t height, cudaMemcpyKind kind) {
  return copy_rect(in_memory(dst, dpitch), on_array(src, wOffset, hOffset), width, height, kind, false, nullptr, false);
}
extern "C" cudaError_t cudaMemcpy2DFromArray_ptds(void* dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                                  size_t hOffset, size_t width, size_t height, cudaMemcpyKind kind) {
  return copy_rect(in_memory(dst, dpitch), on_array(src, wOffset, hOffset), width, height, kind, false, nullptr, true);
}
extern "C" cudaError_t cudaMemcpy2DFromArrayAsync(void* dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                                  size_t hOffset, size_t width, size_t height, cudaMemcpyKind kind,
                                                  cudaStream_t stream) {
  return copy_rect(in_memory(dst, dpitch), on_array(src, wOffset, hOffset), width, height, kind, true, stream, false);
}
extern "C" cudaError_t cudaMemcpy2DFromArrayAsync_ptsz(void* dst, size_t dpitch, cudaArray_const_t src,
                                                       size_t wOffset, size_t hOffset, size_t width, size_t height,
                                                       cudaMemcpyKind kind, cudaStream_t stream) {
  return copy_rect(in_memory(dst, dpitch), on_array(src, wOffset, hOffset), width, height, kind, true, stream, true);
}

extern "C" cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                                cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                                size_t width, size_t height, cudaMemcpyKind kind) {
  return copy_rect(on_array(dst, wOffsetDst, hOffsetDst), on_array(src, wOffsetSrc, hOffsetSrc), width, height, kind,
                   false, nullptr, false);
}
extern "C" cudaError_t cudaMemcpy2DArrayToArray_ptds(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                                     cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                                     size_t width, size_t height, cudaMemcpyKind kind) {
  return copy_rect(on_array(dst, wOffsetDst, hOffsetDst), on_array(src, wOffsetSrc, hOffsetSrc), width, height, kind,
                   false, nullptr, true);
}

extern "C" cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                                         size_t count, cudaMemcpyKind kind) {
  return copy_linear_range(on_array(dst, wOffset, hOffset), in_memory(src, 0), count, kind, false, nullptr, false);
}
extern "C" cudaError_t cudaMemcpyToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                                              size_t count, cudaMemcpyKind kind) {
  return copy_linear_range(on_array(dst, wOffset, hOffset), in_memory(src, 0), count, kind, false, nullptr, true);
}
extern "C" cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                                              size_t count, cudaMemcpyKind kind, cudaStream_t stream) {
  return copy_linear_range(on_array(dst, wOffset, hOffset), in_memory(src, 0), count, kind, true, stream, false);
}
extern "C" cudaError_t cudaMemcpyToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                                                   size_t count, cudaMemcpyKind kind, cudaStream_t stream) {
  return copy_linear_range(on_array(dst, wOffset, hOffset), in_memory(src, 0), count, kind, true, stream, true);
}

extern "C" cudaError_t cudaMemcpyFromArray(void* dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                           size_t count, cudaMemcpyKind kind) {
  return copy_linear_range(in_memory(dst, 0), on_array(src, wOffset, hOffset), count, kind, false, nullptr, false);
}
extern "C" cudaError_t cudaMemcpyFromArray_ptds(void* dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                                size_t count, cudaMemcpyKind kind) {
  return copy_linear_range(in_memory(dst, 0), on_array(src, wOffset, hOffset), count, kind, false, nullptr, true);
}
extern "C" cudaError_t cudaMemcpyFromArrayAsync(void* dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                                size_t count, cudaMemcpyKind kind, cudaStream_t stream) {
  return copy_linear_range(in_memory(dst, 0), on_array(src, wOffset, hOffset), count, kind, true, stream, false);
}
extern "C" cudaError_t cudaMemcpyFromArrayAsync_ptsz(void* dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                                     size_t count, cudaMemcpyKind kind, cudaStream_t stream) {
  return copy_linear_range(in_memory(dst, 0), on_array(src, wOffset, hOffset), count, kind, true, stream, true);
}

extern "C" cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                              cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc, size_t count,
                                              cudaMemcpyKind kind) {
  return copy_linear_range(on_array(dst, wOffsetDst, hOffsetDst), on_array(src, wOffsetSrc, hOffsetSrc), count, kind,
                           false, nullptr, false);
}
extern "C" cudaError_t cudaMemcpyArrayToArray_ptds(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                                   cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                                   size_t count, cudaMemcpyKind kind) {
  return copy_linear_range(on_array(dst, wOffsetDst, hOffsetDst), on_array(src, wOffsetSrc, hOffsetSrc), count, kind,
                           false, nullptr, true);
}

extern "C" cudaError_t cudaMemcpy3DPeer(const cudaMemcpy3DPeerParms* p) {
  return rgpu::client::copy_3d_peer(p, false, nullptr, false);
}
extern "C" cudaError_t cudaMemcpy3DPeer_ptds(const cudaMemcpy3DPeerParms* p) {
  return rgpu::client::copy_3d_peer(p, false, nullptr, true);
}
extern "C" cudaError_t cudaMemcpy3DPeerAsync(const cudaMemcpy3DPeerParms* p, cudaStream_t stream) {
  return rgpu::client::copy_3d_peer(p, true, stream, false);
}
extern "C" cudaError_t cudaMemcpy3DPeerAsync_ptsz(const cudaMemcpy3DPeerParms* p, cudaStream_t stream) {
  return rgpu::client::copy_3d_peer(p, true, stream, true);
}
