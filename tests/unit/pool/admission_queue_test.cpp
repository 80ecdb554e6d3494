// The admission queue: a session that does not fit waits, in priority order and first come first
// served within a priority, starts the moment capacity frees, gives up after its queue timeout,
// leaves the queue when its client does, and shows in the pool view.
#include <catch2/catch.hpp>

#include "tests/unit/pool/pool_fixtures.h"

using namespace rgpu::pool;
using namespace rgpu::pool::testing;

namespace {

// Tenants as in config(): 0 inference (4 GiB, 30%, high), 1 training (8 GiB, 50%), 3 batch (25%,
// low), 4 mem (2 GiB, 0%). A request that may wait (no queue timeout).
SessionRequest waiting(uint64_t id, size_t tenant) {
  SessionRequest r = request(id, tenant);
  r.queue_timeout.reset();
  return r;
}

size_t queued_at(Pool& pool, const SessionRequest& r, TimePoint now = t0) {
  auto a = pool.admit(r, now);
  INFO(a.status().message());
  REQUIRE(a.is_ok());
  REQUIRE_FALSE(a->slice);
  return a->position;
}

std::vector<uint64_t> admitted_ids(const Actions& a) {
  std::vector<uint64_t> ids;
  for (const auto& [id, slice] : a.admitted) ids.push_back(id);
  return ids;
}

std::vector<uint64_t> queue_ids(const Pool& pool) {
  std::vector<uint64_t> ids;
  for (const auto& q : pool.view(t0).queue) ids.push_back(q.id);
  return ids;
}

}  // namespace

TEST_CASE("a session that does not fit waits, and starts the moment its capacity frees, in arrival order") {
  Pool pool(gpus(1), config());
  admit_ok(pool, request(1, 1));  // 8 GiB, 50%
  admit_ok(pool, request(2, 1));  // the GPU is full
  CHECK(queued_at(pool, waiting(3, 1)) == 1);
  CHECK(queued_at(pool, waiting(4, 1)) == 2);
  CHECK(find_session(pool.view(t0), 3) == nullptr);  // waiting holds nothing
  CHECK(pool.view(t0).gpus[0].reserved_bytes == 16 * kGiB);

  Actions a = pool.end(1, t0 + std::chrono::seconds(3));
  REQUIRE(admitted_ids(a) == std::vector<uint64_t>{3});
  CHECK(a.admitted[0].second.gpu == 0);
  CHECK(a.admitted[0].second.memory_bytes == 8 * kGiB);
  CHECK(a.admitted[0].second.compute == 50);
  CHECK(find_session(pool.view(t0), 3) != nullptr);
  CHECK(queue_ids(pool) == std::vector<uint64_t>{4});
  CHECK(pool.queue_status(4, t0)->position == 1);

  CHECK(admitted_ids(pool.end(2, t0)) == std::vector<uint64_t>{4});
  CHECK(pool.view(t0).queue.empty());
  CHECK_FALSE(pool.queue_status(4, t0));
}

TEST_CASE("the queue is in priority order, first come first served within a priority") {
  Pool pool(gpus(1), config());
  admit_ok(pool, request(1, 1));
  admit_ok(pool, request(2, 1));
  CHECK(queued_at(pool, waiting(3, 1)) == 1);  // training, normal
  CHECK(queued_at(pool, waiting(4, 3)) == 2);  // batch, low: behind
  CHECK(queued_at(pool, waiting(5, 0)) == 1);  // inference, high: ahead of both
  CHECK(queued_at(pool, waiting(6, 0)) == 2);  // high, after the first high
  CHECK(queue_ids(pool) == std::vector<uint64_t>{5, 6, 3, 4});

  // 8 GiB / 50% free: the two inference sessions (4 GiB, 30% each) cannot both start; the first does.
  CHECK(admitted_ids(pool.end(1, t0)) == std::vector<uint64_t>{5});
  CHECK(queue_ids(pool) == std::vector<uint64_t>{6, 3, 4});
}

