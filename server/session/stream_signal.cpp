// kCallStreamSignal (common/wire/internal_calls.h): a same-host client's stream synchronisation,
// answered by a word in memory it shares with the session. The device writes the client's value
// there once the stream's work is done, and the client, watching the word, returns: no reply, no
// pass through the session's or the client's receiving threads (on an H100 those cost a launch +
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

bool stream_signal(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  const auto stream_id = in.get<uint64_t>();
  const auto per_thread = in.get<uint8_t>();
  const auto shared = in.get<uint64_t>();
  const auto offset = in.get<uint64_t>();
  const auto value = in.get<uint32_t>();
  if (!in.ok() || !in.at_end() || per_thread > 1 || value == 0 || value >= wire::kSignalNever) return false;
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
  const bool resolved = waited_stream(ctx.handles, stream_id, per_thread != 0, &stream);
  const Session::SignalAnswer answer = ctx.session.signal_answer();
  if (resolved && answer == Session::SignalAnswer::kWrite && ctx.session.backend().write_after(stream, word, gpu, value))
    return true;
  const uint32_t never = answer == Session::SignalAnswer::kNever ? wire::kSignalNever : 0;
  __atomic_store_n(word, value | wire::kSignalAsk | never, __ATOMIC_RELEASE);
  return true;
}

}  // namespace rgpu::server::handlers
