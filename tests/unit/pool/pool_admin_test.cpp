// The pool's control API, called in-process: the handler table (help, permissions, unknown
// requests), `pool` / `ls` in text and JSON, and `set`'s parsing and effect.
#include <catch2/catch.hpp>


#include "server/pool/pool_admin.h"
#include "tests/unit/json_checker.h"

using namespace rgpu::pool;
using rgpu::test::valid_json;

namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;
const TimePoint t0{std::chrono::seconds(500)};

TenantSpec tenant(std::string name, uint64_t memory, uint32_t compute, uint32_t limit, int priority) {
  TenantSpec t;
  t.name = std::move(name);
  t.token = "tok-" + t.name;
  t.memory_bytes = memory;
  t.compute = compute;
  t.compute_limit = limit;
  t.priority = priority;
  return t;
}

struct Fixture {
  Pool pool;
  Fixture() : pool(gpus(), cfg()) {
    SessionRequest a;
    a.session_id = 7;
    a.tenant = 0;
    a.host = "node1";
    a.program = "python3";
    a.pid = 4242;
    REQUIRE(pool.admit(a, t0).is_ok());
    SessionRequest b = a;
    b.session_id = 9;
    b.tenant = 1;
    b.host = "node2";
    b.program = "train\"x\"\n\x01\xff.py";  // quotes, a newline, a control byte, invalid UTF-8
    b.pid = 77;
    REQUIRE(pool.admit(b, t0 + std::chrono::seconds(60)).is_ok());
    (void)pool.note_memory(7, 3000 * kMiB, t0);
  }
  static std::vector<GpuInfo> gpus() { return {{"NVIDIA H200", 16 * kGiB}, {"NVIDIA H200", 16 * kGiB}}; }
  static DaemonConfig cfg() {
    DaemonConfig c;
    c.admin_token = "admin";
    c.policy.placement = Placement::kSpread;
    c.tenants = {tenant("inference", 4 * kGiB, 30, 60, kPriorityHigh), tenant("training", 8 * kGiB, 50, 50, kPriorityLow)};
    return c;
  }
  AdminReply call(const AdminCaller& who, std::string verb, std::vector<std::string> args = {}, bool json = false,
                  TimePoint now = t0 + std::chrono::seconds(65)) {
    return handle_admin(pool, who, AdminRequest{std::move(verb), std::move(args), json}, now);
  }
};

const AdminCaller kAdmin{true, ""};
const AdminCaller kInference{false, "inference"};

}  // namespace

TEST_CASE("help is generated from the handler table") {
  Fixture f;
  AdminReply all = f.call(kInference, "help");
  REQUIRE(all.ok);
  for (const char* usage : {"  pool\n", "  ls\n", "  set TARGET [memory=SIZE] [compute=PERCENT] [compute_limit=PERCENT] [when_free=1]\n",
                            "  help [REQUEST]\n"})
    CHECK_THAT(all.text, Catch::Contains(usage));
  CHECK_THAT(all.text, Catch::Contains("[admin, changes the pool]"));  // set's flags
  AdminReply one = f.call(kInference, "help", {"set"});
  REQUIRE(one.ok);
  CHECK_THAT(one.text, Catch::StartsWith("  set TARGET"));
  CHECK_THAT(one.text, !Catch::Contains("  ls\n"));
  AdminReply bad = f.call(kInference, "help", {"sett"});
  CHECK_FALSE(bad.ok);
  CHECK(bad.text == "no request 'sett' (requests: pool, ls, set, tenant, help)");

  AdminReply json = f.call(kInference, "help", {}, true);
  REQUIRE(json.ok);
  CHECK(valid_json(json.text));
  CHECK_THAT(json.text, Catch::Contains(R"({"name":"set","usage":"set TARGET [memory=SIZE] [compute=PERCENT] [compute_limit=PERCENT] [when_free=1]",)"));
  CHECK_THAT(json.text, Catch::Contains(R"("mutates":true,"admin_only":true})"));
  CHECK_THAT(json.text, Catch::Contains(R"j({"name":"ls","usage":"ls","help":"the GPUs and your own sessions (the admin sees all)","mutates":false,"admin_only":false})j"));
}

