// Emulated CUDA Runtime: events. A record stamps the steady clock when it runs (at once, behind a
// deferred host function, or at each replay of the graph that captured it).
#include <chrono>

#include "server/backends/emulated/runtime.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
namespace {

constexpr unsigned kEventFlags = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;

cudaError_t stamp(cudaEvent_t event) { return state().stamp_event(event, false); }

}  // namespace

cudaError_t cudaEventCreate(cudaEvent_t* event) { return emulated::cudaEventCreateWithFlags(event, cudaEventDefault); }

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  if (!event || (flags & ~kEventFlags)) return cudaErrorInvalidValue;
  if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming)) return cudaErrorInvalidValue;
  RuntimeState& s = state();
  if (!s.valid_device(current_device())) return cudaErrorInvalidDevice;
  auto e = std::make_unique<Event>();
  e->device = current_device();
  e->flags = flags;
  std::lock_guard lock(s.mu);
  *event = reinterpret_cast<cudaEvent_t>(e.get());
  s.events.emplace(e.get(), std::move(e));
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  std::lock_guard lock(state().mu);
  return state().events.erase(event) ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return emulated::cudaEventRecordWithFlags(event, stream, cudaEventRecordDefault);
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  if (flags != cudaEventRecordDefault && flags != cudaEventRecordExternal) return cudaErrorInvalidValue;
  RuntimeState& s = state();
  {
    std::lock_guard lock(s.mu);
    Event* e = s.find_event(event);
    if (!e) return cudaErrorInvalidResourceHandle;
    Stream* st = nullptr;
    if (cudaError_t err = s.resolve_stream(stream, &st); err != cudaSuccess) return err;
    if (st && st->capture) {
      if (st->capture->invalidated) return cudaErrorStreamCaptureInvalidated;
      // A record inside a capture only marks a point other streams can wait on (to join the
      // capture); like CUDA, it becomes a node that stamps the event only when external.
      e->captured_in = st->capture;
      if (flags == cudaEventRecordExternal)
        st->capture->graph->nodes.push_back(std::make_shared<GraphNode>(
            GraphNode{cudaGraphNodeTypeEventRecord, [event] { return stamp(event); }}));
      return cudaSuccess;
    }
    e->captured_in.reset();
    ++e->pending;  // until the record runs: at once, or behind a deferred host function
  }
  cudaError_t err = s.enqueue_async(stream, cudaGraphNodeTypeEventRecord, [event] { return state().stamp_event(event, true); });
  if (err != cudaSuccess) {
    std::lock_guard lock(s.mu);
    if (Event* e = s.find_event(event); e && e->pending > 0) --e->pending;
  }
  return err;
}

// An event completes once its last record has run and the kernels before it have had their time
// (RGPU_EMULATED_KERNEL_MS).
cudaError_t cudaEventQuery(cudaEvent_t event) {
  cudaError_t err = cudaSuccess;
  const bool done = state().event_done(event, &err);
  return err != cudaSuccess ? err : done ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) { return state().wait_event(event); }

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (!ms) return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  Event* a = state().find_event(start);
  Event* b = state().find_event(end);
  if (!a || !b || !a->recorded || !b->recorded) return cudaErrorInvalidResourceHandle;
  if ((a->flags | b->flags) & cudaEventDisableTiming) return cudaErrorInvalidResourceHandle;
  *ms = std::chrono::duration<float, std::milli>(b->when - a->when).count();
  return cudaSuccess;
}

}  // namespace rgpu::server::emulated
