// The pool's books: admission and its refusals, placement (pack, spread), the guarantees on a GPU
// never adding up to more than it has, live changes (set) and release (end), and the view.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "tests/unit/pool/pool_fixtures.h"

using namespace rgpu::pool;
using namespace rgpu::pool::testing;


TEST_CASE("a session gets its tenant's slice when it asks for nothing") {
  Pool pool(gpus(1), config());
  Slice s = admit_ok(pool, request(1, 0));
  CHECK(s.gpu == 0);
  CHECK(s.memory_bytes == 4 * kGiB);
  CHECK(s.compute == 30);
  CHECK(s.compute_limit == 60);
  CHECK(s.priority == kPriorityHigh);
  CHECK(s.sliced());
}

TEST_CASE("a client's RGPU_MEMORY / RGPU_COMPUTE lower the slice within the tenant's") {
  Pool pool(gpus(1), config());
  Slice mem = admit_ok(pool, request(1, 0, 2048 * kMiB));
  CHECK(mem.memory_bytes == 2048 * kMiB);
  CHECK(mem.compute == 30);
  CHECK(mem.compute_limit == 60);

  // Asking 20%: guaranteed 20 and capped at 20.
  Slice low = admit_ok(pool, request(2, 0, 0, 20));
  CHECK(low.compute == 20);
  CHECK(low.compute_limit == 20);
  CHECK(low.memory_bytes == 4 * kGiB);

  // Asking 50% of a 30%/60% tenant: the guarantee stays the tenant's, the cap becomes 50.
  Slice mid = admit_ok(pool, request(3, 0, 0, 50));
  CHECK(mid.compute == 30);
  CHECK(mid.compute_limit == 50);

  // A part of a MiB is rounded up to whole MiB.
  Slice odd = admit_ok(pool, request(4, 4, 100 * kMiB + 1));
  CHECK(odd.memory_bytes == 101 * kMiB);
}

TEST_CASE("a request above the tenant's slice is refused, naming the tenant's limit") {
  Pool pool(gpus(1), config());
  CHECK_THAT(admit_refused(pool, request(1, 0, 8192 * kMiB)),
             Catch::StartsWith("tenant inference allows at most 4096 MiB; RGPU_MEMORY asked 8192 MiB"));
  CHECK_THAT(admit_refused(pool, request(2, 0, 0, 70)),
             Catch::StartsWith("tenant inference allows at most 60% compute; RGPU_COMPUTE asked 70%"));
  CHECK_THAT(admit_refused(pool, request(3, 2, 0, 101)), Catch::Contains("RGPU_COMPUTE asked 101%; it must be 1..100"));
  CHECK(pool.view(t0).sessions.empty());
}

TEST_CASE("whole-GPU sessions reserve nothing and are not arbitrated") {
  Pool pool(gpus(2), config());
  Slice s = admit_ok(pool, request(1, 2));
  CHECK_FALSE(s.sliced());
  CHECK(s.gpu == -1);
  Actions a = pool.want(1, t0);
  CHECK(a.grant.empty());
  CHECK(a.revoke.empty());
  PoolView v = pool.view(t0);
  for (const auto& g : v.gpus) {
    CHECK(g.reserved_bytes == 0);
    CHECK(g.compute_reserved == 0);
    CHECK(g.sessions == 0);
  }
  REQUIRE(v.sessions.size() == 1);
  CHECK_FALSE(v.sessions[0].slice.sliced());

  // A whole-GPU tenant's client asking for a slice gets exactly that, guaranteed and capped.
  Slice asked = admit_ok(pool, request(2, 2, 1024 * kMiB, 40));
  CHECK(asked.sliced());
  CHECK(asked.memory_bytes == 1024 * kMiB);
  CHECK(asked.compute == 40);
  CHECK(asked.compute_limit == 40);
}

TEST_CASE("pack fills one GPU before the next") {
  Pool pool(gpus(3), config(Placement::kPack));
  // training: 8 GiB and 50% each; a 16 GiB GPU takes two.
  CHECK(admit_ok(pool, request(1, 1)).gpu == 0);
  CHECK(admit_ok(pool, request(2, 1)).gpu == 0);
  CHECK(admit_ok(pool, request(3, 1)).gpu == 1);
  // A 2 GiB best-effort session goes where the least memory is free that still fits: GPU 1.
  CHECK(admit_ok(pool, request(4, 4)).gpu == 1);
  CHECK(admit_ok(pool, request(5, 1)).gpu == 2);  // GPU 1 has 6 GiB free, 8 needed
}

