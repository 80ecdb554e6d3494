// Priorities in the compute arbiter: a higher priority takes the GPU from a lower one at once,
// lower priorities get the time the higher ones leave, and the starvation guard keeps each lower
// one at about min_share of the GPU while higher ones saturate it. On the simulated GPU and clock
// of arbiter_sim.h, and call by call.
#include <catch2/catch.hpp>

#include "tests/unit/pool/arbiter_sim.h"

using namespace rgpu::pool;
using namespace rgpu::pool::sim;

namespace {

struct Pair {
  Sim sim;
  uint64_t high, low;
  Pair(double min_share, Behaviour high_does = {}) : sim(params(min_share)) {
    high = sim.add(50, 100, high_does);
    sim.arb.set_priority(high, 50, sim.now());
    low = sim.add(50, 100);
    sim.arb.set_priority(low, -50, sim.now());
  }
  static ComputeArbiter::Params params(double min_share) {
    ComputeArbiter::Params p;
    p.min_share = min_share;
    return p;
  }
};

}  // namespace

TEST_CASE("a saturating high priority leaves a low one only the starvation guard's floor", "[arbiter][sim][priority]") {
  Pair p(0.05);
  p.sim.run_for(2s);
  const TimePoint from = p.sim.now() - 1500ms, to = p.sim.now();
  const double low = p.sim.used_fraction(p.low, from, to);
  INFO("low's part of the GPU time " << low);
  CHECK(low > 0.03);
  CHECK(low < 0.07);
  CHECK(p.sim.used_fraction(p.high, from, to) > 0.93);
  CHECK(p.sim.errors.empty());
}

TEST_CASE("without the guard, a saturating high priority starves a low one", "[arbiter][sim][priority]") {
  Pair p(0);
  p.sim.run_for(2s);
  const TimePoint from = p.sim.now() - 1500ms, to = p.sim.now();
  CHECK(p.sim.used_fraction(p.low, from, to) < 0.005);
  CHECK(p.sim.errors.empty());
}

TEST_CASE("a low priority uses the time a high one leaves", "[arbiter][sim][priority]") {
  // The high session works 1 ms, then is idle 4 ms (a request at a time).
  Behaviour requests;
  requests.piece = 1ms;
  requests.gap = 4ms;
  Pair p(0.05, requests);
  p.sim.run_for(2s);
  const TimePoint from = p.sim.now() - 1500ms, to = p.sim.now();
  const double high = p.sim.wall_fraction(p.high, from, to), low = p.sim.wall_fraction(p.low, from, to);
  INFO("high " << high << ", low " << low);
  CHECK(high > 0.15);
  CHECK(low >= 0.9 * (1 - high));  // issue 10's bar for the low tenant's throughput
  CHECK(p.sim.errors.empty());
}

TEST_CASE("priorities, call by call", "[arbiter][priority]") {
  const TimePoint t0{std::chrono::seconds(100)};
  ComputeArbiter arb;
  const Duration q = ComputeArbiter::Params{}.quantum;
  arb.add(1, 50, 100, t0);
  arb.add(2, 50, 100, t0);
  arb.set_priority(2, 50, t0);
  arb.want(1, t0);
  CHECK(arb.poll(t0).grant == std::vector<uint64_t>{1});

  SECTION("a higher priority revokes the holder at once, without waiting for its quantum") {
    arb.want(2, t0 + 1ms);
    ComputeArbiter::Decision d = arb.poll(t0 + 1ms);
    CHECK(d.revoke == std::vector<uint64_t>{1});
    arb.released(1, 1ms, t0 + 2ms);
    CHECK(arb.poll(t0 + 2ms).grant == std::vector<uint64_t>{2});
    // The low one waits while the high one holds: no revoke at the quantum...
    CHECK(arb.poll(t0 + 2ms + 2 * q).revoke.empty());
    // ... until it has waited quantum x (1 / 0.05 - 1) = 19 quanta: then one guard turn.
    d = arb.poll(t0 + 2ms + 19 * q);
    CHECK(d.revoke == std::vector<uint64_t>{2});
    arb.released(2, 19 * q, t0 + 2ms + 19 * q);
    CHECK(arb.poll(t0 + 2ms + 19 * q).grant == std::vector<uint64_t>{1});
    // A guard turn is not preempted before its quantum.
    arb.want(2, t0 + 3ms + 19 * q);
    CHECK(arb.poll(t0 + 3ms + 19 * q).revoke.empty());
    CHECK(arb.poll(t0 + 2ms + 20 * q).revoke == std::vector<uint64_t>{1});
  }
  SECTION("a lower priority waiting does not end the holder's turn") {
    arb.set_priority(1, 50, t0);
    arb.set_priority(2, 0, t0);
    arb.want(2, t0 + 1ms);
    CHECK(arb.poll(t0 + 1ms).revoke.empty());
    CHECK(arb.poll(t0 + 3 * q).revoke.empty());
  }
}

