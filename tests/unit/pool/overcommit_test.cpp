// Memory over-commit in the pool's books, on a simulated clock: admission against the promised
// memory (GPU memory x memory_overcommit), a turn only with room for the whole slice, idle sessions
// swapped out (the longest idle first, only after swap_idle) to make that room, a swapped-out
// session brought back by its next want, and a worker that refuses a swap-out keeping its place.
#include <catch2/catch.hpp>

#include "tests/unit/pool/pool_fixtures.h"

using namespace rgpu::pool;
using namespace rgpu::pool::testing;

namespace {

constexpr auto kSwapIdle = std::chrono::milliseconds(1000);

// One 10 GiB GPU promised twice over; tenant "big" holds 6 GiB slices.
struct Overcommitted {
  Pool pool;
  Overcommitted() : pool(gpus(1, 10 * kGiB), make_config()) {}
  static DaemonConfig make_config() {
    DaemonConfig c;
    c.admin_token = "admin";
    c.policy.memory_overcommit = 2.0;
    c.policy.swap_idle_ms = static_cast<uint32_t>(kSwapIdle.count());
    c.tenants = {tenant("big", 6 * kGiB, 30, 100)};
    return c;
  }
  SessionRequest big(uint64_t id) {
    SessionRequest r = request(id, 0);
    r.queue_timeout.reset();  // waits when it does not fit
    return r;
  }
  // The worker ran its turn: it holds `used` (all of it movable but a 512 MiB context) and went idle.
  void ran(uint64_t id, uint64_t used, TimePoint now) {
    pool.note_memory(id, used, now, used - 512 * kMiB);
    pool.released(id, std::chrono::milliseconds(5), now);
  }
  // The worker's answer to a swap-out: its figure after the move (which may seat a waiting want
  // already: the memory is free), then Swapped. Their grants together.
  Actions swapped_out(uint64_t id, TimePoint now) {
    Actions a = pool.note_memory(id, 512 * kMiB, now, 0);
    Actions b = pool.swapped(id, true, 6 * kGiB - 512 * kMiB, now);
    a.grant.insert(a.grant.end(), b.grant.begin(), b.grant.end());
    return a;
  }
};

}  // namespace

TEST_CASE("over-commit: slices may add up to twice the GPU, each is marked movable", "[pool][overcommit]") {
  Overcommitted o;
  for (uint64_t id = 1; id <= 3; ++id) CHECK(admit_ok(o.pool, o.big(id)).movable);  // 18 of 20 GiB promised
  auto fourth = o.pool.admit(o.big(4), t0);
  REQUIRE(fourth.is_ok());
  CHECK_FALSE(fourth->slice);  // 24 GiB would pass the 20 promised: it queues
  CHECK(fourth->position == 1);
}

TEST_CASE("over-commit: without the setting, slices never add up to more than the GPU", "[pool][overcommit]") {
  DaemonConfig c = Overcommitted::make_config();
  c.policy.memory_overcommit = 1.0;
  Pool pool(gpus(1, 10 * kGiB), c);
  CHECK_FALSE(admit_ok(pool, request(1, 0)).movable);
  CHECK(admit_refused(pool, request(2, 0)).find("free: GPU 0 4096 MiB") != std::string::npos);
}

