// rgpud's configuration file: a good file parsed in full, and each kind of broken file refused with
// a message naming file:line:col and what to do.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include <unistd.h>

#include "server/pool/pool_config.h"

using namespace rgpu::pool;

namespace {

constexpr uint64_t kMiB = 1ull << 20;

// The message of a refused configuration (it must be refused).
std::string refusal(const std::string& text) {
  auto r = parse_config(text, "pool.yaml");
  REQUIRE_FALSE(r.is_ok());
  CHECK(r.status().code() == rgpu::Code::kInvalidArgument);
  return r.status().message();
}

const char* kGood = R"(listen: 0.0.0.0:7070
admin_token: s3cret-admin
policy:
  placement: spread
  quantum_ms: 20
  idle_release_ms: 5
  min_share_percent: 10
  mps: true
tenants:
  - name: inference
    token: tok-inference
    memory: 4096M
    compute: 30
    compute_limit: 60
    priority: high
    queue_timeout: 600
  - name: training
    token: tok-training
    memory: 2G
    compute: 50
    priority: -20
  - name: batch
    token: tok-batch
    memory: 1024
    priority: low
  - name: whole
    token: tok-whole
)";

}  // namespace

TEST_CASE("a good file is parsed in full, defaults filled in") {
  auto r = parse_config(kGood, "pool.yaml");
  REQUIRE(r.is_ok());
  const DaemonConfig& c = *r;
  CHECK(c.source == "pool.yaml");
  CHECK(c.listen == std::vector<std::string>{"0.0.0.0:7070"});
  CHECK(c.admin_token == "s3cret-admin");
  CHECK(c.policy.placement == Placement::kSpread);
  CHECK(c.policy.quantum_ms == 20);
  CHECK(c.policy.idle_release_ms == 5);
  CHECK(c.policy.min_share_percent == 10);
  CHECK(c.policy.mps);
  REQUIRE(c.tenants.size() == 4);

  CHECK(c.tenants[0].name == "inference");
  CHECK(c.tenants[0].token == "tok-inference");
  CHECK(c.tenants[0].memory_bytes == 4096 * kMiB);
  CHECK(c.tenants[0].compute == 30);
  CHECK(c.tenants[0].compute_limit == 60);
  CHECK(c.tenants[0].priority == kPriorityHigh);
  CHECK(c.tenants[0].queue_timeout_s == 600u);
  CHECK_FALSE(c.tenants[1].queue_timeout_s);  // absent: waits until it fits
  CHECK_FALSE(c.tenants[0].whole_gpu());

  CHECK(c.tenants[1].memory_bytes == 2048 * kMiB);
  CHECK(c.tenants[1].compute == 50);
  CHECK(c.tenants[1].compute_limit == 50);  // defaults to compute when compute is given
  CHECK(c.tenants[1].priority == -20);

  CHECK(c.tenants[2].memory_bytes == 1024 * kMiB);
  CHECK(c.tenants[2].compute == 0);
  CHECK(c.tenants[2].compute_limit == 100);  // no compute: no cap
  CHECK(c.tenants[2].priority == kPriorityLow);

  CHECK(c.tenants[3].whole_gpu());
  CHECK(c.tenants[3].priority == kPriorityNormal);
}

TEST_CASE("the policy's defaults when the file does not say") {
  auto r = parse_config("tenants:\n  - name: a\n    token: t\n", "x.yaml");
  REQUIRE(r.is_ok());
  CHECK(r->listen.empty());
  CHECK(r->admin_token.empty());
  CHECK(r->policy.placement == Placement::kPack);
  CHECK(r->policy.quantum_ms == 10);
  CHECK(r->policy.idle_release_ms == 10);
  CHECK_FALSE(r->policy.mps);
}

