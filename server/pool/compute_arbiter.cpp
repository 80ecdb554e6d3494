// One GPU's compute arbiter: exclusive turns, weighted fair queueing on charged time, token-bucket caps.
#include "server/pool/compute_arbiter.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rgpu::pool {

namespace {

// Share 0 (best effort): a weight so small that it runs only when the others leave the GPU, but
// is not starved for ever (a quantum every ~50 s beside one share-50 session).
constexpr double kBestEffortWeight = 0.01;

double ns(Duration d) { return static_cast<double>(d.count()); }
int64_t ticks(TimePoint t) { return std::chrono::duration_cast<Duration>(t.time_since_epoch()).count(); }
int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
// Rounded up, so that at the time returned the condition it was solved for holds.
Duration ceil_ns(double x) { return Duration(static_cast<int64_t>(std::ceil(std::max(0.0, x)))); }

}  // namespace

ComputeArbiter::ComputeArbiter() : ComputeArbiter(Params{}) {}

ComputeArbiter::ComputeArbiter(Params params)
    : params_(params),
      bin_(std::max<Duration>(Duration(1), params.window / Usage::kBins)),
      // Long enough to cover a client's sync-and-launch gap (tens of us through rgpud, more from a
      // remote host), short next to a quantum: a holder that really went idle costs a waiter little.
      grace_(params.quantum / 20) {}

ComputeArbiter::Entry* ComputeArbiter::find(uint64_t session) {
  auto it = sessions_.find(session);
  return it == sessions_.end() ? nullptr : &it->second;
}
const ComputeArbiter::Entry* ComputeArbiter::find(uint64_t session) const {
  auto it = sessions_.find(session);
  return it == sessions_.end() ? nullptr : &it->second;
}

double ComputeArbiter::weight(const Entry& e) const {
  return e.share == 0 ? kBestEffortWeight : static_cast<double>(e.share);
}

bool ComputeArbiter::consuming(const Entry& e) const {
  return e.state == State::kHolding && turn_ != Turn::kReserved;
}

// The bucket holds two quanta: room above the minimum turn (at most a quantum), so that a capped
// session waiting its turn behind others does not lose its refill; after idling it bursts at
// most two quanta above its cap.
Duration ComputeArbiter::bucket_size() const { return 2 * params_.quantum; }

double ComputeArbiter::tokens_at(const Entry& e, TimePoint now) const {
  double refill = ns(now - e.refilled_at) * e.cap / 100.0;
  if (consuming(e)) return e.tokens + refill - ns(now - bucket_from_);  // not clamped mid-turn
  return std::min(ns(bucket_size()), e.tokens + refill);
}

// The least a capped session must hold before it is granted, so that a turn is not a sliver:
// cap% of ten quanta (a 1% cap runs 1 ms every 100 ms), at most a quantum. Alone on the GPU,
// a finer grain costs nobody a handoff and keeps its share steady over short windows.
Duration ComputeArbiter::threshold(const Entry& e) const {
  Duration q = params_.quantum;
  Duration t = std::min(q, std::max(q / 10, q * 10 * e.cap / 100));
  bool alone = active_ - (e.state != State::kIdle) == 0;
  return alone ? std::min(t, q / 4) : t;
}

bool ComputeArbiter::eligible(const Entry& e, TimePoint now) const {
  if (e.draining) return false;
  if (e.cap >= 100) return true;
  if (e.cap == 0) return false;  // cap 0 is literal: the session is paused
  return tokens_at(e, now) >= ns(threshold(e)) - 0.5;
}

std::optional<TimePoint> ComputeArbiter::ready_at(const Entry& e, TimePoint now) const {
  if (e.draining) return std::nullopt;  // its released() comes as a message
  if (e.cap >= 100) return now;
  if (e.cap == 0) return std::nullopt;
  double missing = ns(threshold(e)) - tokens_at(e, now);
  return now + ceil_ns(missing * 100.0 / e.cap) + Duration(1);
}