TEST_CASE("the holder's hints: hurried while somebody waits, bounded while a higher priority is active",
          "[arbiter][priority]") {
  const TimePoint t0{std::chrono::seconds(100)};
  using Hint = ComputeArbiter::Hint;
  ComputeArbiter arb;
  arb.add(1, 50, 100, t0);  // low
  arb.add(2, 50, 100, t0);  // high
  arb.set_priority(1, -50, t0);
  arb.set_priority(2, 50, t0);
  arb.want(1, t0);
  ComputeArbiter::Decision d = arb.poll(t0);
  CHECK(d.grant == std::vector<uint64_t>{1});
  // Nobody waits and the high one never ran: a plain turn, hinted once right after the grant.
  CHECK(d.hints == std::vector<Hint>{Hint{1, false, false}});
  CHECK(arb.poll(t0 + 1ms).hints.empty());  // unchanged: nothing sent again

  // The high one wants: the low holder is revoked at once. The high holder is not bounded (nobody
  // is above it) but hurried: the revoked low one still waits, so the high one hands the GPU back
  // as soon as its client pauses.
  arb.want(2, t0 + 2ms);
  CHECK(arb.poll(t0 + 2ms).revoke == std::vector<uint64_t>{1});
  arb.released(1, 2ms, t0 + 3ms);
  d = arb.poll(t0 + 3ms);
  CHECK(d.grant == std::vector<uint64_t>{2});
  CHECK(d.hints == std::vector<Hint>{Hint{2, true, false}});
  CHECK(arb.poll(t0 + 4ms).revoke.empty());  // a lower waiter never takes the turn itself
  arb.released(2, 1ms, t0 + 5ms);
  d = arb.poll(t0 + 5ms);
  CHECK(d.grant == std::vector<uint64_t>{1});
  // The low one's turn now is bounded: the high one was active within the window.
  CHECK(d.hints == std::vector<Hint>{Hint{1, false, true}});
  // A second after the high one's last use its bound is lifted (hinted at the next decision).
  d = arb.poll(t0 + 5ms + ComputeArbiter::Params{}.window + 100ms);
  CHECK(d.hints == std::vector<Hint>{Hint{1, false, false}});
}

TEST_CASE("overlapping preemption (MPS): a higher priority is granted without waiting for the holder's drain",
          "[arbiter][priority]") {
  const TimePoint t0{std::chrono::seconds(100)};
  ComputeArbiter::Params params;
  params.overlap_preemption = true;
  ComputeArbiter arb(params);
  arb.add(1, 50, 100, t0);  // low
  arb.add(2, 50, 100, t0);  // high
  arb.add(3, 50, 100, t0);  // low, a second one
  arb.set_priority(1, -50, t0);
  arb.set_priority(2, 50, t0);
  arb.set_priority(3, -50, t0);
  arb.want(1, t0);
  CHECK(arb.poll(t0).grant == std::vector<uint64_t>{1});

  // The high one wants: the low holder is revoked and the high one granted in the same decision.
  arb.want(2, t0 + 4ms);
  ComputeArbiter::Decision d = arb.poll(t0 + 4ms);
  CHECK(d.revoke == std::vector<uint64_t>{1});
  CHECK(d.grant == std::vector<uint64_t>{2});
  CHECK(arb.holder() == 2u);
  // The low one's turn was charged up to the revocation: all of its 4 ms so far.
  CHECK(arb.share(1, t0 + 4ms) == Approx(1.0));

  SECTION("the preempted holder gets no turn before its drain is reported") {
    arb.released(2, 1ms, t0 + 5ms);
    d = arb.poll(t0 + 5ms);
    CHECK(d.grant.empty());  // 1 is still draining; 3 never asked
    CHECK_FALSE(arb.holder().has_value());
    // Its late release charges nothing more (the drain ran beside the high one's work)...
    arb.released(1, 5ms, t0 + 6ms);
    CHECK(arb.share(1, t0 + 6ms) == Approx(4.0 / 6.0));
    // ... and it is granted again, still queued from its revocation (no new want needed).
    CHECK(arb.poll(t0 + 6ms).grant == std::vector<uint64_t>{1});
  }
  SECTION("the preempted turn's release does not touch the preemptor's turn") {
    arb.released(1, 5ms, t0 + 5ms);  // the drain's report, while the high one holds
    CHECK(arb.holder() == 2u);
    CHECK(arb.poll(t0 + 5ms).revoke.empty());
    CHECK(arb.share(2, t0 + 5ms) == Approx(1.0 / 5.0));  // its 1 ms so far
    arb.released(2, 2ms, t0 + 6ms);
    CHECK(arb.poll(t0 + 6ms).grant == std::vector<uint64_t>{1});
  }
  SECTION("another waiter of the preempted one's priority may run while it drains") {
    arb.want(3, t0 + 5ms);
    arb.released(2, 1ms, t0 + 6ms);
    CHECK(arb.poll(t0 + 6ms).grant == std::vector<uint64_t>{3});
  }
  SECTION("a revocation between equal priorities still waits for the drain") {
    arb.released(1, 5ms, t0 + 5ms);
    arb.released(2, 1ms, t0 + 6ms);
    CHECK(arb.poll(t0 + 6ms).grant == std::vector<uint64_t>{1});
    arb.want(3, t0 + 6ms);
    d = arb.poll(t0 + 6ms + 3 * params.quantum);
    CHECK(d.revoke == std::vector<uint64_t>{1});
    CHECK(d.grant.empty());
    CHECK(arb.holder() == 1u);
  }
}