TEST_CASE("load_config reads a file and names it in messages") {
  const std::string path = "/tmp/rgpu_pool_config_test_" + std::to_string(::getpid()) + ".yaml";
  {
    std::ofstream out(path);
    out << "tenants:\n  - name: a\n    tokn: t\n";
  }
  auto r = load_config(path);
  std::remove(path.c_str());
  REQUIRE_FALSE(r.is_ok());
  // Both errors, in the file's order: the tenant (line 2) lacks a token, its line 3 is misspelt.
  CHECK_THAT(r.status().message(), Catch::StartsWith(path + ":2:5: tenant 'a' needs a non-empty token"));
  CHECK_THAT(r.status().message(), Catch::Contains("\n" + path + ":3:5: unknown key 'tokn'"));

  auto missing = load_config("/nonexistent/rgpu.yaml");
  REQUIRE_FALSE(missing.is_ok());
  CHECK(missing.status().code() == rgpu::Code::kIo);
  CHECK_THAT(missing.status().message(), Catch::Contains("/nonexistent/rgpu.yaml: cannot read"));
  CHECK_THAT(missing.status().message(), Catch::Contains("--config"));
}

TEST_CASE("invalid YAML names the place") {
  const std::string m = refusal("tenants: [ {name: a, token: t}\nlisten: x\n");
  CHECK_THAT(m, Catch::StartsWith("pool.yaml:"));
  CHECK_THAT(m, Catch::Contains("not valid YAML"));
  CHECK_THAT(m, Catch::Contains("indentation"));
}

TEST_CASE("an unknown key is refused with the nearest known key") {
  const std::string top = refusal("tenant:\n  - name: a\n    token: t\n");
  CHECK_THAT(top, Catch::StartsWith("pool.yaml:1:1: unknown key 'tenant' in the file; did you mean 'tenants'?"));
  CHECK_THAT(top, Catch::Contains("known keys: listen, tls, backend, admin_token, log_level, log_format, module_cache, "
                                  "peer_timeout_s, policy, metrics, tenants"));

  const std::string inner = refusal("tenants:\n  - name: a\n    token: t\n    compte: 30\n");
  CHECK_THAT(inner, Catch::StartsWith("pool.yaml:4:5: unknown key 'compte' in tenant #1; did you mean 'compute'?"));

  const std::string policy = refusal("policy:\n  placment: pack\ntenants:\n  - name: a\n    token: t\n");
  CHECK_THAT(policy, Catch::StartsWith("pool.yaml:2:3: unknown key 'placment' in policy; did you mean 'placement'?"));

  // Nothing near: no guess, but the list.
  const std::string far = refusal("tenants:\n  - name: a\n    token: t\n    colour: blue\n");
  CHECK_THAT(far, Catch::StartsWith("pool.yaml:4:5: unknown key 'colour' in tenant #1 (known keys:"));
  CHECK_THAT(far, !Catch::Contains("did you mean"));
}

TEST_CASE("a duplicate key is refused, naming the first") {
  const std::string m = refusal("tenants:\n  - name: a\n    token: t\n    memory: 1G\n    memory: 2G\n");
  CHECK_THAT(m, Catch::StartsWith("pool.yaml:5:5: duplicate key 'memory' in tenant #1 (first at line 4); keep only one"));
}

TEST_CASE("duplicate tenant names and tokens are refused") {
  const std::string name = refusal("tenants:\n  - name: a\n    token: t1\n  - name: a\n    token: t2\n");
  CHECK_THAT(name, Catch::StartsWith("pool.yaml:4:5: tenant name 'a' is used twice (first at line 2)"));
  const std::string token = refusal("tenants:\n  - name: a\n    token: same\n  - name: b\n    token: same\n");
  CHECK_THAT(token, Catch::StartsWith("pool.yaml:4:5: tenant 'b' has the same token as the tenant at line 2"));
}

