// A simulated GPU, session workers and the parent driving a ComputeArbiter, on simulated time.
//
// The model: messages between the parent and a worker take `latency`; a GPU switch to another
// session's context costs `switch_cost` before its first kernel; a revoked worker stops
// submitting and its drain ends at the kernel boundary plus up to `overshoot` more kernels (what
// was queued), and it reports the held time from its grant's arrival to that completion.
// Invariants (one session on the GPU, no revoke twice for one turn, no grant beside an
// outstanding one) are checked on the way and collected in `errors`.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "server/pool/compute_arbiter.h"

namespace rgpu::pool::sim {

using namespace std::chrono_literals;

struct Behaviour {
  Duration kernel = 10us;  // one kernel's length
  int overshoot = 8;       // a drain ends within this many kernels after the revoke's boundary
  Duration piece{};        // > 0: gives the turn back after this much work (a client that syncs)...
  Duration gap = 30us;     // ...and wants again this long after
};

struct Run {
  uint64_t id;
  TimePoint from, to;
  bool voluntary;
};

class Sim {
 public:
  explicit Sim(ComputeArbiter::Params p = {}, Duration latency = 25us, Duration switch_cost = 50us)
      : arb(p), latency_(latency), switch_cost_(switch_cost) {}

  // At now; the session wants the GPU at once.
  uint64_t add(uint32_t share, uint32_t cap, Behaviour b = {}) {
    uint64_t id = next_id_++;
    Worker& w = workers_[id];
    w.b = b;
    arb.add(id, share, cap, now_);
    send(now_, [this, id] { arb.want(id, now_); });
    return id;
  }
  void remove(uint64_t id) {
    Worker& w = workers_.at(id);
    arb.remove(id, now_);
    schedule_poll(now_);
    w.alive = false;
    w.granted_parent = false;
    if (w.running) finish(id, std::max(now_, w.run_start), false, /*report=*/false);
    // A late message from the dead worker must do no harm.
    send(now_ + latency_, [this, id] { arb.released(id, 1ms, now_); });
  }
  void update(uint64_t id, uint32_t share, uint32_t cap) {
    arb.update(id, share, cap, now_);
    schedule_poll(now_);
  }
  // The client goes idle: the worker gives its turn back at the next kernel boundary.
  void pause(uint64_t id) {
    Worker& w = workers_.at(id);
    w.paused = true;
    w.wanting = false;
    if (w.running && !w.draining) {
      w.draining = true;
      ++w.gen;
      TimePoint c = boundary(w, now_);
      at(c, [this, id] { finish(id, now_, true, true); });
    }
  }
  void resume(uint64_t id) {
    Worker& w = workers_.at(id);
    w.paused = false;
    w.wanting = true;
    if (!w.running) send(now_ + latency_, [this, id] { arb.want(id, now_); });
  }

  void run_for(Duration d) {
    TimePoint end = now_ + d;
    while (!q_.empty() && q_.begin()->first <= end) {
      auto it = q_.begin();
      now_ = it->first;
      auto fn = std::move(it->second);
      q_.erase(it);
      fn();
    }
    now_ = end;
  }
  TimePoint now() const { return now_; }

  // GPU time the session's work ran in [from, to].
  Duration gpu(uint64_t id, TimePoint from, TimePoint to) const {
    Duration sum{};
    auto overlap = [&](TimePoint a, TimePoint b) {
      a = std::max(a, from), b = std::min(b, to);
      if (b > a) sum += b - a;
    };
    for (const Run& r : runs_)
      if (r.id == id) overlap(r.from, r.to);
    const Worker& w = workers_.at(id);
    if (w.running && w.run_start < now_) overlap(w.run_start, now_);
    return sum;
  }
  double wall_fraction(uint64_t id, TimePoint from, TimePoint to) const {
    return static_cast<double>(gpu(id, from, to).count()) / static_cast<double>((to - from).count());
  }
  // The session's part of the GPU time all sessions used in [from, to].
  double used_fraction(uint64_t id, TimePoint from, TimePoint to) const {
    Duration all{};
    for (const auto& [other, w] : workers_) all += gpu(other, from, to);
    return static_cast<double>(gpu(id, from, to).count()) / static_cast<double>(all.count());
  }
  // Runs that began on another session's context in [from, to] (each costs the switch).
  int handoffs(TimePoint from, TimePoint to) const {
    int n = 0;
    for (size_t i = 1; i < runs_.size(); ++i)
      if (runs_[i].from >= from && runs_[i].from < to && runs_[i].id != runs_[i - 1].id) ++n;
    return n;
  }
  const std::vector<Run>& runs() const { return runs_; }
  int grants(uint64_t id) const { return workers_.at(id).grants; }
  int revokes(uint64_t id) const { return workers_.at(id).revokes; }

  ComputeArbiter arb;
  int wakes = 0;                    // polls that returned a wake
  std::vector<std::string> errors;  // broken invariants

 private:
  struct Worker {
    Behaviour b;
    bool alive = true, wanting = true, paused = false;
    bool running = false, draining = false;
    bool granted_parent = false, revoked_parent = false;  // the parent's view of its turn
    TimePoint grant_rx{}, run_start{};
    uint64_t gen = 0;  // cancels a stale piece end
    int grants = 0, revokes = 0;
  };