double ComputeArbiter::holder_vt(TimePoint now) const {
  const Entry& h = sessions_.at(*holder_);
  return h.vt + ns(now - piece_start_ - piece_charged_) / weight(h);
}

double ComputeArbiter::key(const Entry& e) const { return e.vt + ns(params_.quantum) / weight(e); }

// The smallest virtual time among the sessions competing now (the holder's live turn included):
// a session joining starts there, so idle time (or time spent held back by its cap) banks nothing.
double ComputeArbiter::virtual_time(TimePoint now) {
  double v = std::numeric_limits<double>::infinity();
  if (holder_) v = holder_vt(now);
  for (const auto& [id, e] : sessions_)
    if (e.state == State::kWaiting && !e.throttled && eligible(e, now)) v = std::min(v, e.vt);
  if (std::isfinite(v)) v_last_ = v;
  return v_last_;
}

int ComputeArbiter::top_priority() const {
  int top = std::numeric_limits<int>::min();
  for (const auto& [id, e] : sessions_)
    if (e.state != State::kIdle) top = std::max(top, e.priority);
  return top;
}

std::optional<Duration> ComputeArbiter::guard_wait() const {
  if (params_.min_share <= 0 || params_.min_share >= 1) return std::nullopt;
  return ceil_ns(ns(params_.quantum) * (1.0 / params_.min_share - 1.0));
}

bool ComputeArbiter::starved(const Entry& e, TimePoint now, int top) const {
  const std::optional<Duration> wait = guard_wait();
  // Its own class (the top one) is served by the shares.
  return wait && e.state == State::kWaiting && e.priority < top && now - e.waiting_since >= *wait;
}

int ComputeArbiter::rank(const Entry& e, TimePoint now, int top) const {
  return starved(e, now, top) ? std::numeric_limits<int>::max() : e.priority;
}

std::optional<uint64_t> ComputeArbiter::best_waiter(TimePoint now) const {
  const int top = top_priority();
  std::optional<uint64_t> best;
  int best_rank = 0;
  double best_key = 0;
  uint64_t best_seq = 0;
  for (const auto& [id, e] : sessions_) {
    if (e.state != State::kWaiting || !eligible(e, now)) continue;
    const int r = rank(e, now, top);
    double k = key(e);
    if (!best || r > best_rank || (r == best_rank && (k < best_key || (k == best_key && e.seq < best_seq)))) {
      best = id;
      best_rank = r;
      best_key = k;
      best_seq = e.seq;
    }
  }
  return best;
}

// The holder keeps the GPU for at least a quantum, then until its virtual finish time (were it
// requeued) passes the best waiter's: no revocation whose only effect would be to re-grant it.
// Across priorities: a higher one takes the GPU at once, a lower one waits for the holder to
// leave, and a starved one (or a guard turn's holder) gets a quantum.
std::optional<TimePoint> ComputeArbiter::switch_time(uint64_t best, TimePoint now) const {
  const Entry& h = sessions_.at(*holder_);
  const Entry& b = sessions_.at(best);
  const TimePoint quantum_end = turn_start_ + params_.quantum;
  if (guard_turn_) return quantum_end;
  const int br = rank(b, now, top_priority());
  if (br == std::numeric_limits<int>::max()) return std::max(quantum_end, now);
  if (br > h.priority) return now;
  if (br < h.priority) return std::nullopt;
  double w = weight(h);
  double lead = key(b) - h.vt - ns(params_.quantum) / w;  // virtual time left to it
  TimePoint t = piece_start_ + piece_charged_;
  if (lead > 0) {
    double wall = lead * w;
    if (wall > 1e17) return std::nullopt;  // beyond any horizon (a best-effort waiter)
    t += ceil_ns(wall);
  }
  return std::max(quantum_end, t);
}

std::optional<TimePoint> ComputeArbiter::exhaust_time(TimePoint now) const {
  const Entry& h = sessions_.at(*holder_);
  if (h.cap >= 100) return std::nullopt;
  double left = tokens_at(h, now);
  if (left <= 0) return now;
  // The bucket refills at cap% while the turn drains it at 100%.
  return now + ceil_ns(left / (1.0 - h.cap / 100.0));
}