TEST_CASE("pack picks the best fit among GPUs of different sizes") {
  std::vector<GpuInfo> g = {{"big", 32 * kGiB}, {"small", 8 * kGiB}};
  Pool pool(g, config(Placement::kPack));
  CHECK(admit_ok(pool, request(1, 0)).gpu == 1);  // 4 GiB: the small GPU is the tighter fit
  CHECK(admit_ok(pool, request(2, 0)).gpu == 1);
  CHECK(admit_ok(pool, request(3, 0)).gpu == 0);  // the small one is full
}

TEST_CASE("spread picks the GPU with the most free") {
  Pool pool(gpus(3), config(Placement::kSpread));
  CHECK(admit_ok(pool, request(1, 0)).gpu == 0);
  CHECK(admit_ok(pool, request(2, 0)).gpu == 1);
  CHECK(admit_ok(pool, request(3, 0)).gpu == 2);
  CHECK(admit_ok(pool, request(4, 4)).gpu == 0);  // all have 12 GiB free: the lowest index
  CHECK(admit_ok(pool, request(5, 0)).gpu == 1);  // GPU 0 has 10 GiB free now, 1 and 2 have 12
  CHECK(admit_ok(pool, request(6, 0)).gpu == 2);
}

TEST_CASE("sessions without a memory slice are placed by compute") {
  SECTION("pack") {
    Pool pool(gpus(2), config(Placement::kPack));
    for (uint64_t id = 1; id <= 4; ++id) CHECK(admit_ok(pool, request(id, 3)).gpu == 0);  // 4 x 25%
    CHECK(admit_ok(pool, request(5, 3)).gpu == 1);
    PoolView v = pool.view(t0);
    CHECK(v.gpus[0].compute_reserved == 100);
    CHECK(v.gpus[0].reserved_bytes == 0);  // no memory slice, nothing used yet
  }
  SECTION("spread") {
    Pool pool(gpus(2), config(Placement::kSpread));
    CHECK(admit_ok(pool, request(1, 3)).gpu == 0);
    CHECK(admit_ok(pool, request(2, 3)).gpu == 1);
    CHECK(admit_ok(pool, request(3, 3)).gpu == 0);
  }
}

TEST_CASE("a full pool refuses, saying what was asked and what each GPU has free") {
  Pool pool(gpus(2), config(Placement::kPack));
  admit_ok(pool, request(1, 1));  // GPU 0: 8 GiB, 50%
  admit_ok(pool, request(2, 0));  // GPU 0: 12 GiB, 80%
  admit_ok(pool, request(3, 1));  // GPU 0 cannot take 50% more: GPU 1, 8 GiB, 50%
  admit_ok(pool, request(4, 1));  // GPU 1: 16 GiB, 100%
  const std::string m = admit_refused(pool, request(5, 1));
  CHECK_THAT(m, Catch::StartsWith("no GPU can take a session of tenant training: it asks 8192 MiB and 50% compute; "
                                  "free: GPU 0 4096 MiB 20%, GPU 1 0 MiB 0%"));
  CHECK_THAT(m, Catch::Contains("RGPU_MEMORY / RGPU_COMPUTE"));
  auto refused = pool.admit(request(5, 1), t0);
  CHECK(refused.status().code() == rgpu::Code::kUnavailable);
  CHECK(find_session(pool.view(t0), 5) == nullptr);

  Pool none({}, config());
  CHECK_THAT(admit_refused(none, request(1, 0)), Catch::Contains("has no GPUs"));
}

TEST_CASE("the guarantees on a GPU never add up to more than it has") {
  std::mt19937 rng(42);
  for (Placement placement : {Placement::kPack, Placement::kSpread}) {
    Pool pool(gpus(3), config(placement));
    std::vector<uint64_t> live;
    uint64_t next = 1;
    size_t admitted = 0, refused = 0;
    for (int step = 0; step < 600; ++step) {
      if (!live.empty() && rng() % 3 == 0) {
        const size_t k = rng() % live.size();
        (void)pool.end(live[k], t0);
        live.erase(live.begin() + static_cast<long>(k));
      } else {
        const size_t t = rng() % 5;
        const uint64_t mem = (rng() % 2) ? (1 + rng() % 2048) * kMiB : 0;
        const uint32_t compute = (rng() % 2) ? 1 + rng() % 60 : 0;
        auto s = pool.admit(request(next, t, mem, compute), t0);
        if (s.is_ok()) live.push_back(next), ++admitted;
        else ++refused;
        ++next;
      }
      const PoolView v = pool.view(t0);
      for (const auto& g : v.gpus) {
        REQUIRE(g.compute_reserved <= 100);
        REQUIRE(g.reserved_bytes <= g.total_bytes);
      }
    }
    CHECK(admitted > 0);
    CHECK(refused > 0);  // the pool did fill up
  }
}