TEST_CASE("a tenant needs a name and a non-empty token") {
  const std::string no_token = refusal("tenants:\n  - name: a\n    memory: 1G\n");
  CHECK_THAT(no_token, Catch::StartsWith("pool.yaml:2:5: tenant 'a' needs a non-empty token"));
  CHECK_THAT(no_token, Catch::Contains("RGPU_TOKEN"));
  const std::string empty_token = refusal("tenants:\n  - name: a\n    token: ''\n");
  CHECK_THAT(empty_token, Catch::StartsWith("pool.yaml:2:5: tenant 'a' needs a non-empty token"));
  const std::string no_name = refusal("tenants:\n  - token: t\n");
  CHECK_THAT(no_name, Catch::StartsWith("pool.yaml:2:5: tenant #1 has no name"));
  const std::string digits = refusal("tenants:\n  - name: 42\n    token: t\n");
  CHECK_THAT(digits, Catch::StartsWith("pool.yaml:2:11: tenant #1's name '42' is all digits"));
  const std::string spaces = refusal("tenants:\n  - name: a b\n    token: t\n");
  CHECK_THAT(spaces, Catch::StartsWith("pool.yaml:2:11: tenant #1's name must be 1..253 letters"));
}

TEST_CASE("the admin token must differ from every tenant token") {
  const std::string m = refusal("admin_token: t2\ntenants:\n  - name: a\n    token: t1\n  - name: b\n    token: t2\n");
  CHECK_THAT(m, Catch::StartsWith("pool.yaml:1:14: admin_token is the same as the token of tenant 'b'"));
}

TEST_CASE("compute and compute_limit are bounded") {
  const std::string over = refusal("tenants:\n  - name: a\n    token: t\n    compute: 101\n");
  CHECK_THAT(over, Catch::StartsWith("pool.yaml:4:14: tenant #1's compute must be in 0..100 (percent), not 101"));
  const std::string word = refusal("tenants:\n  - name: a\n    token: t\n    compute: lots\n");
  CHECK_THAT(word, Catch::StartsWith("pool.yaml:4:14: tenant #1's compute must be a whole number in 0..100"));
  const std::string below =
      refusal("tenants:\n  - name: a\n    token: t\n    compute: 40\n    compute_limit: 30\n");
  CHECK_THAT(below, Catch::StartsWith("pool.yaml:5:20: tenant 'a''s compute_limit 30 is below its compute 40"));
  const std::string zero = refusal("tenants:\n  - name: a\n    token: t\n    compute_limit: 0\n");
  CHECK_THAT(zero, Catch::StartsWith("pool.yaml:4:20: tenant #1's compute_limit must be in 1..100"));
  auto pct = parse_config("tenants:\n  - name: a\n    token: t\n    compute: 25%\n", "p.yaml");
  REQUIRE(pct.is_ok());
  CHECK(pct->tenants[0].compute == 25);
  CHECK(pct->tenants[0].compute_limit == 25);
}

TEST_CASE("queue_timeout is whole seconds, 0 to a day") {
  const std::string word = refusal("tenants:\n  - name: a\n    token: t\n    queue_timeout: soon\n");
  CHECK_THAT(word, Catch::StartsWith("pool.yaml:4:20: tenant #1's queue_timeout (seconds) must be a whole number in 0..86400"));
  auto zero = parse_config("tenants:\n  - name: a\n    token: t\n    queue_timeout: 0\n", "p.yaml");
  REQUIRE(zero.is_ok());
  CHECK(zero->tenants[0].queue_timeout_s == 0u);
}

TEST_CASE("memory must be a size in whole MiB") {
  const std::string frac = refusal("tenants:\n  - name: a\n    token: t\n    memory: 0.5M\n");
  CHECK_THAT(frac, Catch::StartsWith("pool.yaml:4:13: tenant #1's memory: \"0.5M\" is not a memory size"));
  CHECK_THAT(frac, Catch::Contains("4096M"));
  const std::string empty = refusal("tenants:\n  - name: a\n    token: t\n    memory:\n");
  CHECK_THAT(empty, Catch::StartsWith("pool.yaml:4:5: tenant #1's memory needs a value, e.g. memory: 4096M"));
  const std::string list = refusal("tenants:\n  - name: a\n    token: t\n    memory: [1, 2]\n");
  CHECK_THAT(list, Catch::StartsWith("pool.yaml:4:13: tenant #1's memory must be a single value, not a list"));
}

