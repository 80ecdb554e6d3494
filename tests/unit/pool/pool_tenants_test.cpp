// Tenants added and removed while rgpud runs: the Pool's add_tenant / remove_tenant and the
// control API's `tenant list|add|remove`.
#include "server/pool/pool_admin.h"
#include "tests/unit/pool/pool_fixtures.h"

using namespace rgpu::pool;
using namespace rgpu::pool::testing;

namespace {

const AdminCaller kAdmin{true, ""};

AdminReply call(Pool& pool, std::vector<std::string> args, bool json = false, const AdminCaller& who = kAdmin) {
  return handle_admin(pool, who, AdminRequest{"tenant", std::move(args), json}, t0);
}

}  // namespace

TEST_CASE("a tenant added through the control API admits sessions with its slice, removed, it admits none") {
  Pool pool(gpus(1), config());
  AdminReply added = call(pool, {"add", "ns/pod/ctr", "token=tA", "token=tB", "memory=4096M", "compute=10"});
  INFO(added.text);
  REQUIRE(added.ok);
  CHECK(added.tenants_changed);
  const std::optional<size_t> index = pool.find_tenant("ns/pod/ctr");
  REQUIRE(index);
  const TenantSpec& t = pool.config().tenants[*index];
  CHECK(t.token == "tA");
  CHECK(t.aliases == std::vector<std::string>{"tB"});
  CHECK(t.memory_bytes == 4 * kGiB);
  CHECK(t.compute == 10);
  CHECK(t.compute_limit == 10);  // as in the file: the cap defaults to the guarantee

  const Slice s = admit_ok(pool, request(1, *index));
  CHECK(s.memory_bytes == 4 * kGiB);
  CHECK(s.compute == 10);
  CHECK(s.compute_limit == 10);

  AdminReply list = call(pool, {"list"}, true);
  REQUIRE(list.ok);
  CHECK_THAT(list.text, Catch::Contains(R"({"name":"ns/pod/ctr","memory_slice_bytes":4294967296,"memory_host_bytes":0,)"
                                        R"("compute_percent":10,"compute_limit_percent":10,"priority":0})"));
  CHECK_THAT(list.text, !Catch::Contains("tA"));  // secrets are never shown

  AdminReply removed = call(pool, {"remove", "ns/pod/ctr"});
  REQUIRE(removed.ok);
  CHECK(removed.tenants_changed);
  CHECK_FALSE(pool.find_tenant("ns/pod/ctr"));
  CHECK(pool.tenant_removed(*index));
  CHECK(pool.config().tenants[*index].token.empty());
  CHECK(pool.config().tenants[*index].aliases.empty());
  // Its running session keeps its slice until it ends; a new one is refused.
  CHECK(find_session(pool.view(t0), 1) != nullptr);
  CHECK_THAT(admit_refused(pool, request(2, *index)), Catch::Contains("was removed"));
  (void)pool.end(1, t0);
  CHECK(pool.view(t0).sessions.empty());
  // The name can be used again; it is a new tenant with a new index.
  REQUIRE(call(pool, {"add", "ns/pod/ctr", "token=tC"}).ok);
  CHECK(pool.find_tenant("ns/pod/ctr") != index);
}

TEST_CASE("tenant add refuses what would make a token or a name ambiguous, and bad arguments") {
  Pool pool(gpus(1), config());
  auto refused = [&](std::vector<std::string> args) {
    AdminReply r = call(pool, std::move(args));
    CHECK_FALSE(r.ok);
    CHECK_FALSE(r.tenants_changed);
    return r.text;
  };
  CHECK_THAT(refused({"add", "inference", "token=new"}), Catch::Contains("exists already"));
  CHECK_THAT(refused({"add", "x", "token=tok-training"}), Catch::Contains("tenant 'training''s already"));
  CHECK_THAT(refused({"add", "x", "token=admin"}), Catch::Contains("admin token"));
  CHECK_THAT(refused({"add", "x", "token=a", "token=a"}), Catch::Contains("given twice"));
  CHECK_THAT(refused({"add", "x"}), Catch::Contains("needs token=SECRET"));
  CHECK_THAT(refused({"add", "42", "token=a"}), Catch::Contains("all digits"));
  CHECK_THAT(refused({"add", "a b", "token=a"}), Catch::Contains("name must be"));
  CHECK_THAT(refused({"add", "x", "token=a", "memroy=1G"}), Catch::Contains("did you mean 'memory'?"));
  CHECK_THAT(refused({"add", "x", "token=a", "memory=1G", "memory=2G"}), Catch::Contains("'memory' is given twice"));
  CHECK_THAT(refused({"add", "x", "token=a", "compute=50", "compute_limit=20"}), Catch::Contains("compute_limit"));
  CHECK_THAT(refused({"add", "x", "token=a", "priority=urgent"}), Catch::Contains("priority must be"));
  CHECK_THAT(refused({"remove", "nobody"}), Catch::Contains("no tenant 'nobody'"));
  CHECK_THAT(refused({"frob"}), Catch::StartsWith("usage: tenant list"));
  CHECK_FALSE(pool.find_tenant("x"));

  AdminReply tenant_caller = call(pool, {"list"}, false, AdminCaller{false, "inference"});
  CHECK_FALSE(tenant_caller.ok);
  CHECK_THAT(tenant_caller.text, Catch::Contains("needs the admin token"));
}

