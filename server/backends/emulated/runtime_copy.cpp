// Emulated CUDA Runtime: memcpy and memset in all their forms (1D, 2D, 3D with pitched pointers
// and CUDA arrays, peer). Every device-side range is confirmed inside one live allocation before a byte is
// touched; host-side pointers are the daemon's own buffers and are trusted.
#include <cstring>
#include <limits>

#include "server/backends/emulated/arrays.h"
#include "server/backends/emulated/runtime.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
namespace {

// Where `depth` slices of `height` rows of `width` bytes lie: rows `pitch` apart, slices `slice`
// apart. A plain range is one row of one slice.
struct Layout {
  size_t pitch;
  size_t slice;
};

struct Shape {
  size_t width;
  size_t height = 1;
  size_t depth = 1;
  bool empty() const { return width == 0 || height == 0 || depth == 0; }
};

struct Copy {
  void* dst;
  Layout dst_layout;
  const void* src;
  Layout src_layout;
  Shape shape;
  cudaMemcpyKind kind;
  int dst_device = -1;  // for peer copies: the allocation must belong to this device
  int src_device = -1;
};

struct Memset {
  void* dst;
  Layout layout;
  int value;
  Shape shape;
};

Layout flat(size_t bytes) { return {bytes, bytes}; }

// Rows must not overlap within a slice, nor slices one another.
bool valid_layout(const Layout& l, const Shape& s) {
  if (s.empty()) return true;
  if (s.height > 1 && s.width > l.pitch) return false;
  // A slice must hold its rows: pitch * (height - 1) + width <= slice.
  if (s.depth > 1 && (s.width > l.slice || s.height - 1 > (l.slice - s.width) / std::max<size_t>(l.pitch, 1)))
    return false;
  return true;
}

// Bytes from the first byte of the first row to the last byte of the last; false on overflow.
bool extent(const Layout& l, const Shape& s, uint64_t* out) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  uint64_t rows = 0, slices = 0;
  if (s.height > 1 && __builtin_mul_overflow(uint64_t{l.pitch}, s.height - 1, &rows)) return false;
  if (s.depth > 1 && __builtin_mul_overflow(uint64_t{l.slice}, s.depth - 1, &slices)) return false;
  if (rows > kMax - slices || s.width > kMax - slices - rows) return false;
  *out = slices + rows + s.width;
  return true;
}

// One side of a copy: a device range (kept alive while the copy runs) or a trusted host pointer.
struct Side {
  DeviceRange range;
  uint8_t* ptr = nullptr;
};

cudaError_t resolve_side(const void* p, const Layout& l, const Shape& s, bool device, int device_index, Side* out) {
  if (!p) return cudaErrorInvalidValue;
  if (!device) {
    out->ptr = static_cast<uint8_t*>(const_cast<void*>(p));
    return cudaSuccess;
  }
  uint64_t bytes = 0;
  if (!extent(l, s, &bytes)) return cudaErrorInvalidValue;
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
  if (!valid_layout(c.dst_layout, c.shape) || !valid_layout(c.src_layout, c.shape)) return cudaErrorInvalidPitchValue;
  if (c.shape.empty()) return cudaSuccess;
  if (cudaError_t err = resolve_side(c.dst, c.dst_layout, c.shape, dst_device, c.dst_device, dst); err != cudaSuccess)
    return err;
  return resolve_side(c.src, c.src_layout, c.shape, src_device, c.src_device, src);
}

cudaError_t run_copy(const Copy& c) {
  Side dst, src;
  if (cudaError_t err = resolve_copy(c, &dst, &src); err != cudaSuccess) return err;
  for (size_t z = 0; dst.ptr && z < c.shape.depth; ++z)
    for (size_t y = 0; y < c.shape.height; ++y)  // memmove: device-to-device ranges may overlap
      std::memmove(dst.ptr + z * c.dst_layout.slice + y * c.dst_layout.pitch,
                   src.ptr + z * c.src_layout.slice + y * c.src_layout.pitch, c.shape.width);
  return cudaSuccess;
}