TEST_CASE("priority is high, normal, low or -100..100") {
  const std::string m = refusal("tenants:\n  - name: a\n    token: t\n    priority: urgent\n");
  CHECK_THAT(m, Catch::StartsWith("pool.yaml:4:15: tenant #1's priority: priority must be high (50), normal (0), low (-50)"));
  CHECK(*parse_priority("high") == kPriorityHigh);
  CHECK(*parse_priority("normal") == kPriorityNormal);
  CHECK(*parse_priority("low") == kPriorityLow);
  CHECK(*parse_priority("-100") == -100);
  CHECK(*parse_priority("+7") == 7);
  CHECK_FALSE(parse_priority("101").is_ok());
  CHECK_FALSE(parse_priority("").is_ok());
  CHECK_FALSE(parse_priority("5x").is_ok());
  CHECK(priority_name(kPriorityHigh) == "high");
  CHECK(priority_name(kPriorityNormal) == "normal");
  CHECK(priority_name(kPriorityLow) == "low");
  CHECK(priority_name(7) == "7");
}

TEST_CASE("policy values are checked") {
  const std::string placement = refusal("policy:\n  placement: random\ntenants:\n  - name: a\n    token: t\n");
  CHECK_THAT(placement, Catch::StartsWith("pool.yaml:2:14: policy.placement must be pack or spread"));
  const std::string quantum = refusal("policy:\n  quantum_ms: 0\ntenants:\n  - name: a\n    token: t\n");
  CHECK_THAT(quantum, Catch::StartsWith("pool.yaml:2:15: policy.quantum_ms must be in 1..1000, not 0"));
  const std::string not_map = refusal("policy: pack\ntenants:\n  - name: a\n    token: t\n");
  CHECK_THAT(not_map, Catch::StartsWith("pool.yaml:1:9: policy must be a map"));
  const std::string mps = refusal("policy:\n  mps: yes\ntenants:\n  - name: a\n    token: t\n");
  CHECK_THAT(mps, Catch::StartsWith("pool.yaml:2:8: policy.mps must be true"));
}

TEST_CASE("listen, tenants and the file's shape") {
  const std::string listen = refusal("listen: localhost\ntenants:\n  - name: a\n    token: t\n");
  CHECK_THAT(listen, Catch::StartsWith("pool.yaml:1:9: listen must be HOST:PORT"));
  auto both = parse_config("listen: [127.0.0.1:7070, unix:/run/rgpu/rgpud.sock]\ntenants:\n  - name: a\n    token: t\n",
                           "pool.yaml");
  REQUIRE(both.is_ok());
  CHECK(both->listen == std::vector<std::string>{"127.0.0.1:7070", "unix:/run/rgpu/rgpud.sock"});
  CHECK_THAT(refusal("listen: 'unix:'\ntenants:\n  - name: a\n    token: t\n"), Catch::Contains("socket file's path"));
  CHECK_THAT(refusal("listen: []\ntenants:\n  - name: a\n    token: t\n"), Catch::Contains("a list of them"));
  const std::string empty_list = refusal("tenants: []\n");
  CHECK_THAT(empty_list, Catch::StartsWith("pool.yaml:1:10: tenants must be a list"));
  const std::string scalar_tenant = refusal("tenants:\n  - inference\n");
  CHECK_THAT(scalar_tenant, Catch::StartsWith("pool.yaml:2:5: tenant #1 must be a map"));
}

TEST_CASE("default_config is one whole-GPU tenant whose token is also the admin's") {
  DaemonConfig c = default_config("tok");
  CHECK(c.source.empty());
  CHECK(c.admin_token == "tok");
  REQUIRE(c.tenants.size() == 1);
  CHECK(c.tenants[0].name == "default");
  CHECK(c.tenants[0].token == "tok");
  CHECK(c.tenants[0].whole_gpu());
  CHECK(c.policy.placement == Placement::kPack);
}