TEST_CASE("end() returns the slice to the pool at once") {
  Pool pool(gpus(1), config());
  admit_ok(pool, request(1, 1));
  admit_ok(pool, request(2, 1));
  CHECK_FALSE(pool.admit(request(3, 1), t0).is_ok());
  (void)pool.end(1, t0);
  PoolView v = pool.view(t0);
  CHECK(v.gpus[0].reserved_bytes == 8 * kGiB);
  CHECK(v.gpus[0].compute_reserved == 50);
  CHECK(v.gpus[0].sessions == 1);
  CHECK(find_session(v, 1) == nullptr);
  CHECK(admit_ok(pool, request(3, 1)).gpu == 0);
  // Ending an unknown or already ended session does nothing.
  Actions again = pool.end(1, t0);
  CHECK(again.grant.empty());
  CHECK(again.revoke.empty());
}

TEST_CASE("want is granted on an idle GPU, and ending the holder passes the turn") {
  Pool pool(gpus(1), config());
  admit_ok(pool, request(1, 0));
  admit_ok(pool, request(2, 0));
  Actions a = pool.want(1, t0);
  CHECK(contains(a.grant, 1));
  Actions b = pool.want(2, t0 + std::chrono::microseconds(10));
  CHECK_FALSE(contains(b.grant, 2));  // session 1 holds the GPU
  Actions e = pool.end(1, t0 + std::chrono::microseconds(20));
  CHECK(contains(e.grant, 2));
}

TEST_CASE("note_memory counts toward the GPU's use and, above the slice, its reservation") {
  Pool pool(gpus(1), config());
  admit_ok(pool, request(1, 0));  // 4 GiB
  admit_ok(pool, request(2, 3));  // no memory slice
  (void)pool.note_memory(1, 1 * kGiB, t0);
  (void)pool.note_memory(2, 3 * kGiB, t0);
  (void)pool.note_memory(99, 5 * kGiB, t0);  // unknown: ignored
  PoolView v = pool.view(t0);
  CHECK(v.gpus[0].used_bytes == 4 * kGiB);
  CHECK(v.gpus[0].reserved_bytes == 7 * kGiB);  // max(4, 1) + max(0, 3)
  CHECK(find_session(v, 1)->memory_used == 1 * kGiB);
}

TEST_CASE("set on a tenant changes its running sessions and later ones") {
  Pool pool(gpus(1, 32 * kGiB), config());
  admit_ok(pool, request(1, 0));
  admit_ok(pool, request(2, 0, 0, 20));  // asked 20%: stays capped by its own request
  admit_ok(pool, request(3, 4));         // another tenant: untouched
  SliceChange change;
  change.memory_bytes = 8 * kGiB;
  change.compute = 40;
  std::string summary;
  auto r = pool.set("inference", change, t0, &summary);
  INFO(r.status().message());
  REQUIRE(r.is_ok());
  CHECK(summary == "tenant inference: memory 4096 -> 8192 MiB, compute 30 -> 40%; 2 running sessions resliced");
  REQUIRE(r->reslice.size() == 2);
  CHECK(r->reslice[0].first == 1);
  CHECK(r->reslice[0].second.memory_bytes == 8 * kGiB);
  CHECK(r->reslice[0].second.compute == 40);
  CHECK(r->reslice[0].second.compute_limit == 60);
  CHECK(r->reslice[0].second.gpu == 0);
  CHECK(r->reslice[1].first == 2);
  CHECK(r->reslice[1].second.compute == 20);
  CHECK(r->reslice[1].second.compute_limit == 20);
  CHECK(pool.config().tenants[0].memory_bytes == 8 * kGiB);
  CHECK(pool.config().tenants[0].compute == 40);

  Slice later = admit_ok(pool, request(4, 0));
  CHECK(later.memory_bytes == 8 * kGiB);
  CHECK(later.compute == 40);
  const PoolView v = pool.view(t0);
  CHECK(find_session(v, 1)->slice.memory_bytes == 8 * kGiB);
  CHECK(find_session(v, 3)->slice.memory_bytes == 2 * kGiB);  // tenant mem's own 2 GiB
  CHECK(v.gpus[0].compute_reserved == 100);                    // 40 + 20 + 0 + 40
}