cudaError_t issue_copy(const Copy& c, cudaStream_t stream, bool async = false) {
  Side dst, src;
  if (cudaError_t err = resolve_copy(c, &dst, &src); err != cudaSuccess) return err;
  // During a capture the session passes host memory only as a mirror buffer that lives as long as
  // the session (server/session/graph.cpp), so a graph may replay a host copy later.
  // An async copy may queue behind a deferred host function; any other waits for it.
  Operation op = [c] { return run_copy(c); };
  return async ? state().enqueue_async(stream, cudaGraphNodeTypeMemcpy, std::move(op))
               : state().enqueue(stream, cudaGraphNodeTypeMemcpy, std::move(op));
}

cudaError_t resolve_memset(const Memset& m, Side* dst) {
  if (!valid_layout(m.layout, m.shape)) return cudaErrorInvalidPitchValue;
  if (m.shape.empty()) return cudaSuccess;
  return resolve_side(m.dst, m.layout, m.shape, true, -1, dst);
}

cudaError_t run_memset(const Memset& m) {
  Side dst;
  if (cudaError_t err = resolve_memset(m, &dst); err != cudaSuccess) return err;
  for (size_t z = 0; dst.ptr && z < m.shape.depth; ++z)
    for (size_t y = 0; y < m.shape.height; ++y)
      std::memset(dst.ptr + z * m.layout.slice + y * m.layout.pitch, m.value, m.shape.width);
  return cudaSuccess;
}

cudaError_t issue_memset(const Memset& m, cudaStream_t stream, bool async = false) {
  Side dst;
  if (cudaError_t err = resolve_memset(m, &dst); err != cudaSuccess) return err;
  Operation op = [m] { return run_memset(m); };
  return async ? state().enqueue_async(stream, cudaGraphNodeTypeMemset, std::move(op))
               : state().enqueue(stream, cudaGraphNodeTypeMemset, std::move(op));
}

cudaError_t issue_peer_copy(void* dst, int dstDevice, const void* src, int srcDevice, size_t count,
                            cudaStream_t stream) {
  if (!state().valid_device(dstDevice) || !state().valid_device(srcDevice)) return cudaErrorInvalidDevice;
  return issue_copy({dst, flat(count), src, flat(count), {count}, cudaMemcpyDeviceToDevice, dstDevice, srcDevice},
                    stream);
}

// A pitched pointer moved to `pos` (x in bytes).
bool offset_pitched(const cudaPitchedPtr& p, const cudaPos& pos, const void** out) {
  uint64_t slice = 0, z = 0, y = 0, offset = 0;
  if (__builtin_mul_overflow(uint64_t{p.pitch}, p.ysize, &slice) || __builtin_mul_overflow(slice, pos.z, &z) ||
      __builtin_mul_overflow(uint64_t{p.pitch}, pos.y, &y) || __builtin_add_overflow(z, y, &offset) ||
      __builtin_add_overflow(offset, pos.x, &offset) ||
      __builtin_add_overflow(reinterpret_cast<uintptr_t>(p.ptr), offset, &offset))
    return false;
  *out = reinterpret_cast<const void*>(offset);
  return true;
}

// One side of a 3D copy as an address and layout: an array (its position and the extent in
// elements, checked against its size) or a pitched pointer (positions in bytes).
cudaError_t side_3d(cudaArray_const_t array, const cudaPitchedPtr& ptr, const cudaPos& pos, const cudaExtent& e,
                    const void** at, Layout* layout, int* device) {
  if (!array) {
    if (!offset_pitched(ptr, pos, at)) return cudaErrorInvalidValue;
    *layout = {ptr.pitch, ptr.pitch * ptr.ysize};
    return cudaSuccess;
  }
  ArrayLayout a;
  if (!array_layout(array, &a)) return cudaErrorInvalidResourceHandle;
  if (pos.x > a.width || e.width > a.width - pos.x || pos.y > a.height || e.height > a.height - pos.y ||
      pos.z > a.depth || e.depth > a.depth - pos.z)
    return cudaErrorInvalidValue;
  *layout = {a.width * a.elem, a.width * a.elem * a.height};
  *at = static_cast<const uint8_t*>(a.memory) + pos.z * layout->slice + pos.y * layout->pitch + pos.x * a.elem;
  if (*device >= 0 && *device != a.device) return cudaErrorInvalidValue;
  *device = a.device;
  return cudaSuccess;
}

