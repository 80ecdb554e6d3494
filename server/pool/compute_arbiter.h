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
//
// What the caller relies on (compute_arbiter.cpp says why):
// - Call poll(now) after every other call and at `wake`; decisions come only from poll. `now`
//   must not go back (an earlier one counts as the latest seen).
// - A holder keeps the GPU at least a quantum, then until its virtual finish time passes the
//   best waiter's: no revocation whose only effect would be to grant it again.
// - A revoked session stays queued after its released() (a want() after it is ignored). One that
//   gives back early while others wait keeps its turn for a grace of quantum/20: a want() within
//   it is answered by a grant to the same session (no handoff), the idle gap charged to it.
// - released() when the session holds no running or revoked turn (late, duplicate, removed) is
//   ignored; `held` is bounded by the time since the grant. A drain has no timeout here: a worker
//   that never reports keeps the GPU until the caller removes it.
// - Caps: cap >= 100 is none, 0 pauses the session. The bucket holds two quanta; a session is
//   granted once it holds min(quantum, cap% of ten quanta), at most quantum/4 when alone.
//   Under contention the cap wins over the share; the others get the rest.
// - Share 0 (best effort) weighs 0.01.
// - Priorities: a waiting session of a higher priority than the holder's revokes it at once (no
//   quantum first), and sessions of a lower priority than the highest one waiting are not granted:
//   they get only the time the higher ones leave. Within a priority, shares as above. Starvation
//   guard: a session below the top priority that has waited quantum x (1 / min_share - 1) gets one
//   quantum ahead of the others (a guard turn, not preempted), so each gets at least about
//   min_share of the GPU's time while higher priorities saturate it.
// - Hints to the holder (Decision::hints, sent whenever they change within a turn, and right
//   after each grant): `hurry` while another session waits, so the holder gives its turn back as
//   soon as its client pauses rather than after the idle release (a high-priority tenant between
//   requests leaves the GPU to the ones below it at once); `peer` while one of those waiting is of
//   the holder's own priority or above, so its pause must be longer before it gives the turn back
//   (among equals a turn given back goes round the others before it returns, where a turn left to
//   lower priorities is taken back at once; the worker chooses both pauses); `bounded` while a
//   session of a higher priority on this GPU has been active within the window, so the holder
//   keeps at most one call's work on the GPU at a time and a preempting session waits for that
//   much, not for a backlog.
// - Overlapping preemption (Params::overlap_preemption, for a GPU whose sessions share it through
//   MPS, where kernels of different processes run side by side): a higher priority takes the GPU
//   without waiting for the preempted holder's drain. The holder's turn ends at the revocation,
//   charged up to then (its last work shares the GPU with the preemptor's); it stays queued and is
//   not granted again until its released() arrives, which then charges nothing more.
// - Sovereignty (overlapping preemption only): the one session of a GPU's highest priority, when
//   no other shares that priority and it has no cap, is sovereign (Decision::sovereign, sent when
//   it changes). Its worker takes its turn at its first call and sends want() without waiting for
//   the grant, which this arbiter gives at once (it preempts whatever holds); so a latency-bound
//   top-priority session pays no round trip through rgpud per request. A grant that finds it
//   holding already changes nothing; its released() and hints are as anyone's.
#pragma once