  void at(TimePoint t, std::function<void()> fn) { q_.emplace(t, std::move(fn)); }
  // A message to the parent: delivered, then the parent polls.
  void send(TimePoint t, std::function<void()> fn) {
    at(t, [this, fn = std::move(fn)] {
      fn();
      schedule_poll(now_);
    });
  }
  void schedule_poll(TimePoint t) {
    if (poll_times_.insert(t).second) at(t, [this, t] {
        poll_times_.erase(t);
        poll();
      });
  }
  void fail(const std::string& what) { errors.push_back(what + " at " + std::to_string(now_.time_since_epoch().count())); }

  void poll() {
    ComputeArbiter::Decision d = arb.poll(now_);
    for (uint64_t g : d.grant) {
      for (const auto& [id, w] : workers_)
        if (w.granted_parent) fail("grant of " + std::to_string(g) + " while " + std::to_string(id) + " holds");
      Worker& w = workers_.at(g);
      w.granted_parent = true;
      w.revoked_parent = false;
      ++w.grants;
      at(now_ + latency_, [this, g] { on_grant(g); });
    }
    for (uint64_t r : d.revoke) {
      Worker& w = workers_.at(r);
      if (!w.granted_parent || w.revoked_parent) fail("stray or repeated revoke of " + std::to_string(r));
      w.revoked_parent = true;
      ++w.revokes;
      at(now_ + latency_, [this, r] { on_revoke(r); });
    }
    if (d.wake) {
      ++wakes;
      if (*d.wake <= now_) fail("wake not in the future");
      schedule_poll(*d.wake);
    }
  }

  void on_grant(uint64_t id) {
    Worker& w = workers_.at(id);
    if (!w.alive) return;
    if (!w.wanting) {  // nothing to do any more: give it straight back
      send(now_ + latency_, [this, id] {
        workers_.at(id).granted_parent = false;
        arb.released(id, Duration::zero(), now_);
      });
      return;
    }
    for (const auto& [other, o] : workers_)
      if (o.running) fail("grant to " + std::to_string(id) + " while " + std::to_string(other) + " runs");
    w.running = true;
    w.draining = false;
    w.grant_rx = now_;
    w.run_start = std::max(now_, gpu_free_) + (last_on_gpu_ == id ? Duration::zero() : switch_cost_);
    uint64_t gen = ++w.gen;
    if (w.b.piece > Duration::zero())
      at(w.run_start + w.b.piece, [this, id, gen] {
        if (workers_.at(id).gen == gen) finish(id, now_, true, true);
      });
  }

  TimePoint boundary(const Worker& w, TimePoint t) const {
    if (t <= w.run_start) return w.run_start;
    auto n = ((t - w.run_start) + w.b.kernel - Duration(1)) / w.b.kernel;
    return w.run_start + n * w.b.kernel;
  }

  void on_revoke(uint64_t id) {
    Worker& w = workers_.at(id);
    if (!w.alive || !w.running || w.draining) return;  // already gave it back
    w.draining = true;
    uint64_t gen = ++w.gen;
    TimePoint c = boundary(w, now_) + (rng() % static_cast<uint64_t>(w.b.overshoot + 1)) * w.b.kernel;
    if (w.b.piece > Duration::zero()) c = std::min(c, std::max(now_, w.run_start + w.b.piece));
    at(c, [this, id, gen] {
      if (workers_.at(id).gen == gen) finish(id, now_, false, true);
    });
  }

  // The worker's work completed at t: its run ends, and it reports (unless it was killed).
  void finish(uint64_t id, TimePoint t, bool voluntary, bool report) {
    Worker& w = workers_.at(id);
    w.running = w.draining = false;
    ++w.gen;
    if (t > w.run_start) runs_.push_back({id, w.run_start, t, voluntary});
    gpu_free_ = std::max(gpu_free_, t);
    last_on_gpu_ = id;
    if (!report) return;
    Duration held = t - w.grant_rx;
    send(t + latency_, [this, id, held] {
      workers_.at(id).granted_parent = false;
      arb.released(id, held, now_);
    });
    bool piece_done = voluntary && w.b.piece > Duration::zero() && !w.paused;
    if (piece_done) w.wanting = false;
    if (w.wanting) send(t + latency_, [this, id] { arb.want(id, now_); });
    if (piece_done) {
      at(t + w.b.gap, [this, id] {
        Worker& v = workers_.at(id);
        if (!v.alive || v.paused) return;
        v.wanting = true;
        send(now_ + latency_, [this, id] { arb.want(id, now_); });
      });
    }
  }

  uint64_t rng() {
    seed_ ^= seed_ << 13, seed_ ^= seed_ >> 7, seed_ ^= seed_ << 17;
    return seed_;
  }

  Duration latency_, switch_cost_;
  TimePoint now_ = TimePoint{} + std::chrono::hours(1);
  TimePoint gpu_free_{};
  uint64_t last_on_gpu_ = 0;
  uint64_t next_id_ = 1;
  uint64_t seed_ = 0x9e3779b97f4a7c15ull;
  std::multimap<TimePoint, std::function<void()>> q_;
  std::set<TimePoint> poll_times_;
  std::map<uint64_t, Worker> workers_;
  std::vector<Run> runs_;
};

// RGPU_ARB_VERBOSE=1 prints the measured figures.
inline void report(const std::string& line) {
  if (std::getenv("RGPU_ARB_VERBOSE")) std::printf("%s\n", line.c_str());
}

}  // namespace rgpu::pool::sim