TEST_CASE("unknown requests and stray arguments say what to do") {
  Fixture f;
  AdminReply r = f.call(kAdmin, "lss");
  CHECK_FALSE(r.ok);
  CHECK(r.text == "unknown request 'lss'; did you mean 'ls'? (requests: pool, ls, set, tenant, help; `help` describes them)");
  AdminReply j = f.call(kAdmin, "frobnicate", {}, true);
  CHECK_FALSE(j.ok);
  CHECK(valid_json(j.text));
  CHECK(j.text == R"j({"ok":false,"error":"unknown request 'frobnicate' (requests: pool, ls, set, tenant, help; `help` describes them)"})j");
  AdminReply args = f.call(kAdmin, "pool", {"extra"});
  CHECK_FALSE(args.ok);
  CHECK(args.text == "`pool` takes no arguments (usage: pool)");
}

TEST_CASE("admin-only requests refuse a tenant, saying which token to use") {
  Fixture f;
  AdminReply set = f.call(kInference, "set", {"inference", "compute=10"});
  CHECK_FALSE(set.ok);
  CHECK(set.text == "`set` needs the admin token: set RGPU_TOKEN to rgpud's admin_token");
  CHECK(f.pool.config().tenants[0].compute == 30);  // nothing changed
  AdminReply pool = f.call(kInference, "pool");
  CHECK_FALSE(pool.ok);
  CHECK(pool.text == "`pool` needs the admin token: set RGPU_TOKEN to rgpud's admin_token, or use `ls` to see your own sessions");
  AdminReply json = f.call(kInference, "pool", {}, true);
  CHECK_FALSE(json.ok);
  CHECK(valid_json(json.text));
  CHECK_THAT(json.text, Catch::StartsWith(R"({"ok":false,"error":"`pool` needs the admin token)"));
}

TEST_CASE("pool prints a GPU table and a session table") {
  Fixture f;
  AdminReply r = f.call(kAdmin, "pool");
  REQUIRE(r.ok);
  const std::string& t = r.text;
  INFO(t);
  CHECK_THAT(t, Catch::StartsWith("rgpud pool: 2 GPUs, 2 sessions, placement spread\n\n"));
  CHECK_THAT(t, Catch::Contains("GPU  NAME         MEMORY TOTAL  RESERVED      USED  COMPUTE RESERVED  BUSY  SESSIONS\n"));
  CHECK_THAT(t, Catch::Contains("  0  NVIDIA H200     16384 MiB  4096 MiB  3000 MiB               30%    0%         1\n"));
  CHECK_THAT(t, Catch::Contains("  1  NVIDIA H200     16384 MiB  8192 MiB     0 MiB               50%    0%         1\n"));
  // Sessions: memory used/slice, compute achieved/share/cap, priority, age; unprintable bytes as '?'.
  CHECK_THAT(t, Catch::Contains("SESSION  TENANT     HOST:PID    PROGRAM"));
  CHECK_THAT(t, Catch::Contains("      7  inference  node1:4242  python3"));
  CHECK_THAT(t, Catch::Contains("3000/4096 MiB"));
  CHECK_THAT(t, Catch::Contains("0/30/60%"));
  CHECK_THAT(t, Catch::Contains("high      1m05s"));
  CHECK_THAT(t, Catch::Contains("      9  training   node2:77    train\"x\"??\xff.py"));
  CHECK_THAT(t, Catch::Contains("0/8192 MiB"));
  CHECK_THAT(t, Catch::Contains("0/50/50%"));
  CHECK_THAT(t, Catch::Contains("low          5s"));
}

TEST_CASE("ls: a tenant sees every GPU and only its own sessions, the admin sees all") {
  Fixture f;
  AdminReply mine = f.call(kInference, "ls");
  REQUIRE(mine.ok);
  CHECK_THAT(mine.text, Catch::StartsWith("tenant inference: 1 session"));
  CHECK_THAT(mine.text, Catch::Contains("  1  NVIDIA H200"));
  CHECK_THAT(mine.text, Catch::Contains("node1:4242"));
  CHECK_THAT(mine.text, !Catch::Contains("node2"));

  AdminReply other = f.call(AdminCaller{false, "nobody"}, "ls");
  REQUIRE(other.ok);
  CHECK_THAT(other.text, Catch::EndsWith("no sessions\n"));

  AdminReply all = f.call(kAdmin, "ls");
  REQUIRE(all.ok);
  CHECK_THAT(all.text, Catch::Contains("node1:4242"));
  CHECK_THAT(all.text, Catch::Contains("node2:77"));

  AdminReply json = f.call(kInference, "ls", {}, true);
  REQUIRE(json.ok);
  CHECK(valid_json(json.text));
  CHECK_THAT(json.text, Catch::Contains(R"("id":7,)"));
  CHECK_THAT(json.text, !Catch::Contains(R"("id":9,)"));
  CHECK_THAT(json.text, Catch::Contains(R"("index":1,)"));
}

TEST_CASE("pool --json: stable keys, base units, escaped strings") {
  Fixture f;
  AdminReply r = f.call(kAdmin, "pool", {}, true);
  REQUIRE(r.ok);
  INFO(r.text);
  CHECK(valid_json(r.text));
  CHECK_THAT(r.text, Catch::StartsWith(R"({"ok":true,"gpus":[{"index":0,"name":"NVIDIA H200","memory_total_bytes":17179869184,)"
                                       R"("memory_reserved_bytes":4294967296,"memory_used_bytes":3145728000,)"
                                       R"("compute_reserved_percent":30,"busy_fraction":)"));
  CHECK_THAT(r.text, Catch::Contains(R"({"id":7,"tenant":"inference","host":"node1","pid":4242,"program":"python3","gpu":0,)"
                                     R"("memory_used_bytes":3145728000,"memory_host_bytes":0,"memory_slice_bytes":4294967296,"compute_percent":30,)"
                                     R"("compute_limit_percent":60,"share_fraction":)"));
  CHECK_THAT(r.text, Catch::Contains(R"("priority":50,"priority_name":"high","age_seconds":65.000})"));
  CHECK_THAT(r.text, Catch::Contains(R"("program":"train\"x\"\n\u0001\ufffd.py")"));
  CHECK_THAT(r.text, Catch::Contains(R"("age_seconds":5.000})"));
}

TEST_CASE("whole-GPU sessions show as such") {
  DaemonConfig c = default_config("tok");
  Pool pool({{"NVIDIA H200", 16 * kGiB}}, c);
  SessionRequest s;
  s.session_id = 3;
  s.host = "h";
  s.program = "p";
  REQUIRE(pool.admit(s, t0).is_ok());
  AdminReply text = handle_admin(pool, kAdmin, AdminRequest{"pool", {}, false}, t0);
  REQUIRE(text.ok);
  CHECK_THAT(text.text, Catch::Contains("  default  h:0       p        all"));
  CHECK_THAT(text.text, Catch::Contains(" 0/- MiB  "));
  CHECK_THAT(text.text, Catch::Contains(" whole GPU  normal"));
  AdminReply json = handle_admin(pool, kAdmin, AdminRequest{"pool", {}, true}, t0);
  REQUIRE(json.ok);
  CHECK(valid_json(json.text));
  CHECK_THAT(json.text, Catch::Contains(R"("gpu":null,)"));
}

TEST_CASE("set parses its keys and returns the new slices to carry out") {
  Fixture f;
  AdminReply r = f.call(kAdmin, "set", {"inference", "memory=8G", "compute=40%"});
  INFO(r.text);
  REQUIRE(r.ok);
  CHECK(r.text == "tenant inference: memory 4096 -> 8192 MiB, compute 30 -> 40%; 1 running session resliced\n");
  REQUIRE(r.actions.reslice.size() == 1);
  CHECK(r.actions.reslice[0].first == 7);
  CHECK(r.actions.reslice[0].second.memory_bytes == 8 * kGiB);
  CHECK(r.actions.reslice[0].second.compute == 40);
  CHECK(f.pool.config().tenants[0].memory_bytes == 8 * kGiB);

  AdminReply j = f.call(kAdmin, "set", {"7", "compute_limit=70"}, true);
  REQUIRE(j.ok);
  CHECK(valid_json(j.text));
  CHECK(j.text == R"({"ok":true,"summary":"session 7 (tenant inference): compute_limit 60 -> 70%",)"
                  R"("resliced":[{"id":7,"gpu":0,"memory_slice_bytes":8589934592,"compute_percent":40,)"
                  R"("compute_limit_percent":70,"priority":50,"priority_name":"high"}]})");

  AdminReply below = f.call(kAdmin, "set", {"7", "memory=2G"});
  CHECK_FALSE(below.ok);
  CHECK_THAT(below.text, Catch::StartsWith("session 7 holds 3000 MiB; memory 2048 MiB would be below it"));
  AdminReply freed = f.call(kAdmin, "set", {"7", "memory=2G", "when_free=1"});
  REQUIRE(freed.ok);
  CHECK_THAT(freed.text, Catch::Contains("session 7 keeps 3000 MiB reserved until it frees it (when_free)"));
}

TEST_CASE("set refuses malformed arguments, saying how to write them") {
  Fixture f;
  struct Case {
    std::vector<std::string> args;
    const char* starts;
  };
  const Case cases[] = {
      {{}, "`set` needs a target first, a session id or a tenant name; usage: set TARGET"},
      {{"memory=4G"}, "`set` needs a target first"},
      {{"inference"}, "nothing to change: give at least one of memory=, compute=, compute_limit="},
      {{"inference", "compte=10"}, "unknown key 'compte'; did you mean 'compute'? (keys: memory, compute, compute_limit, when_free)"},
      {{"inference", "compute=10", "compute=20"}, "'compute' is given twice; give it once"},
      {{"inference", "compute"}, "'compute' is not key=value"},
      {{"inference", "compute=101"}, "compute=101: compute must be a whole percent in 0..100, e.g. compute=30"},
      {{"inference", "compute_limit=0"}, "compute_limit=0: compute_limit must be a whole percent in 1..100"},
      {{"inference", "memory=4GB"}, "memory=4GB: \"4GB\" is not a memory size (sizes are binary: say G or GiB)"},
      {{"inference", "compute=10", "when_free=maybe"}, "when_free=maybe: say when_free=1 or when_free=0"},
      {{"nobody", "compute=10"}, "no tenant 'nobody' and it is not a session id"},
      {{"12345", "compute=10"}, "no session 12345"},
  };
  for (const auto& c : cases) {
    AdminReply r = f.call(kAdmin, "set", c.args);
    INFO(r.text);
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.text, Catch::StartsWith(c.starts));
    CHECK(r.actions.reslice.empty());
  }
  CHECK(f.pool.config().tenants[0].compute == 30);
}

TEST_CASE("pool shows the admission queue in start order, in text and JSON") {
  Fixture f;
  // Fill the GPUs: with the fixture's two sessions, two more of training leave no GPU 50% compute.
  SessionRequest r;
  r.tenant = 1;
  r.host = "node3";
  r.program = "big.py";
  r.pid = 5;
  for (uint64_t id : {20, 21}) {
    r.session_id = id;
    REQUIRE(f.pool.admit(r, t0).is_ok());
  }
  CHECK_THAT(f.call(kAdmin, "pool").text, !Catch::Contains("QUEUED"));  // nothing queued yet
  r.session_id = 22;
  auto queued = f.pool.admit(r, t0);
  REQUIRE(queued.is_ok());
  REQUIRE_FALSE(queued->slice);

  const std::string text = f.call(kAdmin, "pool").text;
  CHECK_THAT(text, Catch::Contains("1 queued"));
  CHECK_THAT(text, Catch::Contains("QUEUED"));
  CHECK_THAT(text, Catch::Contains("node3:5"));
  CHECK_THAT(text, Catch::Contains("8192 MiB"));
  CHECK_THAT(text, Catch::Contains("never"));  // no queue timeout
  const std::string json = f.call(kAdmin, "pool", {}, true).text;
  CHECK(valid_json(json));
  CHECK_THAT(json, Catch::Contains("\"queue\":[{\"position\":1,\"id\":22,\"tenant\":\"training\""));
  CHECK_THAT(json, Catch::Contains("\"timeout_seconds\":null"));
  // A tenant's ls shows only its own queued sessions.
  CHECK_THAT(f.call(kInference, "ls", {}, true).text, Catch::Contains("\"queue\":[]"));
}