void ComputeArbiter::settle_bucket(Entry& e, TimePoint now, Duration used) {
  e.tokens = std::min(ns(bucket_size()), e.tokens + ns(now - e.refilled_at) * e.cap / 100.0 - ns(used));
  e.refilled_at = now;
}

void ComputeArbiter::charge(Entry& e, Duration d) {
  if (d > Duration::zero()) e.vt += ns(d) / weight(e);
}

void ComputeArbiter::end_turn(State next, TimePoint now) {
  Entry& h = sessions_.at(*holder_);
  if (turn_ == Turn::kReserved) charge(h, now - piece_start_);  // the GPU was kept for it
  set_state(h, next);
  if (next == State::kWaiting) {
    h.seq = next_seq_++;
    h.throttled = !eligible(h, now);
  }
  holder_.reset();
  rewant_ = false;
  guard_turn_ = false;
  hinted_.reset();
}

// The holder's current piece used the GPU for `held`, ending now: its charge, its usage and the
// GPU's, its bucket.
void ComputeArbiter::account(Entry& h, Duration held, TimePoint now) {
  charge(h, held - piece_charged_);
  add_usage(h.usage, now - held, now);
  add_usage(total_, now - held, now);
  if (h.cap < 100) settle_bucket(h, now, std::max(Duration::zero(), held - (bucket_from_ - piece_start_)));
}

// The holder, revoked for a higher priority on a shared (MPS) GPU: its turn ends now, charged as
// if it had released now; its drain goes on beside the preemptor's work.
void ComputeArbiter::preempt_overlapping(TimePoint now) {
  Entry& h = sessions_.at(*holder_);
  account(h, now - piece_start_, now);
  end_turn(State::kWaiting, now);
  h.draining = true;
  h.throttled = false;  // eligible again (bucket permitting) once its drain is reported
}

std::optional<uint64_t> ComputeArbiter::find_sovereign() const {
  if (!params_.overlap_preemption) return std::nullopt;
  std::optional<uint64_t> top;
  bool shared = false;
  for (const auto& [id, e] : sessions_) {
    if (top && e.priority == sessions_.at(*top).priority) shared = true;
    if (!top || e.priority > sessions_.at(*top).priority) {
      top = id;
      shared = false;
    }
  }
  if (!top || shared || sessions_.at(*top).cap < 100) return std::nullopt;
  return top;
}

void ComputeArbiter::grant(uint64_t session, TimePoint now, Decision& d) {
  Entry& e = sessions_.at(session);
  if (e.cap < 100) settle_bucket(e, now, Duration::zero());
  guard_turn_ = starved(e, now, top_priority());
  set_state(e, State::kHolding);
  holder_ = session;
  turn_ = Turn::kRunning;
  turn_start_ = piece_start_ = bucket_from_ = now;
  piece_charged_ = Duration::zero();
  rewant_ = false;
  hinted_.reset();
  d.grant.push_back(session);
}

std::optional<TimePoint> ComputeArbiter::idle_since(uint64_t session) const {
  const Entry* e = find(session);
  if (!e || e->state != State::kIdle) return std::nullopt;
  return e->idle_since;
}

ComputeArbiter::Hint ComputeArbiter::holder_hint(TimePoint now) const {
  Hint h{.session = *holder_};
  const Entry& me = sessions_.at(*holder_);
  for (const auto& [id, e] : sessions_) {
    if (id == *holder_) continue;
    if (e.state == State::kWaiting) {
      h.hurry = true;
      h.peer = h.peer || e.priority >= me.priority;
    }
    if (e.priority > me.priority && (e.state != State::kIdle || usage_sum(e.usage, now) > 0)) h.bounded = true;
  }
  return h;
}

