// Emulated CUDA Runtime: streams and host callbacks. Work runs when issued, so a stream has
// nothing pending but its device's kernel time (RGPU_EMULATED_KERNEL_MS): without one, query and
// synchronize succeed at once (outside capture).
#include <algorithm>

#include "server/backends/emulated/runtime.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
cudaError_t cudaStreamCreate(cudaStream_t* pStream) { return emulated::cudaStreamCreateWithPriority(pStream, cudaStreamDefault, 0); }

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags) {
  return emulated::cudaStreamCreateWithPriority(pStream, flags, 0);
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* pStream, unsigned int flags, int priority) {
  if (!pStream || (flags != cudaStreamDefault && flags != cudaStreamNonBlocking)) return cudaErrorInvalidValue;
  RuntimeState& s = state();
  if (!s.valid_device(current_device())) return cudaErrorInvalidDevice;
  auto stream = std::make_unique<Stream>();
  stream->device = current_device();
  stream->flags = flags;
  stream->priority = std::clamp(priority, kGreatestStreamPriority, kLeastStreamPriority);  // CUDA clamps too
  std::lock_guard lock(s.mu);
  stream->id = s.next_stream_id++;
  *pStream = reinterpret_cast<cudaStream_t>(stream.get());
  s.streams.emplace(stream.get(), std::move(stream));
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  std::lock_guard lock(state().mu);
  return state().streams.erase(stream) ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

namespace {

// The device of a valid stream handle (a built-in stream: the current device).
int stream_device(cudaStream_t handle) {
  std::lock_guard lock(state().mu);
  Stream* s = nullptr;
  return state().resolve_stream(handle, &s) == cudaSuccess && s ? s->device : current_device();
}

}  // namespace

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  if (cudaError_t err = state().forbid_in_capture(stream); err != cudaSuccess) return err;
  return state().busy(stream_device(stream)) ? cudaErrorNotReady : cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (cudaError_t err = state().forbid_in_capture(stream); err != cudaSuccess) return err;
  state().wait_idle(stream_device(stream));
  return cudaSuccess;
}

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int* priority) {
  if (!priority) return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  Stream* s = nullptr;
  if (cudaError_t err = state().resolve_stream(hStream, &s); err != cudaSuccess) return err;
  *priority = s ? s->priority : 0;
  return cudaSuccess;
}

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int* flags) {
  if (!flags) return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  Stream* s = nullptr;
  if (cudaError_t err = state().resolve_stream(hStream, &s); err != cudaSuccess) return err;
  *flags = s ? s->flags : cudaStreamDefault;
  return cudaSuccess;
}

cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int* device) {
  if (!device) return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  Stream* s = nullptr;
  if (cudaError_t err = state().resolve_stream(hStream, &s); err != cudaSuccess) return err;
  *device = s ? s->device : current_device();
  return cudaSuccess;
}

cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long* streamId) {
  if (!streamId) return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  Stream* s = nullptr;
  if (cudaError_t err = state().resolve_stream(hStream, &s); err != cudaSuccess) return err;
  *streamId = s ? s->id : reinterpret_cast<uintptr_t>(hStream);
  return cudaSuccess;
}

cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src) {
  // Stream attributes (access policy windows, synchronization policy) do not change anything when
  // all work is done at issue time; both handles are still checked.
  std::lock_guard lock(state().mu);
  Stream* s = nullptr;
  if (cudaError_t err = state().resolve_stream(dst, &s); err != cudaSuccess) return err;
  return state().resolve_stream(src, &s);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  if (flags != cudaEventWaitDefault && flags != cudaEventWaitExternal) return cudaErrorInvalidValue;
  RuntimeState& st = state();
  std::lock_guard lock(st.mu);
  Stream* s = nullptr;
  if (cudaError_t err = st.resolve_stream(stream, &s); err != cudaSuccess) return err;
  Event* e = st.find_event(event);
  if (!e) return cudaErrorInvalidResourceHandle;
  // Waiting on an event recorded inside a live capture pulls this stream into that capture (the
  // fork pattern of multi-stream capture); its later work is appended to the same graph.
  std::shared_ptr<Capture> capture = e->captured_in;
  if (!capture || (s && s->capture == capture)) return cudaSuccess;
  bool live = std::any_of(st.streams.begin(), st.streams.end(),
                          [&](const auto& kv) { return kv.second->capture == capture; });
  if (!live) return cudaSuccess;
  if (!s) {
    capture->invalidated = true;  // a built-in stream cannot join a capture
    return cudaErrorStreamCaptureImplicit;
  }
  if (s->capture) return cudaErrorStreamCaptureIsolation;  // already in another capture
  s->capture = capture;
  return cudaSuccess;
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                  unsigned int flags) {
  if (!callback || flags != 0) return cudaErrorInvalidValue;
  if (cudaError_t err = state().forbid_in_capture(stream); err != cudaSuccess) return err;
  return state().enqueue_async(stream, cudaGraphNodeTypeHost, [stream, callback, userData] {
    callback(stream, cudaSuccess, userData);
    return cudaSuccess;
  });
}

// At once when the device is idle (the stream's prior work is complete), else on the device's
// callback thread once it is (RuntimeState::enqueue_async).
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  if (!fn) return cudaErrorInvalidValue;
  return state().enqueue_async(stream, cudaGraphNodeTypeHost, [fn, userData] {
    fn(userData);
    return cudaSuccess;
  });
}

}  // namespace rgpu::server::emulated
