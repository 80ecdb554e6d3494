// One GPU's compute arbiter: decides which sliced session's work may reach the GPU, so that under
// contention each session gets its guaranteed share of the GPU's time and, alone or not, never more
// than its cap. Pure policy on an injected clock: it never sleeps or reads a clock, the caller
// (server/daemon/pool_service) owns the timer and the messages to the workers.
//
// The model: turns. At most one session holds the GPU at a time. The holder's worker submits its
// client's work freely; when its turn is revoked it stops submitting, waits until everything it
// submitted has completed on the GPU, and reports how long it held the GPU, measured from the
// grant to that completion (`released`). Because no other session's work was on the GPU during
// that time, the figure is exactly the GPU time the session used, overshoot included, and charging
// it makes the long-run shares exact whatever the kernels' lengths. A holder may also give its turn
// back early (its client went idle): the same `released`.
//
// Shares: weighted fair queueing on virtual time (each session's charged time divided by its
// share); a session that comes back after being idle starts at the current virtual time, so idling
// earns no credit. The holder's turn is revoked after `quantum` when another eligible session
// waits. Caps: a token bucket of GPU time per session, refilled at cap% of wall time; a session
// whose bucket is empty is not granted, and a holder is revoked when its bucket runs out.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace rgpu::pool {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;
using Duration = std::chrono::nanoseconds;

class ComputeArbiter {
 public:
  struct Params {
    Duration quantum = std::chrono::milliseconds(10);
    // How far back the achieved share (share()) looks.
    Duration window = std::chrono::seconds(1);
  };
  // What the caller must tell workers; `wake` is when to call poll() again at the latest.
  struct Decision {
    std::vector<uint64_t> grant;
    std::vector<uint64_t> revoke;
    std::optional<TimePoint> wake;
  };

  explicit ComputeArbiter(Params params = {});

  // share and cap are percent of the GPU (share 0: best effort, served with a minimal weight).
  void add(uint64_t session, uint32_t share, uint32_t cap, TimePoint now);
  // A live change of share or cap: takes effect at the next decision.
  void update(uint64_t session, uint32_t share, uint32_t cap, TimePoint now);
  // The session ended (however): if it held the GPU, the GPU is free.
  void remove(uint64_t session, TimePoint now);
  // The session has work and no turn. Ignored while it holds or already waits.
  void want(uint64_t session, TimePoint now);
  // The session's turn ended (revoked or given back): it held the GPU for `held`.
  void released(uint64_t session, Duration held, TimePoint now);
  // Grants and revocations due now.
  Decision poll(TimePoint now);

  std::optional<uint64_t> holder() const;
  // Fraction (0..1) of the GPU's time the session used over the last `window`, the current turn
  // counted up to `now`.
  double share(uint64_t session, TimePoint now) const;
  // Fraction of the GPU's time used by all sliced sessions over the last `window`.
  double busy(TimePoint now) const;

 private:
  struct Entry;
  Params params_;
  std::unordered_map<uint64_t, Entry*> sessions_;  // placeholder; the implementation chooses
};

}  // namespace rgpu::pool