// Time never goes back here, whatever a caller's clock did: a stale `now` counts as the latest.
TimePoint ComputeArbiter::monotonic(TimePoint now) {
  if (!first_now_) first_now_ = last_now_ = now;
  last_now_ = std::max(last_now_, now);
  return last_now_;
}

void ComputeArbiter::set_state(Entry& e, State s) {
  active_ += (s != State::kIdle) - (e.state != State::kIdle);
  if (s == State::kWaiting && e.state != State::kWaiting) e.waiting_since = last_now_;
  if (s == State::kIdle && e.state != State::kIdle) e.idle_since = last_now_;
  e.state = s;
}

void ComputeArbiter::set_priority(uint64_t session, int priority, TimePoint now) {
  (void)monotonic(now);
  if (Entry* e = find(session)) e->priority = priority;
}

void ComputeArbiter::add(uint64_t session, uint32_t share, uint32_t cap, TimePoint now) {
  now = monotonic(now);
  if (find(session)) return update(session, share, cap, now);
  Entry e;
  e.share = share;
  e.cap = std::min<uint32_t>(cap, 100);
  e.vt = virtual_time(now);
  e.tokens = ns(bucket_size());  // a new session may start at once
  e.refilled_at = e.added_at = e.idle_since = now;
  sessions_.emplace(session, e);
}

void ComputeArbiter::update(uint64_t session, uint32_t share, uint32_t cap, TimePoint now) {
  now = monotonic(now);
  Entry* e = find(session);
  if (!e) return;
  cap = std::min<uint32_t>(cap, 100);
  if (holder_ == session) {
    // What the turn used so far is charged at the old weight; the new one counts from now.
    if (turn_ == Turn::kReserved) {
      charge(*e, now - piece_start_);
      piece_start_ = now;
    } else {
      Duration live = now - piece_start_ - piece_charged_;
      charge(*e, live);
      piece_charged_ += live;
    }
  }
  // The bucket is brought to now at the old rate; the new rate counts from now.
  if (e->cap < 100) {
    if (consuming(*e)) {
      e->tokens = tokens_at(*e, now);
      bucket_from_ = now;
      e->refilled_at = now;
    } else {
      settle_bucket(*e, now, Duration::zero());
    }
  } else if (cap < 100) {
    e->tokens = ns(bucket_size());
    e->refilled_at = now;
    if (consuming(*e)) bucket_from_ = now;
  }
  e->share = share;
  e->cap = cap;
}

void ComputeArbiter::remove(uint64_t session, TimePoint now) {
  now = monotonic(now);
  Entry* e = find(session);
  if (!e) return;
  if (holder_ == session) {
    if (consuming(*e)) add_usage(total_, piece_start_, now);  // it used the GPU until it ended
    holder_.reset();
    rewant_ = false;
    guard_turn_ = false;
  }
  set_state(*e, State::kIdle);
  sessions_.erase(session);
}

void ComputeArbiter::want(uint64_t session, TimePoint now) {
  now = monotonic(now);
  Entry* e = find(session);
  if (!e || e->state == State::kWaiting) return;
  if (e->state == State::kHolding) {
    if (turn_ == Turn::kReserved) rewant_ = true;  // the next poll re-grants its kept turn
    return;
  }
  e->vt = std::max(e->vt, virtual_time(now));
  set_state(*e, State::kWaiting);
  e->seq = next_seq_++;
  e->throttled = !eligible(*e, now);
}