TEST_CASE("over-commit and the memory extension: policy and tenant keys, their defaults and their errors") {
  auto r = parse_config("policy:\n  memory_overcommit: 2.5\n  swap_idle_ms: 300\ntenants:\n  - name: a\n    token: t\n"
                        "    memory: 4G\n    memory_host: 8G\n    compute: 10\n",
                        "x.yaml");
  INFO(r.status().message());
  REQUIRE(r.is_ok());
  CHECK(r->policy.memory_overcommit == 2.5);
  CHECK(r->policy.swap_idle_ms == 300);
  CHECK(r->tenants[0].memory_host_bytes == 8192 * kMiB);
  auto d = parse_config("tenants:\n  - name: a\n    token: t\n", "x.yaml");
  REQUIRE(d.is_ok());
  CHECK(d->policy.memory_overcommit == 1.0);  // no over-commit unless asked
  CHECK(d->policy.swap_idle_ms == 2000);
  CHECK(d->tenants[0].memory_host_bytes == 0);
  CHECK_THAT(refusal("policy:\n  memory_overcommit: 0.5\ntenants:\n  - name: a\n    token: t\n"),
             Catch::Contains("policy.memory_overcommit must be a number from 1") && Catch::Contains("not '0.5'"));
  CHECK_THAT(refusal("policy:\n  memory_overcommit: lots\ntenants:\n  - name: a\n    token: t\n"),
             Catch::Contains("policy.memory_overcommit"));
  CHECK_THAT(refusal("tenants:\n  - name: a\n    token: t\n    memory_host: much\n"), Catch::Contains("memory_host"));
}

TEST_CASE("metrics: listen is HOST:PORT or off, absent when the file does not say") {
  const std::string tenants = "tenants:\n  - name: a\n    token: t\n";
  auto none = parse_config(tenants, "pool.yaml");
  REQUIRE(none.is_ok());
  CHECK_FALSE(none->metrics_listen.has_value());
  auto wide = parse_config("metrics: {listen: 0.0.0.0:9449}\n" + tenants, "pool.yaml");
  REQUIRE(wide.is_ok());
  CHECK(wide->metrics_listen == "0.0.0.0:9449");
  auto off = parse_config("metrics:\n  listen: off\n" + tenants, "pool.yaml");
  REQUIRE(off.is_ok());
  CHECK(off->metrics_listen == "off");
  CHECK_THAT(refusal("metrics:\n  listen: 9449\n" + tenants),
             Catch::StartsWith("pool.yaml:2:11: metrics.listen must be HOST:PORT with a port in 1..65535"));
  CHECK_THAT(refusal("metrics:\n  listen: 127.0.0.1:0\n" + tenants), Catch::Contains("or off, not '127.0.0.1:0'"));
  CHECK_THAT(refusal("metrics:\n  listn: 127.0.0.1:9449\n" + tenants),
             Catch::StartsWith("pool.yaml:2:3: unknown key 'listn' in metrics; did you mean 'listen'?"));
  CHECK_THAT(refusal("metrics: 127.0.0.1:9449\n" + tenants), Catch::Contains("metrics must be a map"));
}