// cudaMemcpy3D(Peer)'s parameters: with an array the extent counts its elements, and both arrays
// of an array-to-array copy have the same element size.
cudaError_t copy_3d(cudaArray_const_t dst_array, const cudaPitchedPtr& dst_ptr, const cudaPos& dst_pos,
                    cudaArray_const_t src_array, const cudaPitchedPtr& src_ptr, const cudaPos& src_pos,
                    const cudaExtent& extent, cudaMemcpyKind kind, int dst_device, int src_device, Copy* out) {
  size_t elem = 1;
  for (cudaArray_const_t arr : {dst_array, src_array}) {
    ArrayLayout a;
    if (!arr) continue;
    if (!array_layout(arr, &a)) return cudaErrorInvalidResourceHandle;
    if (elem != 1 && a.elem != elem) return cudaErrorInvalidValue;
    elem = a.elem;
  }
  Copy c{nullptr, {}, nullptr, {}, {extent.width * elem, extent.height, extent.depth}, kind, dst_device, src_device};
  const void* dst = nullptr;
  if (cudaError_t err = side_3d(dst_array, dst_ptr, dst_pos, extent, &dst, &c.dst_layout, &c.dst_device);
      err != cudaSuccess)
    return err;
  if (cudaError_t err = side_3d(src_array, src_ptr, src_pos, extent, &c.src, &c.src_layout, &c.src_device);
      err != cudaSuccess)
    return err;
  c.dst = const_cast<void*>(dst);
  *out = c;
  return cudaSuccess;
}

cudaError_t copy_3d(const cudaMemcpy3DParms* p, Copy* out) {
  if (!p) return cudaErrorInvalidValue;
  return copy_3d(p->dstArray, p->dstPtr, p->dstPos, p->srcArray, p->srcPtr, p->srcPos, p->extent, p->kind, -1, -1,
                 out);
}

cudaError_t issue_copy_3d(const cudaMemcpy3DParms* p, cudaStream_t stream) {
  Copy c{};
  if (cudaError_t err = copy_3d(p, &c); err != cudaSuccess) return err;
  return issue_copy(c, stream);
}

cudaError_t issue_peer_copy_3d(const cudaMemcpy3DPeerParms* p, cudaStream_t stream) {
  if (!p) return cudaErrorInvalidValue;
  if (!state().valid_device(p->dstDevice) || !state().valid_device(p->srcDevice)) return cudaErrorInvalidDevice;
  Copy c{};
  if (cudaError_t err = copy_3d(p->dstArray, p->dstPtr, p->dstPos, p->srcArray, p->srcPtr, p->srcPos, p->extent,
                                cudaMemcpyDeviceToDevice, p->dstDevice, p->srcDevice, &c);
      err != cudaSuccess)
    return err;
  return issue_copy(c, stream);
}

// A copy node's operation, its copy checked now (as CUDA checks a node's parameters when they are
// given). Host memory is the session's mirror buffer, which lives as long as the session.
cudaError_t copy_node(const Copy& c, Operation* op) {
  Side dst, src;
  if (cudaError_t err = resolve_copy(c, &dst, &src); err != cudaSuccess) return err;
  *op = [c] { return run_copy(c); };
  return cudaSuccess;
}

cudaError_t copy_node_3d(const cudaMemcpy3DParms* p, Operation* op) {
  Copy c{};
  if (cudaError_t err = copy_3d(p, &c); err != cudaSuccess) return err;
  return copy_node(c, op);
}

Copy copy_1d(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  return {dst, flat(count), src, flat(count), {count}, kind};
}

Memset memset_3d(const cudaPitchedPtr& p, int value, const cudaExtent& e) {
  return {p.ptr, {p.pitch, p.pitch * p.ysize}, value, {e.width, e.height, e.depth}};
}

}  // namespace

cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  return issue_memset({devPtr, flat(count), value, {count}}, nullptr);
}

cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  return issue_memset({devPtr, flat(count), value, {count}}, stream, true);
}

cudaError_t cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width, size_t height) {
  return issue_memset({devPtr, {pitch, 0}, value, {width, height}}, nullptr);
}

cudaError_t cudaMemset2DAsync(void* devPtr, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream) {
  return issue_memset({devPtr, {pitch, 0}, value, {width, height}}, stream, true);
}

cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent) {
  return issue_memset(memset_3d(pitchedDevPtr, value, extent), nullptr);
}

cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent,
                              cudaStream_t stream) {
  return issue_memset(memset_3d(pitchedDevPtr, value, extent), stream);
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  return issue_copy({dst, flat(count), src, flat(count), {count}, kind}, nullptr);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
  // With pageable host memory the copy is done when the call returns, so the call waits for the
  // device's work before it (its kernels' time); with pinned memory it is queued behind it.
  const void* host = kind == cudaMemcpyDeviceToHost ? dst : kind == cudaMemcpyHostToDevice ? src : nullptr;
  if (host && !state().is_pinned(host, count)) state().wait_idle(current_device());
  return issue_copy({dst, flat(count), src, flat(count), {count}, kind}, stream, true);
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         enum cudaMemcpyKind kind) {
  return issue_copy({dst, {dpitch, 0}, src, {spitch, 0}, {width, height}, kind}, nullptr);
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                              size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) {
  return issue_copy({dst, {dpitch, 0}, src, {spitch, 0}, {width, height}, kind}, stream, true);
}

cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms* p) { return issue_copy_3d(p, nullptr); }

cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms* p, cudaStream_t stream) {
  return issue_copy_3d(p, stream);
}

cudaError_t cudaMemcpy3DPeer(const struct cudaMemcpy3DPeerParms* p) { return issue_peer_copy_3d(p, nullptr); }

cudaError_t cudaMemcpy3DPeerAsync(const struct cudaMemcpy3DPeerParms* p, cudaStream_t stream) {
  return issue_peer_copy_3d(p, stream);
}

cudaError_t cudaMemcpyPeer(void* dst, int dstDevice, const void* src, int srcDevice, size_t count) {
  return issue_peer_copy(dst, dstDevice, src, srcDevice, count, nullptr);
}

cudaError_t cudaMemcpyPeerAsync(void* dst, int dstDevice, const void* src, int srcDevice, size_t count,
                                cudaStream_t stream) {
  return issue_peer_copy(dst, dstDevice, src, srcDevice, count, stream);
}

// Copy nodes built by hand, and their parameters set in a graph or an executable graph.
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                   size_t numDependencies, const struct cudaMemcpy3DParms* pCopyParams) {
  Operation op;
  if (cudaError_t err = copy_node_3d(pCopyParams, &op); err != cudaSuccess) return err;
  return add_graph_node(graph, pDependencies, numDependencies, {cudaGraphNodeTypeMemcpy, std::move(op)}, pGraphNode);
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t* pDependencies, size_t numDependencies, void* dst,
                                     const void* src, size_t count, enum cudaMemcpyKind kind) {
  Operation op;
  if (cudaError_t err = copy_node(copy_1d(dst, src, count, kind), &op); err != cudaSuccess) return err;
  return add_graph_node(graph, pDependencies, numDependencies, {cudaGraphNodeTypeMemcpy, std::move(op)}, pGraphNode);
}

cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const struct cudaMemcpy3DParms* pNodeParams) {
  Operation op;
  if (cudaError_t err = copy_node_3d(pNodeParams, &op); err != cudaSuccess) return err;
  return set_graph_node(nullptr, node, cudaGraphNodeTypeMemcpy, std::move(op));
}

cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void* dst, const void* src, size_t count,
                                           enum cudaMemcpyKind kind) {
  Operation op;
  if (cudaError_t err = copy_node(copy_1d(dst, src, count, kind), &op); err != cudaSuccess) return err;
  return set_graph_node(nullptr, node, cudaGraphNodeTypeMemcpy, std::move(op));
}

cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemcpy3DParms* pNodeParams) {
  if (!hGraphExec) return cudaErrorInvalidResourceHandle;
  Operation op;
  if (cudaError_t err = copy_node_3d(pNodeParams, &op); err != cudaSuccess) return err;
  return set_graph_node(hGraphExec, node, cudaGraphNodeTypeMemcpy, std::move(op));
}

cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void* dst,
                                               const void* src, size_t count, enum cudaMemcpyKind kind) {
  if (!hGraphExec) return cudaErrorInvalidResourceHandle;
  Operation op;
  if (cudaError_t err = copy_node(copy_1d(dst, src, count, kind), &op); err != cudaSuccess) return err;
  return set_graph_node(hGraphExec, node, cudaGraphNodeTypeMemcpy, std::move(op));
}

}  // namespace rgpu::server::emulated
