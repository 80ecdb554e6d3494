// Inline waits (see inline_wait.h).
#include "server/session/inline_wait.h"

#include <chrono>

#include "common/spin.h"
#include "common/wire/codec.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_ids.h"
#include "server/backends/backend.h"

namespace rgpu::server {
namespace {

// Without a mark (an event), about a launch plus a short kernel: the driver is asked at every
// look, and longer waits are worth the hand-over.
constexpr auto kInlineBudget = std::chrono::microseconds(50);
// With a mark the session thread reads memory and stops as soon as another call comes, so it
// watches as long as the client polls for the reply (RGPU_REPLY_POLL_US, 1 ms): a hand-over and the
// wait thread's reply cost 15-20 us, which held same-host 16 MiB copies (300 us) at 0.93-0.94 x
// native on an H100 (0.98-0.99 x watched here). On a socket each look for other input is a poll(2)
// of it, as a wait thread's driver call spins a core too.
constexpr auto kMarkedBudget = std::chrono::microseconds(1000);
// How often a stream with a mark is asked too: a late write of an older mark can hide this one
// (stream_marks.h), and a stream whose work failed never writes it.
constexpr auto kAskEvery = std::chrono::microseconds(10);

// Watches work already queued: through `mark` (0: none), asking `query` (the driver) at the first
// look and then every kAskEvery, or at every look without a mark, until one of them says it is
// over, `stop()` says to stop, or `budget` is spent (kHandOver).
template <typename Query, typename Stop>
InlineWait watch(const Backend& backend, uint32_t mark, std::chrono::microseconds budget, const Query& query,
                 const Stop& stop) {
  InlineWait result = InlineWait::kHandOver;
  auto asked = std::chrono::steady_clock::time_point{};  // the first look asks
  poll_for(budget, [&] {
    if (mark && backend.mark_passed(mark)) {
      result = InlineWait::kDone;
      return true;
    }
    if (const auto now = std::chrono::steady_clock::now(); !mark || now - asked >= kAskEvery) {
      asked = now;
      if (const cudaError_t e = query(); e != cudaErrorNotReady) {
        result = e == cudaSuccess ? InlineWait::kDone : InlineWait::kAnswered;
        return true;
      }
    }
    return stop();
  });
  return result;
}

}  // namespace

bool waited_stream(const HandleTable& handles, uint64_t id, bool per_thread, cudaStream_t* out) {
  if (!handles.resolve(HandleKind::kStream, id, out)) return false;
  // A mark put on stream 0 would go to the legacy stream.
  if (per_thread && *out == nullptr) *out = cudaStreamPerThread;
  return true;
}

InlineWait wait_inline(Backend& backend, const HandleTable& handles, const wire::FrameHeader& h,
                       std::span<const uint8_t> payload, const std::function<bool()>& input_pending) {
  namespace ids = gen::cudart;
  const gen::cudart::Api& rt = backend.cudart();
  wire::Decoder in(payload);
  uint64_t id = in.get<uint64_t>();
  if (!in.ok() || !in.at_end()) return InlineWait::kHandOver;
  const bool per_thread = h.method == ids::k_cudaStreamSynchronize_ptsz;
  if ((h.method == ids::k_cudaStreamSynchronize || per_thread) && rt.cudaStreamQuery) {
    cudaStream_t s{};
    if (!waited_stream(handles, id, per_thread, &s)) return InlineWait::kAnswered;  // the call fails at once
    const uint32_t mark = backend.mark_stream(s);
    return watch(backend, mark, mark ? kMarkedBudget : kInlineBudget, [&rt, s] { return rt.cudaStreamQuery(s); },
                 input_pending);
  }
  if (h.method == ids::k_cudaEventSynchronize && rt.cudaEventQuery) {
    cudaEvent_t e{};
    if (!handles.resolve(HandleKind::kEvent, id, &e)) return InlineWait::kAnswered;
    return watch(backend, 0, kInlineBudget, [&rt, e] { return rt.cudaEventQuery(e); }, input_pending);
  }
  return InlineWait::kHandOver;
}

cudaError_t finish_stream(Backend& backend, cudaStream_t stream) {
  const gen::cudart::Api& rt = backend.cudart();
  if (!rt.cudaStreamSynchronize) return cudaErrorNotSupported;
  if (rt.cudaStreamQuery) {
    if (const uint32_t mark = backend.mark_stream(stream)) {
      // Nothing else runs on this thread meanwhile, as in the synchronising call it replaces.
      const auto query = [&rt, stream] { return rt.cudaStreamQuery(stream); };
      if (watch(backend, mark, kMarkedBudget, query, [] { return false; }) == InlineWait::kDone) return cudaSuccess;
    }
  }
  // A failure the driver reported comes back from this call too; work still running is waited for.
  return rt.cudaStreamSynchronize(stream);
}

}  // namespace rgpu::server
