// cudaMemcpy* on the client: host-to-host stays local; H2D sends the bytes with the call; D2H
// receives them in the reply (sync) or in a data frame that lands in user memory before the
// stream's next synchronisation returns (async); D2D is forwarded. Copies above the chunk size go
// as several calls so that no frame exceeds the wire's bulk limit.
#include "client/runtime/memcpy.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "client/runtime/arrays.h"
#include "client/runtime/call.h"
#include "client/runtime/capture.h"
#include "client/runtime/cudart_errors.h"
#include "client/runtime/memory_map.h"
#include "client/runtime/pipe.h"
#include "client/runtime/shared_host.h"
#include "client/runtime/stream_signals.h"
#include "client/runtime/stripes.h"
#include "common/config.h"
#include "common/wire/array_geometry.h"
#include "common/wire/copy_args.h"
#include "common/wire/pitched.h"
#include "common/wire/frame.h"
#include "gen/cudart/cudart_ids.h"

namespace rgpu::client {
namespace ids = gen::cudart;

namespace {

const Tunable kChunk{"RGPU_COPY_CHUNK_MB", "64", "largest piece of a host<->device copy sent as one frame (MiB)"};

size_t chunk_bytes() {
  static const size_t c = std::clamp<size_t>(static_cast<size_t>(kChunk.get_int()), 1, wire::kMaxBulk >> 20) << 20;
  return c;
}

uint64_t stream_id(cudaStream_t s, bool per_thread) {
  auto id = reinterpret_cast<uint64_t>(s);
  return (per_thread && id == 0) ? reinterpret_cast<uint64_t>(cudaStreamPerThread) : id;
}

// Resolves cudaMemcpyDefault from the memory map; reports whether each side is device memory.
cudaMemcpyKind resolve(cudaMemcpyKind kind, const void* dst, const void* src) {
  if (kind != cudaMemcpyDefault) return kind;
  bool d_dev = MemoryMap::get().find_device(dst).has_value();
  bool s_dev = MemoryMap::get().find_device(src).has_value();
  if (d_dev && s_dev) return cudaMemcpyDeviceToDevice;
  if (d_dev) return cudaMemcpyHostToDevice;
  if (s_dev) return cudaMemcpyDeviceToHost;
  return cudaMemcpyHostToHost;
}

// `wait`: the caller needs the server's answer before it returns (a D2H copy's bytes, or the status
// of a copy the client cannot check itself).
int32_t send_copy(uint32_t id, bool wait, const wire::Copy1D& a, const void* h2d, void* d2h) {
  Call call(id, wait ? CallClass::kSync : CallClass::kAsync);
  call.args().put(a);
  if (h2d) {
    Pipe::get().wait_landings(h2d, a.count);
    call.add_bulk(h2d, a.count);
  }
  if (d2h) call.expect_reply_bulk(d2h, a.count);
  return wait ? call.invoke() : call.post();
}

// Whether [p, p+n) lies inside one device allocation this client made.
bool known_device_range(const void* p, size_t n) {
  auto r = MemoryMap::get().find_device(p);
  return r && reinterpret_cast<uintptr_t>(p) + n <= r->base + r->size;
}

}  // namespace

cudaError_t copy_linear(void* dst, const void* src, size_t count, cudaMemcpyKind kind, bool async,
                        cudaStream_t stream, bool per_thread) {
  if (count == 0) return cudaSuccess;
  if (!dst || !src) return cudart_finish(cudaErrorInvalidValue);
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return cudart_finish(cudaErrorInvalidMemcpyDirection);
  kind = resolve(kind, dst, src);
  if (kind == cudaMemcpyHostToHost) {
    Pipe::get().wait_landings(src, count);
    std::memmove(dst, src, count);
    return cudaSuccess;
  }
  if (async && (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToHost)) {
    cudaStream_t s = reinterpret_cast<cudaStream_t>(stream_id(stream, per_thread));
    if (stream_capturing(s)) return capture_host_copy(dst, src, count, kind, s);
  }
  uint32_t id = async ? (per_thread ? ids::k_cudaMemcpyAsync_ptsz : ids::k_cudaMemcpyAsync)
                      : (per_thread ? ids::k_cudaMemcpy_ptds : ids::k_cudaMemcpy);
  wire::Copy1D a{};
  a.kind = kind;
  a.device = -1;
  a.src_device = -1;
  a.stream = stream_id(stream, per_thread);
  if (kind == cudaMemcpyDeviceToDevice) {
    a.dst = reinterpret_cast<uint64_t>(dst);
    a.src = reinterpret_cast<uint64_t>(src);
    a.count = count;
    // CUDA's own D2D cudaMemcpy does not wait for the copy either.
    const bool wait = !async && !(known_device_range(dst, count) && known_device_range(src, count));
    return cudart_finish(static_cast<cudaError_t>(send_copy(id, wait, a, nullptr, nullptr)));
  }
  // A client on the server's host: pinned memory is shared with the session (only where the bytes
  // are travels), pageable memory staged through shared chunks (shared_host.h).
  {
    int32_t st = 0;
    const bool h2d = kind == cudaMemcpyHostToDevice;
    if (copy_shared(h2d ? dst : const_cast<void*>(src), h2d ? const_cast<void*>(src) : dst, count, kind, async,
                    a.stream, per_thread, &st))
      return cudart_finish(static_cast<cudaError_t>(st));
  }
  // A small synchronous D2H copy of a client sharing memory: through a slot of the signal page,
  // answered by the GPU's word, not by a reply (stream_signals.h). When the word says to ask, the
  // copy goes on below, and the slot is kept until it has (its copy is on the same stream).
  std::optional<SignalRead> read;
  if (!async && kind == cudaMemcpyDeviceToHost && count <= kSignalReadMax) {
    read.emplace(dst, src, count, per_thread);
    if (read->outcome() == SignalRead::kAnswered) return cudaSuccess;
  }
  // Host <-> device, in chunks. A synchronous H2D copy into memory the client knows returns once
  // its bytes are handed to the transport, as CUDA's does from pageable memory: nothing can fail
  // that the client has not checked, and an error of earlier work surfaces at the next sync.
  const bool wait = !async && !(kind == cudaMemcpyHostToDevice && known_device_range(dst, count));
  // Large copies spread over the stripe connections when those are on: synchronous ones, and
  // asynchronous ones on their stream (not an H2D one on the per-thread default stream: that is the
  // session thread's, and the stripes' threads issue an H2D copy's pieces; a D2H copy's are issued
  // by the session thread).
  {
    int32_t st = 0;
    bool striped = false;
    const bool per_thread_stream = a.stream == reinterpret_cast<uint64_t>(cudaStreamPerThread);
    if (kind == cudaMemcpyHostToDevice && !wait && !(async && per_thread_stream))
      striped = Stripes::get().copy_h2d(dst, src, count, &st, async ? &a.stream : nullptr);
    else if (kind == cudaMemcpyDeviceToHost)
      striped = Stripes::get().copy_d2h(dst, src, count, &st, async ? &a.stream : nullptr);
    if (striped) return cudart_finish(static_cast<cudaError_t>(st));
  }
  const size_t chunk = chunk_bytes();
  for (size_t off = 0; off < count; off += chunk) {
    size_t n = std::min(chunk, count - off);
    a.dst = reinterpret_cast<uint64_t>(dst) + off;
    a.src = reinterpret_cast<uint64_t>(src) + off;
    a.count = n;
    int32_t st = 0;
    if (kind == cudaMemcpyHostToDevice) {
      st = send_copy(id, wait, a, static_cast<const char*>(src) + off, nullptr);
    } else if (wait && off + n < count) {
      // The chunks before the last of a synchronous D2H copy go without waiting, as async copies
      // on the default stream the copy is ordered on: their bytes land before the last chunk's
      // reply, and the copy streams without a round trip between chunks.
      wire::Copy1D c = a;
      c.stream = stream_id(nullptr, per_thread);
      st = send_copy(per_thread ? ids::k_cudaMemcpyAsync_ptsz : ids::k_cudaMemcpyAsync, false, c, nullptr,
                     static_cast<char*>(dst) + off);
    } else {
      st = send_copy(id, wait, a, nullptr, static_cast<char*>(dst) + off);
    }
    if (st != 0) return cudart_finish(static_cast<cudaError_t>(st));
  }
  return cudaSuccess;
}

cudaError_t describe_pitched(const cudaMemcpy3DParms& p, PitchedCopy* out) {
  const cudaExtent& extent = p.extent;
  // An array side's elements: the extent's width and the array's x position count them.
  size_t elem = 1;
  for (cudaArray_const_t arr : {static_cast<cudaArray_const_t>(p.dstArray), static_cast<cudaArray_const_t>(p.srcArray)}) {
    if (!arr) continue;
    auto rec = find_array(arr);
    if (!rec) return cudaErrorInvalidResourceHandle;
    size_t e = channel_bytes(rec->desc);
    if (e == 0) {
      report_unsupported("copies of CUDA arrays whose elements are not whole bytes (NV12, block-compressed)");
      return cudaErrorNotSupported;
    }
    if (elem != 1 && e != elem) return cudaErrorInvalidValue;
    elem = e;
  }
  size_t width = 0;
  if (__builtin_mul_overflow(extent.width, elem, &width)) return cudaErrorInvalidValue;
  if ((!p.dstArray && !p.dstPtr.ptr) || (!p.srcArray && !p.srcPtr.ptr)) return cudaErrorInvalidValue;
  if ((!p.dstArray && width > p.dstPtr.pitch) || (!p.srcArray && width > p.srcPtr.pitch))
    return cudaErrorInvalidPitchValue;
  auto rows = [&](const cudaPitchedPtr& ptr, const cudaPos& pos) {
    size_t ysize = ptr.ysize ? ptr.ysize : extent.height;
    char* base = static_cast<char*>(ptr.ptr) + pos.z * ptr.pitch * ysize + pos.y * ptr.pitch + pos.x;
    return HostRows{base, width, ptr.pitch, extent.height, ptr.pitch * ysize, extent.depth};
  };
  if (!p.dstArray) out->dst = rows(p.dstPtr, p.dstPos);
  if (!p.srcArray) out->src = rows(p.srcPtr, p.srcPos);
  cudaMemcpyKind kind = p.kind;
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
  if (kind == cudaMemcpyDefault) {
    bool d_dev = p.dstArray || MemoryMap::get().find_device(out->dst.base).has_value();
    bool s_dev = p.srcArray || MemoryMap::get().find_device(out->src.base).has_value();
    kind = d_dev ? (s_dev ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                 : (s_dev ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
  }
  if ((p.dstArray && (kind == cudaMemcpyHostToHost || kind == cudaMemcpyDeviceToHost)) ||
      (p.srcArray && (kind == cudaMemcpyHostToHost || kind == cudaMemcpyHostToDevice)))
    return cudaErrorInvalidMemcpyDirection;
  size_t packed = 0;
  if (__builtin_mul_overflow(width, extent.height, &packed) || __builtin_mul_overflow(packed, extent.depth, &packed) ||
      (kind != cudaMemcpyDeviceToDevice && packed > wire::kMaxBulk))
    return cudaErrorInvalidValue;
  wire::Copy3D& a = out->args;
  a.dst = reinterpret_cast<uint64_t>(out->dst.base);
  a.dst_pitch = p.dstPtr.pitch;
  a.dst_ysize = p.dstPtr.ysize ? p.dstPtr.ysize : extent.height;
  a.src = reinterpret_cast<uint64_t>(out->src.base);
  a.src_pitch = p.srcPtr.pitch;
  a.src_ysize = p.srcPtr.ysize ? p.srcPtr.ysize : extent.height;
  a.width = width;
  a.height = extent.height;
  a.depth = extent.depth;
  a.kind = kind;
  a.dst_array = reinterpret_cast<uint64_t>(p.dstArray);
  a.src_array = reinterpret_cast<uint64_t>(p.srcArray);
  if (p.dstArray) a.dst_pos[0] = p.dstPos.x, a.dst_pos[1] = p.dstPos.y, a.dst_pos[2] = p.dstPos.z;
  if (p.srcArray) a.src_pos[0] = p.srcPos.x, a.src_pos[1] = p.srcPos.y, a.src_pos[2] = p.srcPos.z;
  a.elem = elem;
  a.dst_device = -1;
  a.src_device = -1;
  return cudaSuccess;
}

// 2D and 3D copies between pitched memory and CUDA arrays; host sides are packed into / unpacked
// from a contiguous buffer of rows of the copy's width in bytes. `is_3d` picks the server's
// cudaMemcpy2D* or cudaMemcpy3D* (an array or a peer copy is always served by the 3D calls).
cudaError_t copy_pitched(const cudaMemcpy3DParms& p, bool is_3d, bool async, cudaStream_t stream, bool per_thread,
                         uint32_t id, const PeerDevices& peer) {
  const cudaExtent& extent = p.extent;
  if (extent.width == 0 || extent.height == 0 || extent.depth == 0) return cudaSuccess;
  PitchedCopy c;
  if (cudaError_t st = describe_pitched(p, &c); st != cudaSuccess) return cudart_finish(st);
  wire::Copy3D& a = c.args;
  const auto kind = static_cast<cudaMemcpyKind>(a.kind);
  const size_t packed = a.width * a.height * a.depth;
  if (kind == cudaMemcpyHostToHost) {
    std::vector<char> tmp(packed);
    c.src.each([&](char* row, size_t off) { std::memcpy(tmp.data() + off, row, a.width); });
    c.dst.each([&](char* row, size_t off) { std::memcpy(row, tmp.data() + off, a.width); });
    return cudaSuccess;
  }
  a.is_3d = is_3d ? 1 : 0;
  a.stream = stream_id(stream, per_thread);
  a.dst_device = peer.dst;
  a.src_device = peer.src;

  Call call(id, async ? CallClass::kAsync : CallClass::kSync);
  call.args().put(a);
  std::vector<char> host;  // packed host rows (kept alive until the call is sent or answered)
  if (kind == cudaMemcpyHostToDevice) {
    host.resize(packed);
    c.src.each([&](char* row, size_t off) { std::memcpy(host.data() + off, row, a.width); });
    call.add_bulk(host.data(), packed);
    return cudart_finish(static_cast<cudaError_t>(async ? call.post() : call.invoke()));
  }
  if (kind == cudaMemcpyDeviceToHost) {
    // Rows land in a packed buffer first, so this copy waits for its data even when async.
    host.resize(packed);
    call.expect_reply_bulk(host.data(), packed);
    int32_t st = call.invoke();
    if (st == 0) c.dst.each([&](char* row, size_t off) { std::memcpy(row, host.data() + off, a.width); });
    return cudart_finish(static_cast<cudaError_t>(st));
  }
  return cudart_finish(static_cast<cudaError_t>(async ? call.post() : call.invoke()));
}

cudaError_t copy_3d_parms(const cudaMemcpy3DParms& p, bool async, cudaStream_t stream, bool per_thread) {
  uint32_t id = async ? (per_thread ? ids::k_cudaMemcpy3DAsync_ptsz : ids::k_cudaMemcpy3DAsync)
                      : (per_thread ? ids::k_cudaMemcpy3D_ptds : ids::k_cudaMemcpy3D);
  return copy_pitched(p, true, async, stream, per_thread, id, PeerDevices{});
}

namespace {

cudaError_t copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                    cudaMemcpyKind kind, bool async, cudaStream_t stream, bool per_thread, uint32_t id) {
  cudaMemcpy3DParms p{};
  p.dstPtr = pitched(dst, dpitch, width, height);
  p.srcPtr = pitched(const_cast<void*>(src), spitch, width, height);
  p.extent = cudaExtent{width, height, 1};
  p.kind = kind;
  return copy_pitched(p, false, async, stream, per_thread, id, PeerDevices{});
}

}  // namespace
}  // namespace rgpu::client

using rgpu::client::copy_linear;
namespace ids = rgpu::gen::cudart;

extern "C" cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  return copy_linear(dst, src, count, kind, false, nullptr, false);
}
extern "C" cudaError_t cudaMemcpy_ptds(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  return copy_linear(dst, src, count, kind, false, nullptr, true);
}
extern "C" cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream) {
  return copy_linear(dst, src, count, kind, true, stream, false);
}
extern "C" cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                                            cudaStream_t stream) {
  return copy_linear(dst, src, count, kind, true, stream, true);
}
extern "C" cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                    size_t height, cudaMemcpyKind kind) {
  return rgpu::client::copy_2d(dst, dpitch, src, spitch, width, height, kind, false, nullptr, false, ids::k_cudaMemcpy2D);
}
extern "C" cudaError_t cudaMemcpy2D_ptds(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                         size_t height, cudaMemcpyKind kind) {
  return rgpu::client::copy_2d(dst, dpitch, src, spitch, width, height, kind, false, nullptr, true,
                               ids::k_cudaMemcpy2D_ptds);
}
extern "C" cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                         size_t height, cudaMemcpyKind kind, cudaStream_t stream) {
  return rgpu::client::copy_2d(dst, dpitch, src, spitch, width, height, kind, true, stream, false,
                               ids::k_cudaMemcpy2DAsync);
}
extern "C" cudaError_t cudaMemcpy2DAsync_ptsz(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                              size_t height, cudaMemcpyKind kind, cudaStream_t stream) {
  return rgpu::client::copy_2d(dst, dpitch, src, spitch, width, height, kind, true, stream, true,
                               ids::k_cudaMemcpy2DAsync_ptsz);
}
extern "C" cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) {
  return p ? rgpu::client::copy_3d_parms(*p, false, nullptr, false) : rgpu::client::cudart_finish(cudaErrorInvalidValue);
}
extern "C" cudaError_t cudaMemcpy3D_ptds(const cudaMemcpy3DParms* p) {
  return p ? rgpu::client::copy_3d_parms(*p, false, nullptr, true) : rgpu::client::cudart_finish(cudaErrorInvalidValue);
}
extern "C" cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t stream) {
  return p ? rgpu::client::copy_3d_parms(*p, true, stream, false) : rgpu::client::cudart_finish(cudaErrorInvalidValue);
}
extern "C" cudaError_t cudaMemcpy3DAsync_ptsz(const cudaMemcpy3DParms* p, cudaStream_t stream) {
  return p ? rgpu::client::copy_3d_parms(*p, true, stream, true) : rgpu::client::cudart_finish(cudaErrorInvalidValue);
}

