// Host callbacks: the server puts a host function in the stream; when the stream reaches it, it
// sends the client a callback frame carrying the client's callback id, and waits until the client
// says the user's function has returned (Session::run_client_callback, session_input.h), so that
// the stream's later work starts only after it, as natively. The client runs the function on its
// receiver thread (see client/runtime/callbacks.cpp for the ordering guarantee there).
//
// The host function runs where the backend runs host functions: the CUDA driver's callback thread,
// while the session thread goes on reading the client's frames (the acknowledgement among them), or,
// on the emulated backend, inline on the session thread inside this very call (or a graph launch),
// which then reads the client's frames itself while it waits: later calls wait their turn until the
// acknowledgement (session_input.h).
#include <cuda_runtime_api.h>

#include <memory>

#include "common/wire/frame.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "server/session/call_context.h"
#include "server/session/host_callbacks.h"
#include "server/session/session.h"

namespace rgpu::server::handlers {
namespace {

void CUDART_CB run_once(void* data) {
  std::unique_ptr<Session::HostCallback> p(static_cast<Session::HostCallback*>(data));
  p->session->run_client_callback(p->id);
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
  // The legacy stream never captures (and asking about it while another stream captures is an
  // error of its own).
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (stream && stream != cudaStreamLegacy && ctx.cudart.cudaStreamIsCapturing &&
      ctx.cudart.cudaStreamIsCapturing(stream, &capture) != cudaSuccess)
    capture = cudaStreamCaptureStatusNone;  // the enqueue below says what is wrong
  if (capture == cudaStreamCaptureStatusActive) {
    status = fn(stream, &run_each_launch, ctx.session.keep_host_callback(callback_id));
    return true;
  }
  auto* p = new Session::HostCallback{&ctx.session, callback_id};
  status = fn(stream, &run_once, p);
  if (status != cudaSuccess) delete p;
  return true;
}

}  // namespace

// Captured into a graph (or a host node's function): the same host function runs at each launch of
// the graph, with the same data, which lives as long as the session.
void CUDART_CB run_each_launch(void* data) {
  auto* p = static_cast<Session::HostCallback*>(data);
  p->session->run_client_callback(p->id);
}

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
