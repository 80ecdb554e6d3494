// ComputeArbiter on a simulated GPU (shares, caps, best effort, live changes, handoffs) and its API's edge cases.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "server/pool/compute_arbiter.h"
#include "tests/unit/pool/arbiter_sim.h"

using namespace rgpu::pool;
using namespace rgpu::pool::sim;

namespace {

struct Tenant {
  uint32_t share;
  uint32_t cap = 100;
  Behaviour b{};
};

const Behaviour kTiny{10us, 8, 1ms, 30us};  // syncs after every 1 ms of work, wants again 30 us later
const Behaviour kLong{5ms, 8};              // 5 ms kernels: a drain overshoots by up to 40 ms

std::string pct(double x) { return std::to_string(x * 100).substr(0, 6) + "%"; }

// All tenants want from the start; returns each one's part of the used GPU time after `warm`.
std::vector<double> split(Sim& sim, const std::vector<Tenant>& ts, Duration span = 5s, Duration warm = 1s) {
  std::vector<uint64_t> ids;
  for (const Tenant& t : ts) ids.push_back(sim.add(t.share, t.cap, t.b));
  sim.run_for(warm);
  TimePoint from = sim.now();
  sim.run_for(span);
  std::vector<double> out;
  for (uint64_t id : ids) out.push_back(sim.used_fraction(id, from, sim.now()));
  return out;
}

// Each tenant's used fraction is its share of the shares, within tol (the smallest within small_tol).
void check_split(const std::string& name, const std::vector<Tenant>& ts, double tol = 0.03, double small_tol = 0.03,
                 Duration span = 5s) {
  Sim sim;
  std::vector<double> got = split(sim, ts, span);
  auto weight = [](const Tenant& t) { return t.share == 0 ? 0.01 : t.share; };  // share 0: best effort
  double sum = 0;
  for (const Tenant& t : ts) sum += weight(t);
  std::string line = name + ":";
  for (size_t i = 0; i < ts.size(); ++i) line.append(" ").append(std::to_string(ts[i].share)).append("->").append(pct(got[i]));
  report(line);
  INFO(line);
  CHECK(sim.errors.empty());
  for (size_t i = 0; i < ts.size(); ++i) {
    double want = weight(ts[i]) / sum;
    CHECK(got[i] == Approx(want).margin(want < 0.05 ? small_tol : tol));
  }
}

Duration run_len(const Run& r) { return r.to - r.from; }

// Consecutive runs of one session (its pieces) make one turn on the GPU.
std::vector<Run> turns(const std::vector<Run>& runs) {
  std::vector<Run> out;
  for (const Run& r : runs) {
    if (!out.empty() && out.back().id == r.id) {
      out.back().to = r.to;
      out.back().voluntary = r.voluntary;
    } else {
      out.push_back(r);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("saturating sessions split the GPU by share", "[arbiter][sim]") {
  check_split("10/90", {{10}, {90}});
  check_split("30/70", {{30}, {70}});
  check_split("50/50", {{50}, {50}});
  check_split("1/99", {{1}, {99}}, 0.03, 0.005);
  check_split("10/20/30/40", {{10}, {20}, {30}, {40}});
  check_split("shares summing under 100: 5/15", {{5}, {15}});
}

TEST_CASE("a session that gives its turn back after every millisecond keeps its share", "[arbiter][sim]") {
  check_split("tiny 10/90", {{10, 100, kTiny}, {90}});
  check_split("tiny 90/10", {{90, 100, kTiny}, {10}});
  check_split("tiny 30/70", {{30, 100, kTiny}, {70}});
  check_split("tiny 50/50", {{50, 100, kTiny}, {50}});
  check_split("tiny 1/99", {{1, 100, kTiny}, {99}}, 0.03, 0.005);
  check_split("tiny 99/1", {{99, 100, kTiny}, {1}}, 0.03, 0.005);
  check_split("both tiny 30/70", {{30, 100, kTiny}, {70, 100, kTiny}});
  check_split("tiny 10/20/30/40", {{10, 100, kTiny}, {20}, {30}, {40, 100, kTiny}});
}

TEST_CASE("long kernels overshoot the quantum and the charge corrects the shares", "[arbiter][sim]") {
  check_split("5ms vs 10us 10/90", {{10, 100, kLong}, {90}});
  check_split("5ms vs 10us 90/10", {{90, 100, kLong}, {10}});
  check_split("5ms vs 10us 50/50", {{50, 100, kLong}, {50}});
  check_split("both 5ms 30/70", {{30, 100, kLong}, {70, 100, kLong}});
  check_split("5ms 99 vs 10us 1", {{1}, {99, 100, kLong}}, 0.03, 0.005);
  check_split("5ms 1 vs 10us 99 (20 s)", {{1, 100, kLong}, {99}}, 0.03, 0.005, 20s);
  check_split("5ms/tiny/10us 10/20/30/40", {{10, 100, kLong}, {20, 100, kTiny}, {30}, {40, 100, kLong}});
}

TEST_CASE("a lone capped session gets its cap of wall time in whole turns", "[arbiter][sim]") {
  for (uint32_t cap : {1u, 5u, 30u, 60u, 90u}) {
    for (const Behaviour& b : {Behaviour{}, kTiny, kLong}) {
      Sim sim;
      uint64_t a = sim.add(50, cap, b);
      sim.run_for(1s);
      TimePoint from = sim.now();
      sim.run_for(5s);
      double got = sim.wall_fraction(a, from, sim.now());
      std::string line = "lone cap " + std::to_string(cap) + " kernel " + std::to_string(b.kernel.count() / 1000) +
                         "us piece " + std::to_string(b.piece.count() / 1000) + "us: " + pct(got);
      report(line);
      INFO(line);
      CHECK(sim.errors.empty());
      CHECK(got == Approx(cap / 100.0).margin(cap < 5 ? 0.005 : 0.03));
      // No sliver turns: a revoked turn is at least the lone minimum (cap% of 100 ms, 1..2.5 ms).
      Duration least = std::min<Duration>(2500us, std::max<Duration>(1ms, 100ms * cap / 100));
      for (const Run& r : sim.runs())
        if (!r.voluntary && r.to < sim.now() - 100ms) CHECK(run_len(r) >= least * 9 / 10);
    }
  }
}

TEST_CASE("a lone uncapped session is granted once, never revoked, and costs no wake", "[arbiter][sim]") {
  for (const Behaviour& b : {Behaviour{}, kLong}) {
    Sim sim;
    uint64_t a = sim.add(30, 100, b);
    sim.run_for(5s);
    CHECK(sim.grants(a) == 1);
    CHECK(sim.revokes(a) == 0);
    CHECK(sim.wakes == 0);
    CHECK(sim.wall_fraction(a, sim.now() - 4s, sim.now()) > 0.9999);
  }
}

TEST_CASE("caps hold under contention, the others get the rest", "[arbiter][sim]") {
  struct Case {
    std::string name;
    std::vector<Tenant> ts;
    std::vector<double> wall;  // expected fractions of wall time
  };
  std::vector<Case> cases = {
      {"share 50 cap 50 beside share 10: the cap wins", {{50, 50}, {10}}, {0.5, 0.5}},
      {"share 50 cap 30 beside share 50", {{50, 30}, {50}}, {0.3, 0.7}},
      {"two capped at 30: the GPU idles 40%", {{30, 30}, {30, 30}}, {0.3, 0.3}},
      {"capped 20 in tiny pieces beside 10/90", {{50, 20, kTiny}, {10}, {90}}, {0.2, 0.08, 0.72}},
      {"capped 40 with 5 ms kernels beside share 10", {{90, 40, kLong}, {10}}, {0.4, 0.6}},
  };
  for (const Case& c : cases) {
    Sim sim;
    std::vector<uint64_t> ids;
    for (const Tenant& t : c.ts) ids.push_back(sim.add(t.share, t.cap, t.b));
    sim.run_for(1s);
    TimePoint from = sim.now();
    sim.run_for(5s);
    std::string line = c.name + ":";
    for (uint64_t id : ids) line.append(" ").append(pct(sim.wall_fraction(id, from, sim.now())));
    line.append(" handoffs/s ").append(std::to_string(sim.handoffs(from, sim.now()) / 5));
    report(line);
    INFO(line);
    CHECK(sim.errors.empty());
    for (size_t i = 0; i < ids.size(); ++i) CHECK(sim.wall_fraction(ids[i], from, sim.now()) == Approx(c.wall[i]).margin(0.03));
    CHECK(sim.handoffs(from, sim.now()) <= 5 * 105);
  }
}

TEST_CASE("best effort runs only when the others leave the GPU", "[arbiter][sim]") {
  Sim sim;
  uint64_t h = sim.add(50, 100);
  uint64_t e = sim.add(0, 100);
  sim.run_for(5s);
  double beside = sim.wall_fraction(e, sim.now() - 5s, sim.now());
  sim.pause(h);
  sim.run_for(2s);
  double alone = sim.wall_fraction(e, sim.now() - 2s + 10ms, sim.now());
  sim.resume(h);
  sim.run_for(1s);
  double back = sim.wall_fraction(e, sim.now() - 1s + 50ms, sim.now());
  std::string line = "best effort beside share 50: " + pct(beside) + ", alone: " + pct(alone) + ", after: " + pct(back);
  report(line);
  INFO(line);
  CHECK(sim.errors.empty());
  CHECK(beside < 0.001);
  CHECK(alone > 0.99);
  CHECK(back < 0.01);
  check_split("two best effort", {{0}, {0}});
}

TEST_CASE("live changes are reached within 100 ms", "[arbiter][sim]") {
  SECTION("shares 10/90 -> 60/40 under contention") {
    Sim sim;
    uint64_t a = sim.add(10, 100), b = sim.add(90, 100);
    sim.run_for(2s);
    double before = sim.used_fraction(a, sim.now() - 1s, sim.now());
    TimePoint t = sim.now();
    sim.update(a, 60, 100);
    sim.update(b, 40, 100);
    sim.run_for(2s);
    double worst = 1, best = 0;
    for (TimePoint w = t + 100ms; w + 100ms <= t + 2s; w += 10ms) {
      double f = sim.used_fraction(a, w, w + 100ms);
      worst = std::min(worst, f), best = std::max(best, f);
    }
    double settled = sim.used_fraction(a, t + 100ms, t + 2s);
    std::string line = "share 10->60: before " + pct(before) + ", 100 ms windows from +100 ms: " + pct(worst) + ".." +
                       pct(best) + ", overall " + pct(settled);
    report(line);
    INFO(line);
    CHECK(before == Approx(0.1).margin(0.03));
    CHECK(worst > 0.52);
    CHECK(best < 0.68);
    CHECK(settled == Approx(0.6).margin(0.02));
  }
  SECTION("a lone session's cap 10 -> 60") {
    Sim sim;
    uint64_t a = sim.add(50, 10);
    sim.run_for(2s);
    double before = sim.wall_fraction(a, sim.now() - 1s, sim.now());
    TimePoint t = sim.now();
    sim.update(a, 50, 60);
    sim.run_for(2s);
    double worst = 1, best = 0;
    for (TimePoint w = t + 100ms; w + 100ms <= t + 2s; w += 10ms) {
      double f = sim.wall_fraction(a, w, w + 100ms);
      worst = std::min(worst, f), best = std::max(best, f);
    }
    std::string line = "cap 10->60: before " + pct(before) + ", 100 ms windows from +100 ms: " + pct(worst) + ".." + pct(best);
    report(line);
    INFO(line);
    CHECK(before == Approx(0.1).margin(0.01));
    CHECK(worst > 0.57);
    CHECK(best < 0.63);
  }
}

TEST_CASE("handoffs come at most about once per quantum, turns are whole quanta", "[arbiter][sim]") {
  for (const std::vector<Tenant>& ts : std::vector<std::vector<Tenant>>{
           {{50}, {50}}, {{10}, {20}, {30}, {40}}, {{50, 100, kTiny}, {50}}, {{50, 100, kTiny}, {50, 100, kTiny}}}) {
    Sim sim;
    split(sim, ts);
    TimePoint from = sim.now() - 5s;
    int n = sim.handoffs(from, sim.now());
    report("handoffs/s with " + std::to_string(ts.size()) + " tenants: " + std::to_string(n / 5));
    CHECK(n <= 5 * 102);
    CHECK(n >= 5 * 10);  // and it does rotate
    std::vector<Run> ts_ = turns(sim.runs());
    for (size_t i = 0; i + 1 < ts_.size(); ++i)
      if (ts_[i].from >= from) CHECK(run_len(ts_[i]) >= 9ms);
  }
}

TEST_CASE("idling banks no credit, sessions come and go", "[arbiter][sim]") {
  Sim sim;
  uint64_t a = sim.add(50, 100), b = sim.add(50, 100);
  sim.run_for(1s);
  sim.pause(a);
  sim.run_for(2s);
  CHECK(sim.wall_fraction(b, sim.now() - 2s + 10ms, sim.now()) > 0.99);
  sim.resume(a);
  TimePoint t = sim.now();
  sim.run_for(300ms);
  double first = sim.used_fraction(a, t, sim.now());
  uint64_t c = sim.add(50, 100);
  t = sim.now();
  sim.run_for(3s);
  double ta = sim.used_fraction(a, t + 100ms, sim.now()), tb = sim.used_fraction(b, t + 100ms, sim.now()),
         tc = sim.used_fraction(c, t + 100ms, sim.now());
  sim.remove(b);
  t = sim.now();
  sim.run_for(2s);
  double la = sim.used_fraction(a, t + 20ms, sim.now()), lc = sim.used_fraction(c, t + 20ms, sim.now());
  std::string line = "after idling 2 s: " + pct(first) + "; three: " + pct(ta) + " " + pct(tb) + " " + pct(tc) +
                     "; b removed: " + pct(la) + " " + pct(lc);
  report(line);
  INFO(line);
  CHECK(sim.errors.empty());
  CHECK(first == Approx(0.5).margin(0.1));  // no burst to catch up
  for (double x : {ta, tb, tc}) CHECK(x == Approx(1.0 / 3).margin(0.03));
  for (double x : {la, lc}) CHECK(x == Approx(0.5).margin(0.03));
}

TEST_CASE("share() and busy() report the achieved fractions over the window", "[arbiter][sim]") {
  Sim sim;
  uint64_t a = sim.add(30, 100), b = sim.add(70, 100, kTiny), c = sim.add(50, 20);
  sim.run_for(1s);
  for (int i = 0; i < 8; ++i) {
    sim.run_for(700ms);
    TimePoint now = sim.now();
    double all = 0;
    for (uint64_t id : {a, b, c}) {
      double measured = sim.wall_fraction(id, now - 1s, now);
      all += measured;
      INFO("session " << id << " at step " << i);
      CHECK(sim.arb.share(id, now) == Approx(measured).margin(0.02));
    }
    CHECK(sim.arb.busy(now) == Approx(all).margin(0.02));
  }
  CHECK(sim.arb.share(c, sim.now()) == Approx(0.2).margin(0.03));
  CHECK(sim.arb.share(12345, sim.now()) == 0);
}

TEST_CASE("the arbiter's decisions, call by call", "[arbiter]") {
  const TimePoint t0{std::chrono::seconds(100)};
  ComputeArbiter arb;
  const Duration q = ComputeArbiter::Params{}.quantum;

  SECTION("nothing pending, no wake; a lone session is granted without a wake") {
    arb.add(1, 50, 100, t0);
    CHECK_FALSE(arb.poll(t0).wake);
    arb.want(1, t0);
    ComputeArbiter::Decision d = arb.poll(t0);
    CHECK(d.grant == std::vector<uint64_t>{1});
    CHECK(d.revoke.empty());
    CHECK_FALSE(d.wake);
    CHECK(arb.holder() == 1u);
    CHECK(arb.poll(t0 + 10s).grant.empty());
  }
  SECTION("a waiter: revoke at the quantum, once; the release hands over; stray calls change nothing") {
    arb.add(1, 50, 100, t0);
    arb.add(2, 50, 100, t0);
    arb.want(1, t0);
    arb.poll(t0);
    arb.want(2, t0 + 1ms);
    arb.want(2, t0 + 2ms);  // already waiting: ignored
    arb.want(1, t0 + 2ms);  // holds: ignored
    ComputeArbiter::Decision d = arb.poll(t0 + 2ms);
    CHECK(d.grant.empty());
    CHECK(d.revoke.empty());
    CHECK(d.wake == t0 + q);
    d = arb.poll(t0 + q);
    CHECK(d.revoke == std::vector<uint64_t>{1});
    d = arb.poll(t0 + q);
    CHECK(d.revoke.empty());  // never twice for one turn
    CHECK_FALSE(d.wake);      // waiting for the release message only
    arb.released(2, 5ms, t0 + q + 1ms);  // not the holder: ignored
    arb.released(9, 5ms, t0 + q + 1ms);  // unknown: ignored
    CHECK(arb.holder() == 1u);
    CHECK(arb.poll(t0 + q + 1ms).grant.empty());
    arb.released(1, q + 3ms, t0 + q + 4ms);
    d = arb.poll(t0 + q + 4ms);
    CHECK(d.grant == std::vector<uint64_t>{2});
    // 1 was revoked with work and waits again; it held 13 ms, so 2 is owed 12 ms past its grant.
    CHECK(d.wake == t0 + q + 4ms + 12ms);
    arb.released(1, 1ms, t0 + q + 5ms);  // a late duplicate: ignored
    CHECK(arb.holder() == 2u);
  }
  SECTION("remove of the holder frees the GPU at once; remove of a waiter drops it") {
    for (uint64_t s : {1, 2, 3}) {
      arb.add(s, 50, 100, t0);
      arb.want(s, t0);
    }
    CHECK(arb.poll(t0).grant == std::vector<uint64_t>{1});
    arb.remove(1, t0 + 1ms);
    CHECK(arb.poll(t0 + 1ms).grant == std::vector<uint64_t>{2});
    arb.remove(3, t0 + 2ms);
    ComputeArbiter::Decision d = arb.poll(t0 + 50ms);
    CHECK(d.revoke.empty());
    CHECK_FALSE(d.wake);
    arb.released(1, 1ms, t0 + 60ms);  // from the removed session: ignored
    CHECK(arb.holder() == 2u);
  }
  SECTION("a capped holder is revoked when its bucket runs out, and granted again once it refills") {
    arb.add(1, 50, 50, t0);
    arb.want(1, t0);
    ComputeArbiter::Decision d = arb.poll(t0);
    REQUIRE(d.grant == std::vector<uint64_t>{1});
    REQUIRE(d.wake);
    CHECK(*d.wake == t0 + 4 * q);  // a full bucket (two quanta), refilled at half speed meanwhile
    CHECK(arb.poll(*d.wake - 1ns).revoke.empty());
    CHECK(arb.poll(*d.wake).revoke == std::vector<uint64_t>{1});
    TimePoint r = *d.wake + 1ms;
    arb.released(1, 4 * q + 1ms, r);  // overshoot: 0.5 ms more than it had
    d = arb.poll(r);
    CHECK(d.grant.empty());
    REQUIRE(d.wake);
    CHECK(*d.wake == r + 6ms + 1ns);  // 0.5 ms of debt and a 2.5 ms lone minimum turn, at 50%
    CHECK(arb.poll(*d.wake).grant == std::vector<uint64_t>{1});
  }
  SECTION("an idle capped session's bucket holds two quanta, not what it would have earned") {
    arb.add(1, 50, 50, t0);
    arb.want(1, t0 + 10s);
    ComputeArbiter::Decision d = arb.poll(t0 + 10s);
    REQUIRE(d.grant == std::vector<uint64_t>{1});
    CHECK(d.wake == t0 + 10s + 4 * q);
  }
  SECTION("a change of share takes effect at the next decision") {
    arb.add(1, 50, 100, t0);
    arb.add(2, 50, 100, t0);
    arb.want(1, t0);
    arb.poll(t0);
    arb.want(2, t0);
    CHECK(arb.poll(t0).wake == t0 + q);
    arb.update(2, 0, 100, t0 + 1ms);  // now best effort: 1 keeps the GPU far longer
    ComputeArbiter::Decision d = arb.poll(t0 + 1ms);
    REQUIRE(d.wake);
    CHECK(*d.wake > t0 + 10s);
    arb.update(2, 100, 100, t0 + 2ms);
    CHECK(arb.poll(t0 + 2ms).wake == t0 + q);
  }
  SECTION("a bogus held figure is bounded by the time since the grant") {
    arb.add(1, 50, 100, t0);
    arb.want(1, t0);
    arb.poll(t0);
    arb.released(1, std::chrono::hours(5), t0 + 100ms);
    CHECK(arb.share(1, t0 + 100ms) <= 1.0);
    CHECK(arb.busy(t0 + 100ms) == Approx(1.0));
    CHECK_FALSE(arb.holder());
  }
}