namespace {
cudaError_t copy_peer(void* dst, int dst_device, const void* src, int src_device, size_t count, bool async,
                      cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  rgpu::wire::Copy1D a{};
  a.dst = reinterpret_cast<uint64_t>(dst);
  a.src = reinterpret_cast<uint64_t>(src);
  a.count = count;
  a.kind = cudaMemcpyDeviceToDevice;
  a.device = dst_device;
  a.src_device = src_device;
  a.stream = reinterpret_cast<uint64_t>(stream);
  rgpu::client::Call call(async ? ids::k_cudaMemcpyPeerAsync : ids::k_cudaMemcpyPeer,
                          async ? rgpu::client::CallClass::kAsync : rgpu::client::CallClass::kSync);
  call.args().put(a);
  return rgpu::client::cudart_finish(static_cast<cudaError_t>(async ? call.post() : call.invoke()));
}
}  // namespace

extern "C" cudaError_t cudaMemcpyPeer(void* dst, int dstDevice, const void* src, int srcDevice, size_t count) {
  return copy_peer(dst, dstDevice, src, srcDevice, count, false, nullptr);
}
extern "C" cudaError_t cudaMemcpyPeerAsync(void* dst, int dstDevice, const void* src, int srcDevice, size_t count,
                                           cudaStream_t stream) {
  return copy_peer(dst, dstDevice, src, srcDevice, count, true, stream);
}