TEST_CASE("set refuses what the GPU cannot hold, and changes nothing then") {
  Pool pool(gpus(1), config());
  admit_ok(pool, request(1, 0));  // 30%
  admit_ok(pool, request(2, 1));  // 50%
  SliceChange change;
  change.compute = 60;
  std::string summary = "untouched";
  auto r = pool.set("inference", change, t0, &summary);
  REQUIRE_FALSE(r.is_ok());
  CHECK_THAT(r.status().message(), Catch::StartsWith("tenant inference: GPU 0 cannot hold it: its compute guarantees "
                                                     "would add up to 110% (20% free now)"));
  CHECK(summary == "untouched");
  CHECK(pool.config().tenants[0].compute == 30);
  CHECK(pool.view(t0).gpus[0].compute_reserved == 80);

  SliceChange memory;
  memory.memory_bytes = 12 * kGiB;
  auto m = pool.set("1", memory, t0, &summary);
  REQUIRE_FALSE(m.is_ok());
  CHECK_THAT(m.status().message(), Catch::StartsWith("session 1 (tenant inference): GPU 0 cannot hold it: its "
                                                     "reservations would add up to 20480 MiB of 16384 MiB (4096 MiB free now)"));
  CHECK(pool.view(t0).gpus[0].reserved_bytes == 12 * kGiB);

  SliceChange too_big;
  too_big.memory_bytes = 64 * kGiB;
  auto b = pool.set("training", too_big, t0, &summary);
  REQUIRE_FALSE(b.is_ok());
  CHECK_THAT(b.status().message(), Catch::Contains("is more than any GPU has (the largest has 16384 MiB)"));
}

TEST_CASE("set on a session: its slice only, with the cap raised to the guarantee if below") {
  Pool pool(gpus(1), config());
  admit_ok(pool, request(1, 0));
  admit_ok(pool, request(2, 0));
  SliceChange change;
  change.compute = 65;
  std::string summary;
  auto r = pool.set("1", change, t0, &summary);
  REQUIRE(r.is_ok());
  CHECK(summary == "session 1 (tenant inference): compute 30 -> 65%, compute_limit 60 -> 65%");
  REQUIRE(r->reslice.size() == 1);
  CHECK(r->reslice[0].first == 1);
  CHECK(r->reslice[0].second.compute == 65);
  CHECK(r->reslice[0].second.compute_limit == 65);
  CHECK(pool.config().tenants[0].compute == 30);  // the tenant is unchanged
  CHECK(pool.view(t0).gpus[0].compute_reserved == 95);

  SliceChange bad;
  bad.compute_limit = 20;  // below its compute 65
  auto b = pool.set("1", bad, t0, &summary);
  REQUIRE_FALSE(b.is_ok());
  CHECK_THAT(b.status().message(), Catch::StartsWith("compute_limit 20% would be below compute 65%"));
}

TEST_CASE("set refuses to shrink memory below what a session holds, unless when_free") {
  Pool pool(gpus(1), config());
  admit_ok(pool, request(1, 0));  // 4 GiB
  (void)pool.note_memory(1, 3 * kGiB, t0);
  SliceChange change;
  change.memory_bytes = 2 * kGiB;
  std::string summary;
  auto r = pool.set("1", change, t0, &summary);
  REQUIRE_FALSE(r.is_ok());
  CHECK_THAT(r.status().message(), Catch::StartsWith("session 1 holds 3072 MiB; memory 2048 MiB would be below it"));
  CHECK_THAT(r.status().message(), Catch::Contains("when_free=1"));
  CHECK(pool.view(t0).sessions[0].slice.memory_bytes == 4 * kGiB);

  change.when_free = true;
  auto w = pool.set("1", change, t0, &summary);
  REQUIRE(w.is_ok());
  CHECK(summary == "session 1 (tenant inference): memory 4096 -> 2048 MiB; session 1 keeps 3072 MiB reserved until it "
                   "frees it (when_free)");
  REQUIRE(w->reslice.size() == 1);
  CHECK(w->reslice[0].second.memory_bytes == 2 * kGiB);
  // What it holds stays reserved until it frees it.
  CHECK(pool.view(t0).gpus[0].reserved_bytes == 3 * kGiB);
  (void)pool.note_memory(1, 1 * kGiB, t0);
  CHECK(pool.view(t0).gpus[0].reserved_bytes == 2 * kGiB);
}