TEST_CASE("sovereignty (MPS): the GPU's one top priority without a cap, told when it changes", "[arbiter][priority]") {
  const TimePoint t0{std::chrono::seconds(100)};
  ComputeArbiter::Params params;
  params.overlap_preemption = true;
  ComputeArbiter arb(params);
  using Change = std::vector<std::pair<uint64_t, bool>>;
  arb.add(1, 50, 100, t0);
  arb.set_priority(1, -50, t0);
  CHECK(arb.poll(t0).sovereign == Change{{1, true}});  // alone, it is the top
  CHECK(arb.poll(t0).sovereign.empty());               // told once
  arb.add(2, 50, 100, t0);
  arb.set_priority(2, 50, t0);
  CHECK(arb.poll(t0).sovereign == Change{{1, false}, {2, true}});

  // Its want while a lower one holds: revoked and granted in one decision (no drain waited for).
  arb.want(1, t0);
  CHECK(arb.poll(t0).grant == std::vector<uint64_t>{1});
  arb.want(2, t0 + 1ms);
  ComputeArbiter::Decision d = arb.poll(t0 + 1ms);
  CHECK(d.revoke == std::vector<uint64_t>{1});
  CHECK(d.grant == std::vector<uint64_t>{2});

  // A second session of its priority, or a cap, ends it.
  arb.add(3, 50, 100, t0 + 2ms);
  arb.set_priority(3, 50, t0 + 2ms);
  CHECK(arb.poll(t0 + 2ms).sovereign == Change{{2, false}});
  arb.remove(3, t0 + 3ms);
  CHECK(arb.poll(t0 + 3ms).sovereign == Change{{2, true}});
  arb.update(2, 50, 60, t0 + 4ms);
  CHECK(arb.poll(t0 + 4ms).sovereign == Change{{2, false}});

  // Without overlapping preemption (time-sliced GPUs) there is none.
  ComputeArbiter plain;
  plain.add(1, 50, 100, t0);
  CHECK(plain.poll(t0).sovereign.empty());
}

TEST_CASE("the holder's hints: a peer waiting (its own priority or above) is said apart from lower ones",
          "[arbiter][priority]") {
  const TimePoint t0{std::chrono::seconds(100)};
  using Hint = ComputeArbiter::Hint;
  ComputeArbiter arb;
  arb.add(1, 30, 100, t0);
  arb.add(2, 30, 100, t0);
  arb.add(3, 30, 100, t0);
  arb.set_priority(3, -50, t0);  // below the other two
  arb.want(1, t0);
  ComputeArbiter::Decision d = arb.poll(t0);
  CHECK(d.grant == std::vector<uint64_t>{1});
  CHECK(d.hints == std::vector<Hint>{Hint{1, false, false, false}});
  // Only a lower priority waits: hurried, no peer (the holder takes the GPU back at its next call).
  arb.want(3, t0 + 1ms);
  d = arb.poll(t0 + 1ms);
  CHECK(d.grant.empty());
  CHECK(d.hints == std::vector<Hint>{Hint{1, true, false, false}});
  // An equal joins the queue: its turn would go round before the holder's came back.
  arb.want(2, t0 + 2ms);
  d = arb.poll(t0 + 2ms);
  CHECK(d.hints == std::vector<Hint>{Hint{1, true, false, true}});
}
