// kCallStreamSignal (common/wire/internal_calls.h): a same-host client's stream or event
// synchronisation, answered by a word in memory it shares with the session. The device writes the
// client's value there once the work is done, and the client, watching the word, returns: no reply,
// no pass through the session's or the client's receiving threads (on an H100 those cost a launch +
// sync about 2.3 us over native, 1.4 us of it from the reply to the caller's return).
//
// Where the word alone cannot say what the wait must learn, it says "ask" (value | kSignalAsk, at
// once, from here) and the client makes the synchronising call after all (Session::signal_answer);
// where no wait of the session can be answered so, "ask, and never signal again" (| kSignalNever),
// so that the client's waits do not each pay a signal for nothing. A stream whose work fails never
// writes the word: the client asks once its watch ends.
#include <cuda_runtime_api.h>

#include "common/wire/internal_calls.h"
#include "gen/cudart/cudart_api.h"
#include "server/backends/backend.h"
#include "server/session/inline_wait.h"
#include "server/session/internal_handlers.h"
#include "server/session/session.h"

namespace rgpu::server::handlers {
namespace {

// The stream whose work so far the word is to follow: the client's stream, or, for an event, the
// session's own signal stream on `device` (the current one) made to wait for the event. False for an unknown stream or event, or
// where the backend cannot.
bool signalled_stream(CallContext& ctx, uint64_t id, wire::SignalWaited waited, int device, cudaStream_t* out) {
  if (waited != wire::kSignalEvent) return waited_stream(ctx.handles, id, waited == wire::kSignalPerThreadStream, out);
  cudaEvent_t event{};
  if (!id || !ctx.handles.resolve(HandleKind::kEvent, id, &event) || !ctx.cudart.cudaStreamWaitEvent) return false;
  cudaStream_t stream = ctx.session.event_signal_stream(device);
  if (!stream || ctx.cudart.cudaStreamWaitEvent(stream, event, cudaEventWaitDefault) != cudaSuccess) return false;
  *out = stream;
  return true;
}

}  // namespace

bool stream_signal(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  const auto id = in.get<uint64_t>();
  const auto waited = static_cast<wire::SignalWaited>(in.get<uint8_t>());
  const auto shared = in.get<uint64_t>();
  const auto offset = in.get<uint64_t>();
  const auto value = in.get<uint32_t>();
  if (!in.ok() || !in.at_end() || value == 0 || value >= wire::kSignalNever ||
      waited > wire::kSignalEvent)
    return false;
  int device = 0;
  if (ctx.cudart.cudaGetDevice) (void)ctx.cudart.cudaGetDevice(&device);
  uint64_t gpu = 0;
  auto* word = offset % sizeof(uint32_t) == 0
                   ? static_cast<uint32_t*>(ctx.session.shared_host().find(shared, offset, sizeof(uint32_t), device, &gpu))
                   : nullptr;
  if (!word) {
    status = cudaErrorInvalidValue;  // told as an asynchronous error; the client's watch ends unanswered
    return true;
  }
  status = cudaSuccess;
  cudaStream_t stream{};
  const Session::SignalAnswer answer = ctx.session.signal_answer();
  const bool resolved = answer == Session::SignalAnswer::kWrite && signalled_stream(ctx, id, waited, device, &stream);
  if (resolved && ctx.session.backend().write_after(stream, word, gpu, value))
    return true;
  const uint32_t never = answer == Session::SignalAnswer::kNever ? wire::kSignalNever : 0;
  __atomic_store_n(word, value | wire::kSignalAsk | never, __ATOMIC_RELEASE);
  return true;
}

}  // namespace rgpu::server::handlers
