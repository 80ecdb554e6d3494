// rgpud's settings (server/daemon/daemon_settings.h): the file, the environment over it, the flags
// over both, each value's origin as --print-config shows it, and bad values from each refused.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "server/daemon/daemon_settings.h"

using namespace rgpu::server;

namespace {

// An environment of the test's own, not the process's.
Environment environment(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> std::optional<std::string> {
    auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

const char* kFile = R"(listen: 0.0.0.0:7070
tls: on
backend: emulated
log_level: debug
module_cache: /var/cache/rgpu
admin_token: s3cret
policy:
  quantum_ms: 20
tenants:
  - name: inference
    token: tok-inference
    memory: 4G
    compute: 30
)";

rgpu::pool::DaemonConfig file_config() {
  auto parsed = rgpu::pool::parse_config(kFile, "/etc/rgpu/rgpud.yaml");
  REQUIRE(parsed.is_ok());
  return *parsed;
}

DaemonSettings resolve(std::optional<rgpu::pool::DaemonConfig> file, const DaemonFlags& flags,
                       std::map<std::string, std::string> env) {
  auto r = resolve_settings(std::move(file), "/etc/rgpu/rgpud.yaml", "default", flags, environment(std::move(env)));
  REQUIRE(r.is_ok());
  return *r;
}

// The origin --print-config shows for `key`.
std::string origin(const DaemonSettings& s, const std::string& key) {
  for (const Setting& e : s.settings)
    if (e.key == key) return e.origin;
  FAIL("no setting " << key);
  return "";
}

std::string value(const DaemonSettings& s, const std::string& key) {
  for (const Setting& e : s.settings)
    if (e.key == key) return e.value;
  FAIL("no setting " << key);
  return "";
}

}  // namespace

TEST_CASE("no file, no environment, no flags: the built-in defaults") {
  const DaemonSettings s = resolve(std::nullopt, {}, {});
  CHECK(s.listen == std::vector<std::string>{"127.0.0.1:7070"});
  CHECK(s.tls == "auto");
  CHECK(s.backend == "cuda");
  CHECK(s.log_level == rgpu::LogLevel::kInfo);
  CHECK(s.log_format == rgpu::LogFormat::kText);
  CHECK(s.exports.empty());
  REQUIRE(s.config.tenants.size() == 1);
  CHECK(s.config.tenants[0].name == "default");
  CHECK(s.config.tenants[0].token.empty());
  for (const Setting& e : s.settings) CHECK(e.origin == "default");
  CHECK(value(s, "admin_token") == "(none)");
}

TEST_CASE("the file's values, each with its line") {
  const DaemonSettings s = resolve(file_config(), {}, {});
  CHECK(s.listen == std::vector<std::string>{"0.0.0.0:7070"});
  CHECK(origin(s, "listen") == "file:1");
  CHECK(s.tls == "on");
  CHECK(origin(s, "tls") == "file:2");
  CHECK(s.backend == "emulated");
  CHECK(origin(s, "backend") == "file:3");
  CHECK(s.log_level == rgpu::LogLevel::kDebug);
  CHECK(origin(s, "log_level") == "file:4");
  CHECK(origin(s, "log_format") == "default");
  CHECK(origin(s, "admin_token") == "file:6");
  CHECK(origin(s, "policy.quantum_ms") == "file:8");
  CHECK(value(s, "policy.quantum_ms") == "20");
  CHECK(origin(s, "policy.placement") == "default");
  CHECK(origin(s, "tenants.inference") == "file:10");
  // The workers read the module cache from the environment: the file's value is exported.
  CHECK(s.exports == std::vector<std::pair<std::string, std::string>>{{"RGPU_MODULE_CACHE", "/var/cache/rgpu"}});
  CHECK(origin(s, "module_cache") == "file:5");
}

TEST_CASE("the environment overrides the file, flags override both") {
  const std::map<std::string, std::string> env{{"RGPU_LISTEN", "127.0.0.1:9000,unix:/tmp/r.sock"},
                                               {"RGPU_TLS", "off"},
                                               {"RGPU_BACKEND", "cuda"},
                                               {"RGPU_LOG", "warn"},
                                               {"RGPU_LOG_FORMAT", "json"},
                                               {"RGPU_MODULE_CACHE", "/tmp/cache"}};
  const DaemonSettings by_env = resolve(file_config(), {}, env);
  CHECK(by_env.listen == std::vector<std::string>{"127.0.0.1:9000", "unix:/tmp/r.sock"});
  CHECK(origin(by_env, "listen") == "env RGPU_LISTEN");
  CHECK(by_env.tls == "off");
  CHECK(origin(by_env, "tls") == "env RGPU_TLS");
  CHECK(by_env.backend == "cuda");
  CHECK(by_env.log_level == rgpu::LogLevel::kWarn);
  CHECK(origin(by_env, "log_level") == "env RGPU_LOG");
  CHECK(by_env.log_format == rgpu::LogFormat::kJson);
  CHECK(origin(by_env, "log_format") == "env RGPU_LOG_FORMAT");
  CHECK(origin(by_env, "module_cache") == "env RGPU_MODULE_CACHE");
  CHECK(by_env.exports.empty());  // the environment has it already

  DaemonFlags flags;
  flags.listen = {"unix:/run/x.sock"};
  flags.tls = FlagValue{"auto", "--tls"};
  flags.backend = FlagValue{"emulated", "--emulate"};
  flags.log_format = FlagValue{"text", "--log-format"};
  const DaemonSettings by_flag = resolve(file_config(), flags, env);
  CHECK(by_flag.listen == std::vector<std::string>{"unix:/run/x.sock"});
  CHECK(origin(by_flag, "listen") == "flag --listen");
  CHECK(by_flag.tls == "auto");
  CHECK(origin(by_flag, "tls") == "flag --tls");
  CHECK(by_flag.backend == "emulated");
  CHECK(origin(by_flag, "backend") == "flag --emulate");
  CHECK(by_flag.log_format == rgpu::LogFormat::kText);
  CHECK(origin(by_flag, "log_level") == "env RGPU_LOG");  // no flag: the environment still wins
}

TEST_CASE("tokens: the file's tenants, or the default tenant with RGPU_TOKEN, never shown") {
  const DaemonSettings from_file = resolve(file_config(), {}, {{"RGPU_TOKEN", "ignored"}});
  REQUIRE(from_file.config.tenants.size() == 1);
  CHECK(from_file.config.tenants[0].token == "tok-inference");
  CHECK(from_file.config.admin_token == "s3cret");
  CHECK(value(from_file, "tenants.inference").find("token <redacted>, 4096 MiB, compute 30% (cap 30%)") == 0);

  auto no_tenants = rgpu::pool::parse_config("listen: unix:/run/rgpu.sock\npolicy:\n  placement: spread\n", "f.yaml");
  REQUIRE(no_tenants.is_ok());
  const DaemonSettings fallback = resolve(*no_tenants, {}, {{"RGPU_TOKEN", "shared-secret"}});
  REQUIRE(fallback.config.tenants.size() == 1);
  CHECK(fallback.config.tenants[0].token == "shared-secret");
  CHECK(fallback.config.admin_token == "shared-secret");
  CHECK(fallback.config.policy.placement == rgpu::pool::Placement::kSpread);  // the file's policy stays
  CHECK(origin(fallback, "tenants.default") == "env RGPU_TOKEN");
  CHECK(origin(fallback, "admin_token") == "env RGPU_TOKEN");
  CHECK(origin(fallback, "policy.placement") == "file:3");

  const std::string printed = format_settings(fallback);
  CHECK(printed.find("shared-secret") == std::string::npos);
  CHECK(printed.find("<redacted>") != std::string::npos);
}

TEST_CASE("rgpud --print-config's text: the file, then one setting a line") {
  const DaemonSettings s = resolve(file_config(), {}, {{"RGPU_TLS", "off"}});
  const std::string text = format_settings(s);
  CHECK(text.find("configuration file: /etc/rgpu/rgpud.yaml (default)\n") == 0);
  // "tls   off   env RGPU_TLS": key, value, origin, in columns.
  const size_t tls = text.find("\ntls ");
  REQUIRE(tls != std::string::npos);
  const std::string line = text.substr(tls + 1, text.find('\n', tls + 1) - tls - 1);
  CHECK_THAT(line, Catch::Matches("tls +off +env RGPU_TLS"));
  CHECK(text.find("tok-inference") == std::string::npos);
  CHECK(text.find("s3cret") == std::string::npos);
}

TEST_CASE("a bad value from the environment or a flag names where it came from") {
  auto bad = [](const DaemonFlags& flags, std::map<std::string, std::string> env) {
    auto r = resolve_settings(std::nullopt, "", "default", flags, environment(std::move(env)));
    REQUIRE_FALSE(r.is_ok());
    return r.status().message();
  };
  CHECK(bad({}, {{"RGPU_TLS", "maybe"}}) == "env RGPU_TLS: tls 'maybe' is none of auto, on, off");
  CHECK(bad({}, {{"RGPU_LOG_FORMAT", "xml"}}) == "env RGPU_LOG_FORMAT: log_format 'xml' is none of text, json");
  CHECK_THAT(bad({}, {{"RGPU_PEER_TIMEOUT_S", "soon"}}), Catch::StartsWith("env RGPU_PEER_TIMEOUT_S: peer_timeout_s"));
  DaemonFlags flags;
  flags.backend = FlagValue{"gpu", "--backend"};
  CHECK(bad(flags, {}) == "flag --backend: backend 'gpu' is none of cuda, emulated");
  CHECK_THAT(bad({}, {{"RGPU_LISTEN", ","}}), Catch::StartsWith("env RGPU_LISTEN: no address to listen on"));
}

TEST_CASE("which file is read: --config, RGPU_CONFIG, or the default path if it exists") {
  auto exists = [](const std::string& path) { return path == kDefaultConfigPath; };
  auto nothing = [](const std::string&) { return false; };
  DaemonFlags flags;
  CHECK(choose_config_file(flags, environment({}), exists) ==
        std::pair<std::string, std::string>{kDefaultConfigPath, "default"});
  CHECK(choose_config_file(flags, environment({}), nothing) == std::pair<std::string, std::string>{"", "default"});
  CHECK(choose_config_file(flags, environment({{"RGPU_CONFIG", "/srv/r.yaml"}}), exists) ==
        std::pair<std::string, std::string>{"/srv/r.yaml", "env RGPU_CONFIG"});
  // Set but empty: no file, even where the default path exists (the integration tests' daemons).
  CHECK(choose_config_file(flags, environment({{"RGPU_CONFIG", ""}}), exists) ==
        std::pair<std::string, std::string>{"", "env RGPU_CONFIG"});
  flags.config = "/tmp/mine.yaml";
  CHECK(choose_config_file(flags, environment({{"RGPU_CONFIG", "/srv/r.yaml"}}), exists) ==
        std::pair<std::string, std::string>{"/tmp/mine.yaml", "flag --config"});
}
