// Host callbacks: the server puts a host function in the stream; when the stream reaches it, it
// sends the client a callback frame carrying the client's callback id, and the client runs the
// user's function (see client/runtime/callbacks.cpp for the ordering guarantee).
#include <cuda_runtime_api.h>

#include "common/wire/frame.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "server/session/call_context.h"
#include "server/session/session.h"

namespace rgpu::server::handlers {
namespace {

struct PendingCallback {
  Session* session;
  uint64_t seq;
  uint64_t id;
};

void CUDART_CB notify_client(void* data) {
  auto* p = static_cast<PendingCallback*>(data);
  wire::Encoder e;
  e.put<uint64_t>(p->id);
  (void)p->session->send(wire::FrameKind::kCallback, 0, p->seq, e.payload());
  delete p;
}

bool enqueue(CallContext& ctx, wire::Decoder& in, int32_t& status, cudaError_t (*fn)(cudaStream_t, cudaHostFn_t, void*)) {
  auto stream_id = in.get<uint64_t>();
  auto callback_id = in.get<uint64_t>();
  if (!in.ok() || !in.at_end()) return false;
  if (!fn) {
    status = cudaErrorNotSupported;
    return true;
  }
  cudaStream_t stream{};
  if (!ctx.handles.resolve(HandleKind::kStream, stream_id, &stream)) {
    status = cudaErrorInvalidResourceHandle;
    return true;
  }
  auto* p = new PendingCallback{&ctx.session, ctx.seq, callback_id};
  status = fn(stream, &notify_client, p);
  if (status != cudaSuccess) delete p;
  return true;
}

}  // namespace

bool cudaLaunchHostFunc(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  return enqueue(ctx, in, status, ctx.cudart.cudaLaunchHostFunc);
}
bool cudaLaunchHostFunc_ptsz(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  return enqueue(ctx, in, status, ctx.cudart.cudaLaunchHostFunc_ptsz);
}
// Stream callbacks become host functions on the server; the client calls the user's
// cudaStreamCallback_t with its own stream id.
bool cudaStreamAddCallback(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  return enqueue(ctx, in, status, ctx.cudart.cudaLaunchHostFunc);
}
bool cudaStreamAddCallback_ptsz(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  return enqueue(ctx, in, status, ctx.cudart.cudaLaunchHostFunc_ptsz);
}

}  // namespace rgpu::server::handlers