TEST_CASE("over-commit: taking turns swaps the idle session out for the one that wants to run", "[pool][overcommit]") {
  Overcommitted o;
  admit_ok(o.pool, o.big(1));
  admit_ok(o.pool, o.big(2));
  // A runs and fills its slice, then goes idle.
  CHECK(o.pool.want(1, t0).grant == std::vector<uint64_t>{1});
  o.ran(1, 6 * kGiB, t0 + std::chrono::milliseconds(10));

  // B wants at once: A's 6 GiB and B's 6 GiB slice do not fit in 10, and A has been idle only
  // 90 ms: B waits, nobody is swapped yet, and the pool asks to be woken when A may go.
  const TimePoint tb = t0 + std::chrono::milliseconds(100);
  Actions a = o.pool.want(2, tb);
  CHECK(a.grant.empty());
  CHECK(a.swap_out.empty());
  REQUIRE(a.wake);
  CHECK(*a.wake <= t0 + std::chrono::milliseconds(10) + kSwapIdle);

  // At A's swap_idle: A is swapped out (B's grant waits for the move).
  const TimePoint ta = t0 + std::chrono::milliseconds(10) + kSwapIdle;
  a = o.pool.tick(ta);
  CHECK(a.swap_out == std::vector<uint64_t>{1});
  CHECK(a.grant.empty());
  // A's memory is on the host: B gets its turn; the view shows where A's memory lives.
  a = o.swapped_out(1, ta + std::chrono::milliseconds(50));
  CHECK(a.grant == std::vector<uint64_t>{2});
  PoolView view = o.pool.view(ta + std::chrono::milliseconds(50));
  const SessionView* va = find_session(view, 1);
  REQUIRE(va);
  CHECK(va->memory_host == 6 * kGiB - 512 * kMiB);
  CHECK(va->memory_used == 512 * kMiB);
  CHECK(view.swaps_out == 1);  // the counts /metrics shows
  CHECK(view.swaps_in == 0);

  // A wants again while B runs: it waits (B's whole slice is kept for it while it is active).
  const TimePoint tc = ta + std::chrono::milliseconds(100);
  CHECK(o.pool.want(1, tc).grant.empty());
  o.ran(2, 6 * kGiB, tc + std::chrono::milliseconds(10));
  // B idle long enough: B goes out, A comes back in with its grant.
  a = o.pool.tick(tc + std::chrono::milliseconds(10) + kSwapIdle);
  CHECK(a.swap_out == std::vector<uint64_t>{2});
  a = o.swapped_out(2, tc + std::chrono::milliseconds(20) + kSwapIdle);
  CHECK(a.grant == std::vector<uint64_t>{1});
  view = o.pool.view(tc + std::chrono::milliseconds(20) + kSwapIdle);
  va = find_session(view, 1);
  REQUIRE(va);
  CHECK(va->memory_host == 0);  // on its way back
  CHECK(view.swaps_out == 2);
  CHECK(view.swaps_in == 1);
}

TEST_CASE("over-commit: the longest-idle session goes first, and only as many as needed", "[pool][overcommit]") {
  DaemonConfig c = Overcommitted::make_config();
  c.tenants = {tenant("small", 3 * kGiB, 20, 100)};
  Pool pool(gpus(1, 10 * kGiB), c);
  for (uint64_t id = 1; id <= 4; ++id) {
    SessionRequest r = request(id, 0);
    admit_ok(pool, r);
  }
  // Sessions 1..3 run in turn and go idle (1 first); each holds 3 GiB.
  for (uint64_t id = 1; id <= 3; ++id) {
    const TimePoint t = t0 + std::chrono::milliseconds(10 * id);
    pool.want(id, t);
    pool.note_memory(id, 3 * kGiB, t, 3 * kGiB - 256 * kMiB);
    pool.released(id, std::chrono::milliseconds(1), t + std::chrono::milliseconds(1));
  }
  // 4 wants 3 GiB beside 9 GiB held: one must go: the longest idle, session 1.
  Actions a = pool.want(4, t0 + std::chrono::milliseconds(100) + kSwapIdle);
  CHECK(a.swap_out == std::vector<uint64_t>{1});
  CHECK(a.grant.empty());
}

TEST_CASE("over-commit: a session busy again refuses its swap-out and keeps its memory", "[pool][overcommit]") {
  Overcommitted o;
  admit_ok(o.pool, o.big(1));
  admit_ok(o.pool, o.big(2));
  o.pool.want(1, t0);
  o.ran(1, 6 * kGiB, t0);
  const TimePoint t = t0 + kSwapIdle;
  CHECK(o.pool.want(2, t).swap_out == std::vector<uint64_t>{1});
  // A's client sent a call meanwhile: its worker refuses the move. A stays, and B waits until A has
  // been idle for swap_idle again.
  Actions a = o.pool.swapped(1, false, 0, t + std::chrono::milliseconds(5));
  CHECK(a.grant.empty());
  const PoolView view = o.pool.view(t + std::chrono::milliseconds(5));
  const SessionView* va = find_session(view, 1);
  REQUIRE(va);
  CHECK(va->memory_host == 0);
  CHECK(va->memory_used == 6 * kGiB);
  CHECK(view.swaps_out == 0);  // a refused swap-out is none
}