TEST_CASE("removing a tenant refuses its queued sessions and starts those that waited behind them") {
  Pool pool(gpus(1), config());
  REQUIRE(call(pool, {"add", "big", "token=tb", "memory=10G"}).ok);
  const size_t big = *pool.find_tenant("big");
  SessionRequest first = request(1, big);
  admit_ok(pool, first);
  SessionRequest second = request(2, big);
  second.queue_timeout.reset();
  REQUIRE(pool.admit(second, t0).is_ok());  // queued: 10 of 16 GiB held
  SessionRequest third = request(3, 1);     // training, 8 GiB: behind it (strict order)
  third.queue_timeout.reset();
  REQUIRE(pool.admit(third, t0).is_ok());
  REQUIRE(pool.view(t0).queue.size() == 2);

  AdminReply removed = call(pool, {"remove", "big"});
  REQUIRE(removed.ok);
  REQUIRE(removed.actions.refused.size() == 1);
  CHECK(removed.actions.refused[0].first == 2);
  CHECK_THAT(removed.actions.refused[0].second, Catch::Contains("tenant big was removed"));
  REQUIRE(pool.view(t0).queue.size() == 1);  // training waits: session 1 still holds 10 of 16 GiB
  CHECK(pool.view(t0).queue[0].id == 3);
  Actions ended = pool.end(1, t0);
  REQUIRE(ended.admitted.size() == 1);
  CHECK(ended.admitted[0].first == 3);
  CHECK(pool.view(t0).queue.empty());
}

TEST_CASE("a reload of the file adds, changes and removes the file's tenants and keeps the control API's") {
  Pool pool(gpus(1), config());
  REQUIRE(call(pool, {"add", "pod", "token=tp", "memory=1G"}).ok);
  const size_t training = *pool.find_tenant("training");
  admit_ok(pool, request(1, training));  // 8 GiB, 50 %
  (void)pool.note_memory(1, 6 * kGiB, t0);

  DaemonConfig next = config();
  next.tenants.erase(next.tenants.begin() + 4);                          // mem: gone
  next.tenants[1].memory_bytes = 10 * kGiB;                              // training grows
  next.tenants[0].priority = kPriorityLow;                               // inference: later sessions
  next.tenants.push_back(tenant("fresh", 1 * kGiB, 5, 5));               // new
  next.policy.placement = Placement::kSpread;
  next.policy.quantum_ms = 20;
  std::vector<std::string> log;
  Actions actions = pool.reload(next, t0, &log);
  INFO(Catch::Detail::stringify(log));
  CHECK_FALSE(pool.find_tenant("mem"));
  REQUIRE(pool.find_tenant("fresh"));
  REQUIRE(pool.find_tenant("pod"));  // added live: kept
  CHECK(pool.config().tenants[*pool.find_tenant("inference")].priority == kPriorityLow);
  REQUIRE(actions.reslice.size() == 1);  // the running training session grew
  CHECK(actions.reslice[0].first == 1);
  CHECK(actions.reslice[0].second.memory_bytes == 10 * kGiB);
  CHECK(pool.config().policy.placement == Placement::kSpread);
  CHECK(pool.config().policy.quantum_ms == 10);  // needs a restart, and says so
  CHECK(std::count_if(log.begin(), log.end(), [](const std::string& l) { return l.find("restarts") != std::string::npos; }) == 1);

  // A shrink below what the running session holds is refused as `set` refuses it: the old spec stays.
  next.tenants[1].memory_bytes = 4 * kGiB;
  log.clear();
  (void)pool.reload(next, t0, &log);
  CHECK(pool.config().tenants[training].memory_bytes == 10 * kGiB);
  CHECK(std::any_of(log.begin(), log.end(), [](const std::string& l) { return l.find("keeps its old spec") != std::string::npos; }));
}

TEST_CASE("an unhealthy GPU takes no new session, healthy again, it starts the queued ones") {
  Pool pool(gpus(2), config(Placement::kPack));
  std::vector<std::string> changes;
  (void)pool.set_gpu_health({false, true}, t0, &changes);
  REQUIRE(changes.size() == 1);
  CHECK_THAT(changes[0], Catch::StartsWith("GPU 0 (H200-0) is unhealthy"));
  CHECK_FALSE(pool.view(t0).gpus[0].healthy);
  CHECK(pool.view(t0).gpus[1].healthy);
  CHECK(admit_ok(pool, request(1, 1)).gpu == 1);  // pack would take GPU 0
  CHECK(admit_ok(pool, request(2, 1)).gpu == 1);  // GPU 1 now full: 2 x 8 GiB, 2 x 50 %
  SessionRequest waits = request(3, 1);            // GPU 1 full, GPU 0 unhealthy: it waits
  waits.queue_timeout.reset();
  REQUIRE(pool.admit(waits, t0).is_ok());
  REQUIRE(pool.view(t0).queue.size() == 1);
  changes.clear();
  (void)pool.set_gpu_health({false, true}, t0, &changes);
  CHECK(changes.empty());  // no change, no line
  Actions back = pool.set_gpu_health({true, true}, t0, &changes);
  REQUIRE(back.admitted.size() == 1);
  CHECK(back.admitted[0].first == 3);
  CHECK(back.admitted[0].second.gpu == 0);
  CHECK_THAT(changes.back(), Catch::Contains("healthy again"));
}