TEST_CASE("set names what it cannot find or change") {
  Pool pool(gpus(1), config());
  admit_ok(pool, request(1, 2));  // whole GPU
  SliceChange change;
  change.compute = 10;
  std::string summary;
  auto none = pool.set("42", change, t0, &summary);
  REQUIRE_FALSE(none.is_ok());
  CHECK_THAT(none.status().message(), Catch::StartsWith("no session 42 (`rgpu pool` lists the sessions)"));
  auto who = pool.set("nobody", change, t0, &summary);
  REQUIRE_FALSE(who.is_ok());
  CHECK_THAT(who.status().message(),
             Catch::StartsWith("no tenant 'nobody' and it is not a session id (tenants: inference, training, whole, batch, mem"));
  auto whole = pool.set("1", change, t0, &summary);
  REQUIRE_FALSE(whole.is_ok());
  CHECK_THAT(whole.status().message(), Catch::StartsWith("session 1 (tenant whole) has whole GPUs and no slice"));
  auto nothing = pool.set("inference", SliceChange{}, t0, &summary);
  REQUIRE_FALSE(nothing.is_ok());
  CHECK_THAT(nothing.status().message(), Catch::StartsWith("nothing to change"));

  // A tenant with no running sessions: only the spec changes.
  auto later = pool.set("batch", change, t0, &summary);
  REQUIRE(later.is_ok());
  CHECK(later->reslice.empty());
  CHECK(summary == "tenant batch: compute 25 -> 10%; no running session changed");
  CHECK(pool.config().tenants[3].compute == 10);
  CHECK(pool.config().tenants[3].compute_limit == 25);
}

TEST_CASE("view: the GPUs' books and each session's details, filtered by tenant") {
  Pool pool(gpus(2), config(Placement::kSpread));
  admit_ok(pool, request(1, 0), t0);                              // GPU 0
  admit_ok(pool, request(2, 1), t0 + std::chrono::seconds(5));    // GPU 1
  admit_ok(pool, request(3, 2), t0 + std::chrono::seconds(10));   // whole GPU
  (void)pool.note_memory(1, 1000 * kMiB, t0);
  (void)pool.note_memory(2, 9 * kGiB, t0);
  const TimePoint now = t0 + std::chrono::seconds(65);
  PoolView v = pool.view(now);
  REQUIRE(v.gpus.size() == 2);
  CHECK(v.gpus[0].index == 0);
  CHECK(v.gpus[0].name == "H200-0");
  CHECK(v.gpus[0].total_bytes == 16 * kGiB);
  CHECK(v.gpus[0].reserved_bytes == 4 * kGiB);
  CHECK(v.gpus[0].used_bytes == 1000 * kMiB);
  CHECK(v.gpus[0].compute_reserved == 30);
  CHECK(v.gpus[0].sessions == 1);
  CHECK(v.gpus[1].reserved_bytes == 9 * kGiB);  // holds more than its 8 GiB slice
  CHECK(v.gpus[1].compute_reserved == 50);
  CHECK(v.gpus[0].busy >= 0.0);
  CHECK(v.gpus[0].busy <= 1.0);

  REQUIRE(v.sessions.size() == 3);
  CHECK(v.sessions[0].id == 1);
  CHECK(v.sessions[0].tenant == "inference");
  CHECK(v.sessions[0].host == "node1");
  CHECK(v.sessions[0].program == "prog1");
  CHECK(v.sessions[0].pid == 1001);
  CHECK(v.sessions[0].slice.gpu == 0);
  CHECK(v.sessions[0].memory_used == 1000 * kMiB);
  CHECK(v.sessions[0].age_s == Approx(65.0));
  CHECK(v.sessions[1].age_s == Approx(60.0));
  CHECK(v.sessions[2].id == 3);
  CHECK(v.sessions[2].slice.gpu == -1);
  CHECK(v.sessions[2].share == 0.0);

  const std::string training = "training";
  PoolView mine = pool.view(now, &training);
  CHECK(mine.gpus.size() == 2);  // every GPU
  REQUIRE(mine.sessions.size() == 1);
  CHECK(mine.sessions[0].id == 2);
}
