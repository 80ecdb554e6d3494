// Host callbacks (cudaLaunchHostFunc, cudaStreamAddCallback) run on the client: the server puts a
// host function in the stream that, when the stream reaches it, sends a callback frame; the
// client's receiver runs the function before it reads any later frame, so a synchronisation that
// follows returns only after the callback has run. Then it acknowledges the frame, and only then
// does the server's host function return: the stream's later GPU work starts after the callback, as
// natively (server/session/session_input.h). The callback's id travels, never its address.
#include <cuda_runtime_api.h>

#include "client/runtime/call.h"
#include "client/runtime/capture.h"
#include "client/runtime/cudart_errors.h"
#include "client/runtime/graph_host_functions.h"
#include "client/runtime/pipe.h"
#include "client/runtime/stream_callbacks.h"
#include "gen/cudart/cudart_ids.h"

namespace rgpu::client {
namespace {

// `persistent`: run at every launch of the graph the stream is capturing into.
cudaError_t post_callback(uint32_t id, cudaStream_t stream, std::function<void()> fn, bool persistent,
                          uint64_t* cb) {
  Pipe& pipe = Pipe::get();
  if (!pipe.available()) return cudaErrorNoDevice;
  *cb = pipe.register_callback(std::move(fn), persistent);
  Call call(id, CallClass::kAsync);
  call.args().put<uint64_t>(reinterpret_cast<uint64_t>(stream));
  call.args().put<uint64_t>(*cb);
  return static_cast<cudaError_t>(call.post());
}

// host_fn and data: the cudaHostFn_t behind `fn`, if it is one (a graph's host node shows it).
cudaError_t enqueue(uint32_t id, cudaStream_t stream, std::function<void()> fn, cudaHostFn_t host_fn = nullptr,
                    void* data = nullptr) {
  // A host function captured into a graph runs at every launch of the graph.
  bool captured = stream_capturing(stream);
  uint64_t cb = 0;
  cudaError_t st = post_callback(id, stream, std::move(fn), captured, &cb);
  if (cb && captured && host_fn) remember_host_function(cb, host_fn, data);
  return cudart_finish(st);
}

}  // namespace

cudaError_t run_in_stream_order(cudaStream_t stream, std::function<void()> fn) {
  uint64_t cb = 0;
  return post_callback(gen::cudart::k_cudaLaunchHostFunc, stream, std::move(fn), false, &cb);
}

}  // namespace rgpu::client

using rgpu::client::enqueue;

namespace ids = rgpu::gen::cudart;

extern "C" cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  if (!fn) return rgpu::client::cudart_finish(cudaErrorInvalidValue);
  return enqueue(ids::k_cudaLaunchHostFunc, stream, [fn, userData] { fn(userData); }, fn, userData);
}

extern "C" cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  if (!fn) return rgpu::client::cudart_finish(cudaErrorInvalidValue);
  if (!stream) stream = cudaStreamPerThread;
  return enqueue(ids::k_cudaLaunchHostFunc_ptsz, stream, [fn, userData] { fn(userData); }, fn, userData);
}

extern "C" cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                             unsigned int flags) {
  if (!callback || flags != 0) return rgpu::client::cudart_finish(cudaErrorInvalidValue);
  return enqueue(ids::k_cudaStreamAddCallback, stream,
                 [callback, stream, userData] { callback(stream, cudaSuccess, userData); });
}

extern "C" cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                                  unsigned int flags) {
  if (!callback || flags != 0) return rgpu::client::cudart_finish(cudaErrorInvalidValue);
  if (!stream) stream = cudaStreamPerThread;
  return enqueue(ids::k_cudaStreamAddCallback_ptsz, stream,
                 [callback, stream, userData] { callback(stream, cudaSuccess, userData); });
}
