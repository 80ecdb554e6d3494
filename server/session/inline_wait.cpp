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

// About a launch plus a short kernel: longer waits are worth the hand-over.
constexpr auto kInlineBudget = std::chrono::microseconds(50);
// How often a stream with a mark is asked too: a late write of an older mark can hide this one
// (stream_marks.h), and a stream whose work failed never writes it.
constexpr auto kAskEvery = std::chrono::microseconds(10);

}  // namespace

InlineWait wait_inline(Backend& backend, const HandleTable& handles, const wire::FrameHeader& h,
                       std::span<const uint8_t> payload, const std::function<bool()>& input_pending) {
  namespace ids = gen::cudart;
  const gen::cudart::Api& rt = backend.cudart();
  wire::Decoder in(payload);
  uint64_t id = in.get<uint64_t>();
  if (!in.ok() || !in.at_end()) return InlineWait::kHandOver;
  std::function<cudaError_t()> query;
  uint32_t mark = 0;
  const bool per_thread = h.method == ids::k_cudaStreamSynchronize_ptsz;
  if ((h.method == ids::k_cudaStreamSynchronize || per_thread) && rt.cudaStreamQuery) {
    cudaStream_t s{};
    if (!handles.resolve(HandleKind::kStream, id, &s)) return InlineWait::kAnswered;  // the call fails at once
    // The per-thread call's stream 0 is the calling thread's default stream; the mark's is the legacy one.
    if (per_thread && s == nullptr) s = cudaStreamPerThread;
    query = [&rt, s] { return rt.cudaStreamQuery(s); };
    mark = backend.mark_stream(s);
  } else if (h.method == ids::k_cudaEventSynchronize && rt.cudaEventQuery) {
    cudaEvent_t e{};
    if (!handles.resolve(HandleKind::kEvent, id, &e)) return InlineWait::kAnswered;
    query = [&rt, e] { return rt.cudaEventQuery(e); };
  } else {
    return InlineWait::kHandOver;
  }
  InlineWait result = InlineWait::kHandOver;
  auto asked = std::chrono::steady_clock::time_point{};  // the first look asks
  poll_for(kInlineBudget, [&] {
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
    return input_pending();
  });
  return result;
}

}  // namespace rgpu::server
