// Copy handlers: host data arrives as the call's bulk and leaves as reply bulk (sync) or as a data
// frame with the call's seq (async), which the client lands in user memory. Host-side pointers
// here are the session's own buffers; device pointers are the client's and are checked by the
// backend (a bad one is the client's error, never the daemon's crash).

#include "common/wire/copy_args.h"
#include "common/wire/pitched.h"
#include "common/wire/frame.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "server/session/bulk_copy.h"
#include "server/session/call_context.h"
#include "server/session/copy_parms.h"
#include "server/session/inline_wait.h"
#include "server/session/session.h"

namespace rgpu::server::handlers {
namespace {

enum class Mode { kSync, kAsync };

// Sends an async D2H copy's bytes; always sent (empty on failure) so the client's landing ends.
void send_landing(CallContext& ctx, const void* data, size_t n) {
  iovec v{const_cast<void*>(data), n};
  (void)ctx.session.send(wire::FrameKind::kData, 0, ctx.seq, {}, n ? std::span<const iovec>(&v, 1) : std::span<const iovec>());
}

bool resolve_stream(CallContext& ctx, uint64_t id, cudaStream_t* s, int32_t& status) {
  if (ctx.handles.resolve(HandleKind::kStream, id, s)) return true;
  status = cudaErrorInvalidResourceHandle;
  return false;
}

template <typename SyncFn, typename AsyncFn>
bool copy_1d(CallContext& ctx, wire::Decoder& in, int32_t& status, Mode mode, bool per_thread, SyncFn sync_fn,
             AsyncFn async_fn) {
  auto a = in.get<wire::Copy1D>();
  if (!in.ok() || !in.at_end() || a.count > wire::kMaxBulk) return false;
  auto kind = static_cast<cudaMemcpyKind>(a.kind);
  bool async = mode == Mode::kAsync;
  if (ctx.bulk_reader && kind != cudaMemcpyHostToDevice) return false;
  if (kind == cudaMemcpyHostToDevice && !ctx.bulk_reader && ctx.bulk_in.size() != a.count) return false;
  if (kind != cudaMemcpyHostToDevice && !ctx.bulk_in.empty()) return false;
  if ((async && !async_fn) || (!async && !sync_fn)) {
    status = cudaErrorNotSupported;
    if (async && kind == cudaMemcpyDeviceToHost) send_landing(ctx, nullptr, 0);
    return true;
  }
  cudaStream_t stream{};
  if (async && !resolve_stream(ctx, a.stream, &stream, status)) {
    if (kind == cudaMemcpyDeviceToHost) send_landing(ctx, nullptr, 0);
    return true;
  }
  // A synchronous copy is ordered on the default stream its variant names.
  if (!async) stream = per_thread ? cudaStreamPerThread : nullptr;
  if (kind == cudaMemcpyHostToDevice && ctx.bulk_reader) return streamed_h2d(ctx, a, stream, status);
  auto dst = reinterpret_cast<void*>(static_cast<uintptr_t>(a.dst));
  auto src = reinterpret_cast<const void*>(static_cast<uintptr_t>(a.src));
  if (kind == cudaMemcpyDeviceToHost && async) {
    // Issued on its stream now, its bytes sent once the stream gets there (async_landings.h): the
    // session thread does not wait for the stream.
    status = ctx.session.landings().issue(ctx.seq, ctx.method, src, a.count, stream, {});
    if (status != cudaSuccess) send_landing(ctx, nullptr, 0);
    return true;
  }
  if (kind == cudaMemcpyDeviceToHost && a.count >= kStreamedCopyFrom) return streamed_d2h(ctx, a, stream, status);
  switch (kind) {
    case cudaMemcpyHostToDevice:
      src = ctx.bulk_in.data();
      break;
    case cudaMemcpyDeviceToHost: {
      // Pinned, which the copy engine reaches directly (faster than pageable, even for 4 bytes);
      // a synchronous copy is complete before the reply that sends it.
      int32_t earlier = cudaSuccess;
      dst = ctx.session.staging_ring().acquire(0, &earlier);
      break;
    }
    case cudaMemcpyDeviceToDevice:
      break;
    default:
      status = cudaErrorInvalidMemcpyDirection;
      return true;
  }
  // An async H2D copy from this staging memory completes before the call returns (CUDA's rule for
  // pageable host memory), so the buffer may be reused right after.
  if (!async && kind == cudaMemcpyDeviceToHost && async_fn && ctx.session.answers_waits_from_marks()) {
    // Issued async and watched through a stream mark: a microsecond sooner than the synchronous
    // call (inline_wait.h), whose result it returns.
    status = async_fn(dst, src, a.count, kind, stream);
    if (status == cudaSuccess) status = finish_stream(ctx.session.backend(), stream);
  } else {
    status = async ? async_fn(dst, src, a.count, kind, stream) : sync_fn(dst, src, a.count, kind);
  }
  if (kind == cudaMemcpyDeviceToHost && status == cudaSuccess) ctx.bulk_out->push_back(iovec{dst, a.count});
  return true;
}

// A copy side of cudaMemcpy3D's parameters: a CUDA array (its id resolved, x in elements) or
// pitched memory.
bool resolve_array(CallContext& ctx, uint64_t id, const uint64_t (&pos)[3], cudaArray_t* array, cudaPos* at,
                   int32_t& status) {
  if (!id) return true;
  if (!ctx.handles.resolve(HandleKind::kArray, id, array) || !*array) {
    status = cudaErrorInvalidResourceHandle;
    return false;
  }
  *at = cudaPos{pos[0], pos[1], pos[2]};
  return true;
}

}  // namespace

bool copy_parms(CallContext& ctx, const wire::Copy3D& a, cudaMemcpy3DParms* p, int32_t& status) {
  if (!resolve_array(ctx, a.dst_array, a.dst_pos, &p->dstArray, &p->dstPos, status) ||
      !resolve_array(ctx, a.src_array, a.src_pos, &p->srcArray, &p->srcPos, status))
    return false;
  if (!a.dst_array)
    p->dstPtr = pitched(reinterpret_cast<void*>(static_cast<uintptr_t>(a.dst)), a.dst_pitch, a.width, a.dst_ysize);
  if (!a.src_array)
    p->srcPtr = pitched(reinterpret_cast<void*>(static_cast<uintptr_t>(a.src)), a.src_pitch, a.width, a.src_ysize);
  p->extent = cudaExtent{a.dst_array || a.src_array ? a.width / a.elem : a.width, a.height, a.depth};
  p->kind = static_cast<cudaMemcpyKind>(a.kind);
  return true;
}

namespace {

// 2D and 3D copies: host data travels packed (pitch = width in bytes); the device side keeps its
// pitch. A copy with a CUDA array (extent in its elements) or between devices is a cudaMemcpy3D
// or cudaMemcpy3DPeer.
bool copy_pitched(CallContext& ctx, wire::Decoder& in, int32_t& status, Mode mode, bool per_thread, bool peer) {
  auto a = in.get<wire::Copy3D>();
  if (!in.ok() || !in.at_end()) return false;
  auto kind = static_cast<cudaMemcpyKind>(a.kind);
  bool async = mode == Mode::kAsync;
  if (a.width == 0 || a.height == 0 || a.depth == 0 || a.width > wire::kMaxBulk || a.height > wire::kMaxBulk ||
      a.depth > wire::kMaxBulk || (!a.is_3d && a.depth != 1) || a.elem == 0 || a.width % a.elem != 0 ||
      (peer && kind != cudaMemcpyDeviceToDevice))
    return false;
  unsigned __int128 packed128 = static_cast<unsigned __int128>(a.width) * a.height * a.depth;
  if (kind != cudaMemcpyDeviceToDevice && packed128 > wire::kMaxBulk) return false;
  size_t packed = static_cast<size_t>(packed128);
  if (kind == cudaMemcpyHostToDevice ? ctx.bulk_in.size() != packed : !ctx.bulk_in.empty()) return false;
  cudaStream_t stream{};
  cudaMemcpy3DParms p{};
  const bool arrays = a.dst_array || a.src_array;
  if ((async && !resolve_stream(ctx, a.stream, &stream, status)) || !copy_parms(ctx, a, &p, status)) {
    if (async && kind == cudaMemcpyDeviceToHost) send_landing(ctx, nullptr, 0);
    return true;
  }
  void* host = nullptr;
  switch (kind) {
    case cudaMemcpyHostToDevice:
      host = const_cast<uint8_t*>(ctx.bulk_in.data());
      p.srcPtr = pitched(host, a.width, a.width, a.height);
      break;
    case cudaMemcpyDeviceToHost:
      host = ctx.session.staging(packed).data();
      p.dstPtr = pitched(host, a.width, a.width, a.height);
      break;
    case cudaMemcpyDeviceToDevice:
      break;
    default:
      status = cudaErrorInvalidMemcpyDirection;
      return true;
  }
  const auto& rt = ctx.cudart;
  if (peer) {
    cudaMemcpy3DPeerParms q{p.srcArray, p.srcPos, p.srcPtr, a.src_device, p.dstArray, p.dstPos, p.dstPtr,
                            a.dst_device, p.extent};
    auto c = per_thread ? rt.cudaMemcpy3DPeer_ptds : rt.cudaMemcpy3DPeer;
    auto ca = per_thread ? rt.cudaMemcpy3DPeerAsync_ptsz : rt.cudaMemcpy3DPeerAsync;
    if (async ? !ca : !c) status = cudaErrorNotSupported;
    else status = async ? ca(&q, stream) : c(&q);
    return true;
  }
  auto c2 = per_thread ? rt.cudaMemcpy2D_ptds : rt.cudaMemcpy2D;
  auto c2a = per_thread ? rt.cudaMemcpy2DAsync_ptsz : rt.cudaMemcpy2DAsync;
  auto c3 = per_thread ? rt.cudaMemcpy3D_ptds : rt.cudaMemcpy3D;
  auto c3a = per_thread ? rt.cudaMemcpy3DAsync_ptsz : rt.cudaMemcpy3DAsync;
  const bool use_3d = a.is_3d || arrays;
  bool have = use_3d ? (async ? c3a != nullptr : c3 != nullptr) : (async ? c2a != nullptr : c2 != nullptr);
  if (!have) {
    status = cudaErrorNotSupported;
  } else if (!use_3d) {
    status = async ? c2a(p.dstPtr.ptr, p.dstPtr.pitch, p.srcPtr.ptr, p.srcPtr.pitch, a.width, a.height, kind, stream)
                   : c2(p.dstPtr.ptr, p.dstPtr.pitch, p.srcPtr.ptr, p.srcPtr.pitch, a.width, a.height, kind);
  } else {
    status = async ? c3a(&p, stream) : c3(&p);
  }
  if (status == cudaSuccess && async && kind != cudaMemcpyDeviceToDevice && rt.cudaStreamSynchronize) {
    // A pitched async copy may still be reading or writing the staging buffer, reused next call.
    status = rt.cudaStreamSynchronize(stream);
  }
  if (kind == cudaMemcpyDeviceToHost) {
    size_t n = status == cudaSuccess ? packed : 0;
    if (async) send_landing(ctx, host, n);
    else if (n) ctx.bulk_out->push_back(iovec{host, n});
  }
  return true;
}

bool copy_peer(CallContext& ctx, wire::Decoder& in, int32_t& status, Mode mode) {
  auto a = in.get<wire::Copy1D>();
  if (!in.ok() || !in.at_end() || !ctx.bulk_in.empty()) return false;
  auto dst = reinterpret_cast<void*>(static_cast<uintptr_t>(a.dst));
  auto src = reinterpret_cast<const void*>(static_cast<uintptr_t>(a.src));
  if (mode == Mode::kSync) {
    if (!ctx.cudart.cudaMemcpyPeer) return (status = cudaErrorNotSupported), true;
    status = ctx.cudart.cudaMemcpyPeer(dst, a.device, src, a.src_device, a.count);
    return true;
  }
  if (!ctx.cudart.cudaMemcpyPeerAsync) return (status = cudaErrorNotSupported), true;
  cudaStream_t stream{};
  if (!resolve_stream(ctx, a.stream, &stream, status)) return true;
  status = ctx.cudart.cudaMemcpyPeerAsync(dst, a.device, src, a.src_device, a.count, stream);
  return true;
}

}  // namespace

#define RGPU_COPY_HANDLER(name, mode, per_thread, sync_fn, async_fn)                                  \
  bool name(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {            \
    (void)out;                                                                                      \
    return copy_1d(ctx, in, status, mode, per_thread, ctx.cudart.sync_fn, ctx.cudart.async_fn);      \
  }

RGPU_COPY_HANDLER(cudaMemcpy, Mode::kSync, false, cudaMemcpy, cudaMemcpyAsync)
RGPU_COPY_HANDLER(cudaMemcpy_ptds, Mode::kSync, true, cudaMemcpy_ptds, cudaMemcpyAsync_ptsz)
RGPU_COPY_HANDLER(cudaMemcpyAsync, Mode::kAsync, false, cudaMemcpy, cudaMemcpyAsync)
RGPU_COPY_HANDLER(cudaMemcpyAsync_ptsz, Mode::kAsync, true, cudaMemcpy_ptds, cudaMemcpyAsync_ptsz)

#undef RGPU_COPY_HANDLER

#define RGPU_PITCHED_HANDLER(name, mode, per_thread, peer)                                     \
  bool name(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {     \
    (void)out;                                                                              \
    return copy_pitched(ctx, in, status, mode, per_thread, peer);                            \
  }

RGPU_PITCHED_HANDLER(cudaMemcpy2D, Mode::kSync, false, false)
RGPU_PITCHED_HANDLER(cudaMemcpy2D_ptds, Mode::kSync, true, false)
RGPU_PITCHED_HANDLER(cudaMemcpy2DAsync, Mode::kAsync, false, false)
RGPU_PITCHED_HANDLER(cudaMemcpy2DAsync_ptsz, Mode::kAsync, true, false)
RGPU_PITCHED_HANDLER(cudaMemcpy3D, Mode::kSync, false, false)
RGPU_PITCHED_HANDLER(cudaMemcpy3D_ptds, Mode::kSync, true, false)
RGPU_PITCHED_HANDLER(cudaMemcpy3DAsync, Mode::kAsync, false, false)
RGPU_PITCHED_HANDLER(cudaMemcpy3DAsync_ptsz, Mode::kAsync, true, false)
RGPU_PITCHED_HANDLER(cudaMemcpy3DPeer, Mode::kSync, false, true)
RGPU_PITCHED_HANDLER(cudaMemcpy3DPeer_ptds, Mode::kSync, true, true)
RGPU_PITCHED_HANDLER(cudaMemcpy3DPeerAsync, Mode::kAsync, false, true)
RGPU_PITCHED_HANDLER(cudaMemcpy3DPeerAsync_ptsz, Mode::kAsync, true, true)

#undef RGPU_PITCHED_HANDLER

bool cudaMemcpyPeer(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  return copy_peer(ctx, in, status, Mode::kSync);
}

bool cudaMemcpyPeerAsync(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  return copy_peer(ctx, in, status, Mode::kAsync);
}

}  // namespace rgpu::server::handlers
