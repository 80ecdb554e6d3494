// Inline waits (see inline_wait.h).
#include "server/session/inline_wait.h"

#include <chrono>

#include "common/spin.h"
#include "common/wire/codec.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_ids.h"

namespace rgpu::server {
namespace {

// About a launch plus a short kernel: longer waits are worth the hand-over.
constexpr auto kInlineBudget = std::chrono::microseconds(50);

}  // namespace

bool wait_ends_now(const gen::cudart::Api& rt, const HandleTable& handles, const wire::FrameHeader& h,
                   std::span<const uint8_t> payload, const std::function<bool()>& input_pending) {
  namespace ids = gen::cudart;
  wire::Decoder in(payload);
  uint64_t id = in.get<uint64_t>();
  if (!in.ok() || !in.at_end()) return false;
  std::function<cudaError_t()> query;
  if ((h.method == ids::k_cudaStreamSynchronize || h.method == ids::k_cudaStreamSynchronize_ptsz) &&
      rt.cudaStreamQuery) {
    cudaStream_t s{};
    if (!handles.resolve(HandleKind::kStream, id, &s)) return true;  // the call fails at once
    query = [&rt, s] { return rt.cudaStreamQuery(s); };
  } else if (h.method == ids::k_cudaEventSynchronize && rt.cudaEventQuery) {
    cudaEvent_t e{};
    if (!handles.resolve(HandleKind::kEvent, id, &e)) return true;
    query = [&rt, e] { return rt.cudaEventQuery(e); };
  } else {
    return false;
  }
  bool ended = false;
  poll_for(kInlineBudget, [&] {
    ended = query() != cudaErrorNotReady;
    return ended || input_pending();
  });
  return ended;
}

}  // namespace rgpu::server
