// Emulated CUDA Runtime: memcpy and memset in all their forms. Every device-side range is
// confirmed inside one live allocation before a byte is touched; host-side pointers are the
// daemon's own buffers and are trusted.
#include <cstring>
#include <limits>

#include "server/backends/emulated/runtime.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
namespace {

// A (possibly strided) copy: `height` rows of `width` bytes. A plain copy is one row.
struct Copy {
  void* dst;
  size_t dpitch;
  const void* src;
  size_t spitch;
  size_t width;
  size_t height;
  cudaMemcpyKind kind;
  int dst_device = -1;  // for peer copies: the allocation must belong to this device
  int src_device = -1;
};

struct Memset {
  void* dst;
  size_t pitch;
  int value;
  size_t width;
  size_t height;
};

// Bytes spanned by `height` rows of `width` bytes `pitch` apart; false on overflow.
bool extent(size_t pitch, size_t width, size_t height, uint64_t* out) {
  if (width == 0 || height == 0) {
    *out = 0;
    return true;
  }
  if (height > 1 && height - 1 > (std::numeric_limits<uint64_t>::max() - width) / pitch) return false;
  *out = pitch * (height - 1) + width;
  return true;
}

// One side of a copy: a device range (kept alive while the copy runs) or a trusted host pointer.
struct Side {
  DeviceRange range;
  uint8_t* ptr = nullptr;
};

cudaError_t resolve_side(const void* p, size_t pitch, size_t width, size_t height, bool device, int device_index,
                         Side* out) {
  if (!device) {
    out->ptr = static_cast<uint8_t*>(const_cast<void*>(p));
    return cudaSuccess;
  }
  uint64_t bytes = 0;
  if (!extent(pitch, width, height, &bytes)) return cudaErrorInvalidValue;
  out->range = state().memory.find(p, bytes, device_index);
  if (!out->range) return cudaErrorInvalidValue;
  out->ptr = out->range.data;
  return cudaSuccess;
}

cudaError_t resolve_copy(const Copy& c, Side* dst, Side* src) {
  bool dst_device = false, src_device = false;
  switch (c.kind) {
    case cudaMemcpyHostToHost: break;
    case cudaMemcpyHostToDevice: dst_device = true; break;
    case cudaMemcpyDeviceToHost: src_device = true; break;
    case cudaMemcpyDeviceToDevice: dst_device = src_device = true; break;
    case cudaMemcpyDefault:
      dst_device = state().memory.is_device_pointer(c.dst);
      src_device = state().memory.is_device_pointer(c.src);
      break;
    default: return cudaErrorInvalidMemcpyDirection;
  }
  if (c.height > 1 && (c.width > c.dpitch || c.width > c.spitch)) return cudaErrorInvalidPitchValue;
  if (c.width == 0 || c.height == 0) return cudaSuccess;
  if (!c.dst || !c.src) return cudaErrorInvalidValue;
  if (cudaError_t err = resolve_side(c.dst, c.dpitch, c.width, c.height, dst_device, c.dst_device, dst);
      err != cudaSuccess)
    return err;
  return resolve_side(c.src, c.spitch, c.width, c.height, src_device, c.src_device, src);
}

cudaError_t run_copy(const Copy& c) {
  Side dst, src;
  if (cudaError_t err = resolve_copy(c, &dst, &src); err != cudaSuccess) return err;
  if (!dst.ptr) return cudaSuccess;  // nothing to copy
  for (size_t row = 0; row < c.height; ++row)
    std::memmove(dst.ptr + row * c.dpitch, src.ptr + row * c.spitch, c.width);  // D2D ranges may overlap
  return cudaSuccess;
}

cudaError_t issue_copy(const Copy& c, cudaStream_t stream) {
  Side dst, src;
  if (cudaError_t err = resolve_copy(c, &dst, &src); err != cudaSuccess) return err;
  return state().enqueue(stream, cudaGraphNodeTypeMemcpy, [c] { return run_copy(c); });
}

cudaError_t resolve_memset(const Memset& m, Side* dst) {
  if (m.height > 1 && m.width > m.pitch) return cudaErrorInvalidPitchValue;
  if (m.width == 0 || m.height == 0) return cudaSuccess;
  return resolve_side(m.dst, m.pitch, m.width, m.height, true, -1, dst);
}

cudaError_t run_memset(const Memset& m) {
  Side dst;
  if (cudaError_t err = resolve_memset(m, &dst); err != cudaSuccess) return err;
  for (size_t row = 0; dst.ptr && row < m.height; ++row) std::memset(dst.ptr + row * m.pitch, m.value, m.width);
  return cudaSuccess;
}

cudaError_t issue_memset(const Memset& m, cudaStream_t stream) {
  Side dst;
  if (cudaError_t err = resolve_memset(m, &dst); err != cudaSuccess) return err;
  return state().enqueue(stream, cudaGraphNodeTypeMemset, [m] { return run_memset(m); });
}

cudaError_t issue_peer_copy(void* dst, int dstDevice, const void* src, int srcDevice, size_t count,
                            cudaStream_t stream) {
  if (!state().valid_device(dstDevice) || !state().valid_device(srcDevice)) return cudaErrorInvalidDevice;
  return issue_copy({dst, count, src, count, count, 1, cudaMemcpyDeviceToDevice, dstDevice, srcDevice}, stream);
}

}  // namespace

cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  return issue_memset({devPtr, count, value, count, 1}, nullptr);
}

cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  return issue_memset({devPtr, count, value, count, 1}, stream);
}

cudaError_t cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width, size_t height) {
  return issue_memset({devPtr, pitch, value, width, height}, nullptr);
}

cudaError_t cudaMemset2DAsync(void* devPtr, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream) {
  return issue_memset({devPtr, pitch, value, width, height}, stream);
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  return issue_copy({dst, count, src, count, count, 1, kind}, nullptr);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
  return issue_copy({dst, count, src, count, count, 1, kind}, stream);
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         enum cudaMemcpyKind kind) {
  return issue_copy({dst, dpitch, src, spitch, width, height, kind}, nullptr);
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                              size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) {
  return issue_copy({dst, dpitch, src, spitch, width, height, kind}, stream);
}

cudaError_t cudaMemcpyPeer(void* dst, int dstDevice, const void* src, int srcDevice, size_t count) {
  return issue_peer_copy(dst, dstDevice, src, srcDevice, count, nullptr);
}

cudaError_t cudaMemcpyPeerAsync(void* dst, int dstDevice, const void* src, int srcDevice, size_t count,
                                cudaStream_t stream) {
  return issue_peer_copy(dst, dstDevice, src, srcDevice, count, stream);
}

}  // namespace rgpu::server::emulated