void ComputeArbiter::released(uint64_t session, Duration held, TimePoint now) {
  now = monotonic(now);
  if (Entry* e = find(session); e && e->draining && holder_ != session) {
    e->draining = false;  // preempted with overlap: its turn was accounted at the revocation
    return;
  }
  // A release that is not for a running or draining turn (late, duplicated, from a removed
  // session) is ignored: its turn was already ended and accounted here.
  if (holder_ != session || turn_ == Turn::kReserved) return;
  Entry& h = sessions_.at(session);
  // It cannot have used the GPU longer than since its grant (a bogus figure is bounded).
  account(h, std::clamp(held, Duration::zero(), now - piece_start_), now);
  if (turn_ == Turn::kDraining) {
    // Revoked while it had work: it stays in the queue (a want() that follows is ignored).
    end_turn(State::kWaiting, now);
    return;
  }
  // Given back early. If others of its priority wait and its turn has time left, keep the GPU for
  // it a grace while: a client that syncs after every launch then keeps its turn instead of losing
  // it (and its credit) at every sync. The kept time is charged to it (poll / end_turn). A lower
  // priority waiting gets the GPU at once: should the holder come back, it takes the GPU back.
  std::optional<uint64_t> best = best_waiter(now);
  if (best && rank(sessions_.at(*best), now, top_priority()) >= h.priority) {
    piece_start_ = now;
    piece_charged_ = Duration::zero();
    std::optional<TimePoint> until = switch_time(*best, now);
    if (!until || now < *until) {
      turn_ = Turn::kReserved;
      rewant_ = false;
      return;
    }
  }
  turn_ = Turn::kRunning;  // nothing kept: end_turn charges nothing more
  end_turn(State::kIdle, now);
}

ComputeArbiter::Decision ComputeArbiter::poll(TimePoint now) {
  now = monotonic(now);
  Decision d;
  // Sessions whose bucket has refilled join at the current virtual time (no banked credit).
  for (auto& [id, e] : sessions_) {
    if (e.state != State::kWaiting || e.draining) continue;
    if (!eligible(e, now)) {
      e.throttled = true;
      continue;
    }
    if (!e.throttled) continue;
    e.throttled = false;
    double v = std::numeric_limits<double>::infinity();
    if (holder_) v = holder_vt(now);
    for (const auto& [oid, o] : sessions_)
      if (oid != id && o.state == State::kWaiting && !o.throttled && eligible(o, now)) v = std::min(v, o.vt);
    if (std::isfinite(v)) e.vt = std::max(e.vt, v);
  }

  if (const std::optional<uint64_t> s = find_sovereign(); s != sovereign_) {
    if (sovereign_ && find(*sovereign_)) d.sovereign.emplace_back(*sovereign_, false);
    if (s) d.sovereign.emplace_back(*s, true);
    sovereign_ = s;
  }

  std::optional<uint64_t> best = best_waiter(now);
  if (holder_ && turn_ == Turn::kRunning) {
    std::optional<TimePoint> ex = exhaust_time(now);
    std::optional<TimePoint> sw = best ? switch_time(*best, now) : std::nullopt;
    if ((ex && now >= *ex) || (sw && now >= *sw)) {
      d.revoke.push_back(*holder_);
      const bool preempted = best && sessions_.at(*best).priority > sessions_.at(*holder_).priority;
      if (params_.overlap_preemption && preempted) preempt_overlapping(now);
      else turn_ = Turn::kDraining;
    }
  } else if (holder_ && turn_ == Turn::kReserved) {
    Entry& h = sessions_.at(*holder_);
    std::optional<TimePoint> sw = best ? switch_time(*best, now) : std::nullopt;
    bool over = !best || (sw && now >= *sw);
    if (rewant_) {
      if (over || (h.cap < 100 && tokens_at(h, now) <= 0)) {
        end_turn(State::kWaiting, now);
      } else {
        charge(h, now - piece_start_);
        if (h.cap < 100) settle_bucket(h, now, Duration::zero());
        turn_ = Turn::kRunning;
        piece_start_ = bucket_from_ = now;
        piece_charged_ = Duration::zero();
        rewant_ = false;
        d.grant.push_back(*holder_);
      }
    } else if (over || now >= piece_start_ + grace_) {
      end_turn(State::kIdle, now);
    }
  }
  if (!holder_) {
    best = best_waiter(now);
    if (best) grant(*best, now, d);
  }
  if (holder_ && turn_ == Turn::kRunning) {
    const Hint h = holder_hint(now);
    if (!hinted_ || !(*hinted_ == h)) {
      hinted_ = h;
      d.hints.push_back(h);
    }
  }

  // When something can next change without a message: the holder's quantum or switch time,
  // its bucket running out, the grace ending, a waiting session's bucket refilling.
  auto earliest = [&](std::optional<TimePoint> t) {
    if (t && (!d.wake || *t < *d.wake)) d.wake = std::max(*t, now + Duration(1));
  };
  std::optional<TimePoint> refill;
  for (const auto& [id, e] : sessions_) {
    if (e.state != State::kWaiting || eligible(e, now)) continue;
    std::optional<TimePoint> r = ready_at(e, now);
    if (r && (!refill || *r < *refill)) refill = r;
  }
  // A session held back by higher priorities becomes due its guard turn without a message.
  if (const std::optional<Duration> wait = guard_wait(); holder_ && wait) {
    const int top = top_priority();
    for (const auto& [id, e] : sessions_)
      if (e.state == State::kWaiting && e.priority < top && !starved(e, now, top)) earliest(e.waiting_since + *wait);
  }
  best = best_waiter(now);
  if (!holder_) {
    earliest(refill);
  } else if (turn_ == Turn::kRunning) {
    earliest(exhaust_time(now));
    if (best) earliest(switch_time(*best, now));
    if (refill) earliest(std::max(*refill, turn_start_ + params_.quantum));
  } else if (turn_ == Turn::kReserved) {
    earliest(piece_start_ + grace_);
    if (best) earliest(switch_time(*best, now));
  }
  return d;
}

