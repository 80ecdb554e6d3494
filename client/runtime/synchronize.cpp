// cudaStreamSynchronize and cudaEventSynchronize: answered through a stream signal where one can
// (stream_signals.h), else by the synchronising call.
#include <cuda_runtime_api.h>

#include "client/runtime/cudart_errors.h"
#include "client/runtime/stream_signals.h"
#include "codegen/support/gen_marshal.h"
#include "gen/cudart/cudart_remote.h"

namespace rgpu::client {
namespace {

namespace remote = gen::cudart::remote;

cudaError_t synchronize(cudaStream_t stream, bool per_thread) {
  if (wait_through_signal(gen::handle_id(stream), per_thread,
                          per_thread ? "cudaStreamSynchronize_ptsz" : "cudaStreamSynchronize"))
    return cudart_finish(cudaSuccess);
  return cudart_finish(per_thread ? remote::cudaStreamSynchronize_ptsz(stream) : remote::cudaStreamSynchronize(stream));
}

cudaError_t synchronize(cudaEvent_t event) {
  if (wait_for_event_through_signal(gen::handle_id(event))) return cudart_finish(cudaSuccess);
  return cudart_finish(remote::cudaEventSynchronize(event));
}

}  // namespace
}  // namespace rgpu::client

extern "C" cudaError_t cudaStreamSynchronize(cudaStream_t stream) { return rgpu::client::synchronize(stream, false); }

extern "C" cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) {
  return rgpu::client::synchronize(stream, true);
}

extern "C" cudaError_t cudaEventSynchronize(cudaEvent_t event) { return rgpu::client::synchronize(event); }