TEST_CASE("the queue is strict: a session that would fit waits behind one that does not") {
  Pool pool(gpus(1), config());
  admit_ok(pool, request(1, 1));  // 8 GiB, 50%
  admit_ok(pool, request(2, 0));  // 4 GiB, 30%: 4 GiB and 20% left
  CHECK(queued_at(pool, waiting(3, 1)) == 1);  // needs 8 GiB, 50%
  // 2 GiB, 0% fits now, but the training session came first at its priority.
  CHECK(queued_at(pool, waiting(4, 4)) == 2);
  const QueueStatus st = *pool.queue_status(4, t0 + std::chrono::seconds(7));
  CHECK_THAT(st.waiting_for, Catch::Contains("2048 MiB and 0% compute on one GPU (free: GPU 0 4096 MiB 20%)"));
  CHECK_THAT(st.waiting_for, Catch::Contains("behind 1 session"));
  CHECK(st.waited == std::chrono::seconds(7));
  CHECK_FALSE(st.timeout);

  // Session 2 ends: 8 GiB, 50% free. The head starts; then 0 GiB is left and session 4 waits on.
  CHECK(admitted_ids(pool.end(2, t0)) == std::vector<uint64_t>{3});
  CHECK(queue_ids(pool) == std::vector<uint64_t>{4});
  // When session 1 ends, it fits.
  CHECK(admitted_ids(pool.end(1, t0)) == std::vector<uint64_t>{4});
}

TEST_CASE("a queued session gives up after its queue timeout, the client's never longer than the tenant's") {
  DaemonConfig c = config();
  c.tenants[1].queue_timeout_s = 10;
  Pool pool(gpus(1), c);
  admit_ok(pool, request(1, 1));
  admit_ok(pool, request(2, 1));
  SessionRequest five = waiting(3, 1);
  five.queue_timeout = std::chrono::seconds(5);
  SessionRequest long_ask = waiting(4, 1);
  long_ask.queue_timeout = std::chrono::seconds(60);  // held to the tenant's 10 s

  auto a = pool.admit(five, t0);
  REQUIRE(a.is_ok());
  CHECK(a->wake == t0 + std::chrono::seconds(5));
  CHECK(pool.queue_status(3, t0)->timeout == std::chrono::seconds(5));
  REQUIRE(pool.admit(long_ask, t0).is_ok());
  CHECK(pool.queue_status(4, t0)->timeout == std::chrono::seconds(10));

  Actions early = pool.tick(t0 + std::chrono::seconds(4));
  CHECK(early.refused.empty());
  CHECK(early.wake == t0 + std::chrono::seconds(5));

  Actions due = pool.tick(t0 + std::chrono::seconds(5));
  REQUIRE(due.refused.size() == 1);
  CHECK(due.refused[0].first == 3);
  CHECK_THAT(due.refused[0].second, Catch::StartsWith("waited 5 s in the admission queue for 8192 MiB and 50% compute"));
  CHECK_THAT(due.refused[0].second, Catch::Contains("free: GPU 0 0 MiB 0%"));
  CHECK(due.wake == t0 + std::chrono::seconds(10));
  CHECK(queue_ids(pool) == std::vector<uint64_t>{4});

  CHECK(pool.tick(t0 + std::chrono::seconds(10)).refused.size() == 1);
  CHECK(pool.view(t0).queue.empty());
}

TEST_CASE("a queue timeout of 0 refuses at once, saying what is free and that it may not wait") {
  Pool pool(gpus(1), config());
  admit_ok(pool, request(1, 1));
  admit_ok(pool, request(2, 1));
  const std::string m = admit_refused(pool, request(3, 1));
  CHECK_THAT(m, Catch::StartsWith("no GPU can take a session of tenant training: it asks 8192 MiB and 50% compute; "
                                  "free: GPU 0 0 MiB 0%"));
  CHECK_THAT(m, Catch::Contains("may not wait"));
  CHECK(pool.view(t0).queue.empty());
}

TEST_CASE("what no GPU could ever hold is refused, not queued") {
  Pool pool(gpus(2, 4 * kGiB), config());
  auto a = pool.admit(waiting(1, 1), t0);  // 8 GiB on GPUs of 4 GiB
  REQUIRE_FALSE(a.is_ok());
  CHECK_THAT(a.status().message(), Catch::Contains("can ever take a session of tenant training"));
  CHECK(pool.view(t0).queue.empty());
}

TEST_CASE("a client that leaves the queue frees its place, whole-GPU sessions never queue") {
  Pool pool(gpus(1), config());
  admit_ok(pool, request(1, 1));
  admit_ok(pool, request(2, 1));
  queued_at(pool, waiting(3, 1));
  queued_at(pool, waiting(4, 1));
  Actions gone = pool.end(3, t0);
  CHECK(gone.admitted.empty());
  CHECK(queue_ids(pool) == std::vector<uint64_t>{4});
  CHECK(pool.queue_status(4, t0)->position == 1);

  auto whole = pool.admit(waiting(5, 2), t0);
  REQUIRE(whole.is_ok());
  REQUIRE(whole->slice);
  CHECK_FALSE(whole->slice->sliced());
}