std::optional<uint64_t> ComputeArbiter::holder() const { return holder_; }

void ComputeArbiter::add_usage(Usage& u, TimePoint from, TimePoint to) const {
  int64_t len = bin_.count();
  int64_t b = ticks(to), a = std::max(ticks(from), b - len * (Usage::kBins + 1));
  for (int64_t i = floor_div(a, len); a < b; ++i) {
    int64_t end = std::min(b, (i + 1) * len);
    auto slot = static_cast<size_t>(((i % (Usage::kBins + 1)) + (Usage::kBins + 1)) % (Usage::kBins + 1));
    if (u.bin[slot] < i || u.ns[slot] == 0) {
      u.bin[slot] = i;
      u.ns[slot] = 0;
    }
    if (u.bin[slot] == i) u.ns[slot] += end - a;  // an older bin than the slot holds is out of the window
    a = end;
  }
}

// The window's bins; the oldest, partly outside the window, counted pro rata.
double ComputeArbiter::usage_sum(const Usage& u, TimePoint now) const {
  int64_t len = bin_.count(), t = ticks(now);
  int64_t cur = floor_div(t, len);
  double outside = static_cast<double>(t - cur * len) / static_cast<double>(len);
  double sum = 0;
  for (size_t s = 0; s < u.ns.size(); ++s) {
    int64_t age = cur - u.bin[s];
    if (u.ns[s] == 0 || age < 0 || age > Usage::kBins) continue;
    sum += static_cast<double>(u.ns[s]) * (age == Usage::kBins ? 1.0 - outside : 1.0);
  }
  return sum;
}

double ComputeArbiter::share(uint64_t session, TimePoint now) const {
  const Entry* e = find(session);
  if (!e) return 0;
  double span = ns(std::min(params_.window, now - e->added_at));
  if (span <= 0) return 0;
  double used = usage_sum(e->usage, now);
  if (holder_ == session && consuming(*e)) used += ns(std::min(params_.window, now - piece_start_));
  return std::clamp(used / span, 0.0, 1.0);
}

double ComputeArbiter::busy(TimePoint now) const {
  if (!first_now_) return 0;
  double span = ns(std::min(params_.window, now - *first_now_));
  if (span <= 0) return 0;
  double used = usage_sum(total_, now);
  if (holder_ && consuming(sessions_.at(*holder_))) used += ns(std::min(params_.window, now - piece_start_));
  return std::clamp(used / span, 0.0, 1.0);
}

}  // namespace rgpu::pool