TEST_CASE("every error is reported, each with its line, in the order of the file") {
  const std::string m = refusal(
      "listen: localhost\n"          // 1: no port
      "tls: maybe\n"                 // 2
      "colour: blue\n"               // 3: unknown
      "policy:\n"
      "  quantum_ms: 0\n"            // 5
      "  placment: pack\n"           // 6: unknown, did you mean
      "tenants:\n"
      "  - name: a\n"
      "    token: t\n"
      "    compute: lots\n"          // 10
      "  - name: b\n"
      "    memory: 1X\n"             // 12
      "    token: u\n"
      "  - name: a\n"                // 14: name used twice
      "    token: v\n"
      "log_format: xml\n");          // 16
  std::vector<std::string> lines;
  for (size_t start = 0; start < m.size();) {
    const size_t end = std::min(m.find('\n', start), m.size());
    lines.push_back(m.substr(start, end - start));
    start = end + 1;
  }
  REQUIRE(lines.size() == 9);
  CHECK_THAT(lines[0], Catch::StartsWith("pool.yaml:1:9: listen must be HOST:PORT"));
  CHECK_THAT(lines[1], Catch::StartsWith("pool.yaml:2:6: tls must be auto, on or off"));
  CHECK_THAT(lines[2], Catch::StartsWith("pool.yaml:3:1: unknown key 'colour' in the file"));
  CHECK_THAT(lines[3], Catch::StartsWith("pool.yaml:5:15: policy.quantum_ms must be in 1..1000"));
  CHECK_THAT(lines[4], Catch::StartsWith("pool.yaml:6:3: unknown key 'placment' in policy; did you mean 'placement'?"));
  CHECK_THAT(lines[5], Catch::StartsWith("pool.yaml:10:14: tenant #1's compute must be a whole number"));
  CHECK_THAT(lines[6], Catch::StartsWith("pool.yaml:12:13: tenant #2's memory:"));
  CHECK_THAT(lines[7], Catch::StartsWith("pool.yaml:14:5: tenant name 'a' is used twice (first at line 8)"));
  CHECK_THAT(lines[8], Catch::StartsWith("pool.yaml:16:13: log_format must be text or json"));
}

TEST_CASE("the operator settings: transports, backend, logging, module cache, peer timeout") {
  auto r = parse_config("listen: unix:/run/rgpu/rgpud.sock\n"
                        "tls: on\n"
                        "backend: emulated\n"
                        "log_level: debug\n"
                        "log_format: json\n"
                        "module_cache: /var/cache/rgpu\n"
                        "peer_timeout_s: 30\n",
                        "rgpud.yaml");
  REQUIRE(r.is_ok());
  CHECK(r->tls == "on");
  CHECK(r->backend == "emulated");
  CHECK(r->log_level == "debug");
  CHECK(r->log_format == "json");
  CHECK(r->module_cache == "/var/cache/rgpu");
  CHECK(r->peer_timeout_s == 30u);
  CHECK(r->tenants.empty());  // none in the file: rgpud's default tenant (daemon_settings.h)
  // Each setting's line, for --print-config.
  CHECK(r->lines.at("listen") == 1);
  CHECK(r->lines.at("peer_timeout_s") == 7);
  CHECK(r->lines.count("policy.quantum_ms") == 0);

  CHECK_THAT(refusal("backend: gpu\n"), Catch::StartsWith("pool.yaml:1:10: backend must be cuda or emulated"));
  CHECK_THAT(refusal("log_level: loud\n"), Catch::StartsWith("pool.yaml:1:12: log_level must be error, warn, info or debug"));
  CHECK_THAT(refusal("module_cache: cache\n"), Catch::StartsWith("pool.yaml:1:15: module_cache must be an absolute"));
  CHECK_THAT(refusal("peer_timeout_s: 4000\n"), Catch::StartsWith("pool.yaml:1:17: peer_timeout_s must be in 0..3600"));
}

TEST_CASE("an empty file is every default, the lines of the policy's and tenants' keys are kept") {
  auto empty = parse_config("", "rgpud.yaml");
  REQUIRE(empty.is_ok());
  CHECK(empty->tenants.empty());
  CHECK(empty->listen.empty());
  CHECK_FALSE(empty->tls);
  CHECK(empty->lines.empty());
  auto r = parse_config(kGood, "pool.yaml");
  REQUIRE(r.is_ok());
  CHECK(r->lines.at("policy.quantum_ms") == 5);
  CHECK(r->lines.at("tenants.inference") == 10);
  CHECK(r->lines.at("tenants.whole") == 26);
}