TEST_CASE("a tenant's slice shrunk by set lets its queued sessions start, with the new slice") {
  Pool pool(gpus(1), config());
  admit_ok(pool, request(1, 1));
  admit_ok(pool, request(2, 1));
  queued_at(pool, waiting(3, 1));
  std::string summary;
  SliceChange change;
  change.memory_bytes = 4 * kGiB;
  change.compute = 25;
  change.compute_limit = 25;
  auto a = pool.set("training", change, t0, &summary);
  REQUIRE(a.is_ok());
  REQUIRE(admitted_ids(*a) == std::vector<uint64_t>{3});
  CHECK(a->admitted[0].second.memory_bytes == 4 * kGiB);
  CHECK(a->admitted[0].second.compute == 25);
}

TEST_CASE("the pool view lists the queue in start order, by tenant for rgpu ls") {
  Pool pool(gpus(1), config());
  admit_ok(pool, request(1, 1));
  admit_ok(pool, request(2, 1));
  queued_at(pool, waiting(3, 1), t0);
  queued_at(pool, waiting(4, 0), t0 + std::chrono::seconds(2));
  const PoolView v = pool.view(t0 + std::chrono::seconds(5));
  REQUIRE(v.queue.size() == 2);
  CHECK(v.queue[0].id == 4);
  CHECK(v.queue[0].tenant == "inference");
  CHECK(v.queue[0].status.position == 1);
  CHECK(v.queue[0].status.waited == std::chrono::seconds(3));
  CHECK(v.queue[0].host == "node4");
  CHECK(v.queue[1].id == 3);
  CHECK(v.queue[1].slice.memory_bytes == 8 * kGiB);
  const std::string training = "training";
  const PoolView mine = pool.view(t0, &training);
  REQUIRE(mine.queue.size() == 1);
  CHECK(mine.queue[0].id == 3);
}

TEST_CASE("the session next in line may make its context while it waits: one GPU, in memory no slice holds") {
  Pool pool(gpus(1), config());
  admit_ok(pool, request(1, 1));  // training: 8 GiB, 50%
  admit_ok(pool, request(2, 0));  // inference: 4 GiB, 30%; 4 GiB and 20% left
  REQUIRE(queued_at(pool, waiting(3, 1)) == 1);
  REQUIRE(queued_at(pool, waiting(4, 1)) == 2);
  CHECK(pool.queue_status(3, t0)->warm);
  CHECK_FALSE(pool.queue_status(4, t0)->warm);  // one context made ahead per GPU at most
  REQUIRE(pool.queue_head());
  CHECK(pool.queue_head()->session == 3);
  CHECK(pool.queue_head()->warm);

  // 3 starts; 4 is next, but the slices now hold the whole GPU.
  REQUIRE(admitted_ids(pool.end(2, t0)) == std::vector<uint64_t>{3});
  CHECK(pool.queue_head()->session == 4);
  CHECK_FALSE(pool.queue_head()->warm);
  CHECK_FALSE(pool.queue_status(4, t0)->warm);

  // A GPU the health probe lost is no place to make one.
  REQUIRE(admitted_ids(pool.end(1, t0)) == std::vector<uint64_t>{4});
  pool.end(3, t0);
  admit_ok(pool, request(6, 0));  // 4 and 6: 12 GiB and 80% again
  REQUIRE(queued_at(pool, waiting(5, 1)) == 1);
  CHECK(pool.queue_status(5, t0)->warm);
  std::vector<std::string> changes;
  (void)pool.set_gpu_health({false}, t0, &changes);
  CHECK_FALSE(pool.queue_status(5, t0)->warm);

  pool.end(5, t0);
  CHECK_FALSE(pool.queue_head());
}

TEST_CASE("with several GPUs a queued session's GPU is not known, so it makes no context ahead") {
  Pool pool(gpus(2), config());
  // Training and inference on each GPU: 12 GiB and 80% of each held, 4 GiB free on both.
  for (uint64_t id : {1, 2, 3, 4}) admit_ok(pool, request(id, id % 2 ? 1 : 0));
  REQUIRE(pool.view(t0).gpus[1].reserved_bytes == 12 * kGiB);
  REQUIRE(queued_at(pool, waiting(9, 1)) == 1);
  CHECK_FALSE(pool.queue_status(9, t0)->warm);
  CHECK_FALSE(pool.queue_head()->warm);
}