#include <array>
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
    // The starvation guard's floor for sessions below the top priority (0: none).
    double min_share = 0.05;
    // A higher priority is granted at its preemption, beside the preempted holder's drain (MPS).
    bool overlap_preemption = false;
  };
  // What the caller must tell workers; `wake` is when to call poll() again at the latest.
  struct Hint {
    uint64_t session = 0;
    bool hurry = false;
    bool bounded = false;
    bool peer = false;
    bool operator==(const Hint&) const = default;
  };
  struct Decision {
    std::vector<uint64_t> grant;
    std::vector<uint64_t> revoke;
    std::vector<Hint> hints;
    std::vector<std::pair<uint64_t, bool>> sovereign;  // who became sovereign (true) or ceased to be
    std::optional<TimePoint> wake;
  };

  // Two constructors, not `Params params = {}`: GCC 12 rejects a default argument of a nested
  // struct with member initializers before the enclosing class is complete.
  ComputeArbiter();
  explicit ComputeArbiter(Params params);

  // share and cap are percent of the GPU (share 0: best effort, served with a minimal weight).
  void add(uint64_t session, uint32_t share, uint32_t cap, TimePoint now);
  // The session's priority (higher first; 0 is normal). Takes effect at the next decision.
  void set_priority(uint64_t session, int priority, TimePoint now);
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
  // Since when the session has neither held nor waited for the GPU; nullopt while it does.
  std::optional<TimePoint> idle_since(uint64_t session) const;
  // Fraction (0..1) of the GPU's time the session used over the last `window`, the current turn
  // counted up to `now`.
  double share(uint64_t session, TimePoint now) const;
  // Fraction of the GPU's time used by all sliced sessions over the last `window`.
  double busy(TimePoint now) const;

 private:
  // GPU time per time bin over the last window (share(), busy()): fixed memory, O(bins) reads.
  struct Usage {
    static constexpr int kBins = 20;  // the window in 20 bins; one more slot for the partial oldest
    std::array<int64_t, kBins + 1> ns{};
    std::array<int64_t, kBins + 1> bin{};  // which bin (time / bin length) each slot holds
  };
  enum class State : uint8_t { kIdle, kWaiting, kHolding };
  // The holder's turn: running (granted), draining (revoked, release not yet reported) or
  // reserved (gave its turn back early; kept for it a short grace while others wait).
  enum class Turn : uint8_t { kRunning, kDraining, kReserved };
  struct Entry {
    uint32_t share = 0;
    uint32_t cap = 100;
    State state = State::kIdle;
    double vt = 0;           // virtual time: charged ns divided by the weight
    uint64_t seq = 0;        // queue order, breaks ties between equal virtual finish times
    bool throttled = false;  // waiting on its bucket: joins at the virtual time once it refills
    bool draining = false;   // preempted with overlap: waits for its released() before any grant
    double tokens = 0;       // cap bucket (ns of GPU time) as of refilled_at, negative after overshoot
    TimePoint refilled_at{};
    TimePoint added_at{};
    int priority = 0;
    TimePoint waiting_since{};  // when it last began to wait
    TimePoint idle_since{};     // when it last became idle
    Usage usage;
  };

  Entry* find(uint64_t session);
  const Entry* find(uint64_t session) const;
  double weight(const Entry& e) const;
  bool consuming(const Entry& e) const;  // holds a running or draining turn
  double tokens_at(const Entry& e, TimePoint now) const;
  Duration bucket_size() const;
  Duration threshold(const Entry& e) const;
  bool eligible(const Entry& e, TimePoint now) const;
  std::optional<TimePoint> ready_at(const Entry& e, TimePoint now) const;
  double holder_vt(TimePoint now) const;  // the holder's virtual time, its live turn included
  double key(const Entry& e) const;       // virtual finish time of a quantum-long turn
  double virtual_time(TimePoint now);     // start for a session (re)joining: no banked credit
  std::optional<uint64_t> best_waiter(TimePoint now) const;
  // when the holder should yield to best
  std::optional<TimePoint> switch_time(uint64_t best, TimePoint now) const;
  int top_priority() const;                     // the highest among holder and waiters
  std::optional<Duration> guard_wait() const;   // how long a held-back session waits for a guard turn
  // Due a guard turn (`top`: top_priority()); rank: its priority, or above all when starved.
  bool starved(const Entry& e, TimePoint now, int top) const;
  int rank(const Entry& e, TimePoint now, int top) const;
  std::optional<TimePoint> exhaust_time(TimePoint now) const;
  Hint holder_hint(TimePoint now) const;  // what the running holder should be told now
  void settle_bucket(Entry& e, TimePoint now, Duration used);
  void charge(Entry& e, Duration d);
  void account(Entry& h, Duration held, TimePoint now);
  void end_turn(State next, TimePoint now);
  void preempt_overlapping(TimePoint now);
  std::optional<uint64_t> find_sovereign() const;
  void grant(uint64_t session, TimePoint now, Decision& d);
  void add_usage(Usage& u, TimePoint from, TimePoint to) const;
  double usage_sum(const Usage& u, TimePoint now) const;
  TimePoint monotonic(TimePoint now);
  void set_state(Entry& e, State s);

  Params params_;
  Duration bin_;
  Duration grace_;
  std::unordered_map<uint64_t, Entry> sessions_;
  std::optional<uint64_t> holder_;
  Turn turn_ = Turn::kRunning;
  TimePoint turn_start_{};   // the turn's first grant
  TimePoint piece_start_{};  // the current grant, or the give-back while reserved
  Duration piece_charged_{}; // part of the current piece already charged (update() folds it in)
  TimePoint bucket_from_{};  // the bucket counts this piece's use from here (a cap set mid-turn)
  bool rewant_ = false;      // the reserved holder asked again
  bool guard_turn_ = false;  // the holder's turn is a starvation guard's: it runs its quantum
  std::optional<Hint> hinted_;  // the last hint sent in this turn (none yet after a grant)
  std::optional<uint64_t> sovereign_;  // as last told
  double v_last_ = 0;
  uint64_t next_seq_ = 0;
  int active_ = 0;  // sessions waiting or holding
  Usage total_;
  std::optional<TimePoint> first_now_;
  TimePoint last_now_{};
};

}  // namespace rgpu::pool
