// rgpud's settings (daemon_settings.h): file, then environment, then flags.
#include "server/daemon/daemon_settings.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>

#include "common/config.h"

namespace rgpu::server {
const Tunable kMetricsListen{"RGPU_METRICS_LISTEN", "127.0.0.1:9449",
                             "where rgpud serves Prometheus's /metrics (host:port), or off; overrides metrics.listen"};

namespace {

// The environment variables rgpud's settings read. Those that other code also reads (RGPU_TLS,
// RGPU_MODULE_CACHE, RGPU_PEER_TIMEOUT_S) are registered as Tunables there; these are rgpud's own.
const Tunable kConfig{"RGPU_CONFIG", kDefaultConfigPath,
                      "rgpud's configuration file (read when it exists; --config overrides)"};
const Tunable kListen{"RGPU_LISTEN", "127.0.0.1:7070",
                      "addresses rgpud listens on, comma-separated (host:port, unix:PATH); overrides the file's listen"};
const Tunable kBackend{"RGPU_BACKEND", "cuda", "rgpud backend: cuda (the real GPUs) or emulated (no GPU)"};
const Tunable kServerToken{"RGPU_TOKEN", "",
                           "rgpud without tenants in its file: the shared secret clients must prove (and the admin "
                           "token); required off loopback"};
const Tunable kLogFormat{"RGPU_LOG_FORMAT", "text", "rgpud's log lines: text, or json (one JSON object a line)"};
constexpr char kTlsEnv[] = "RGPU_TLS";
constexpr char kLogEnv[] = "RGPU_LOG";
constexpr char kModuleCacheEnv[] = "RGPU_MODULE_CACHE";
constexpr char kPeerTimeoutEnv[] = "RGPU_PEER_TIMEOUT_S";
constexpr char kModuleCacheDefault[] = "/var/tmp/rgpu-modules";  // module_cache.cpp's default
constexpr uint32_t kPeerTimeoutDefault = 5;                      // liveness.cpp's default

// "a,b" -> {"a", "b"}, empty items dropped.
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  for (size_t start = 0; start <= text.size();) {
    const size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : separator) + s;
  return out;
}

// Builds the settings one key at a time: the file's value, then the environment's, then the
// flag's, each checked, the last one present winning.
class Resolver {
 public:
  Resolver(const pool::DaemonConfig* file, const Environment& env, DaemonSettings* out)
      : file_(file), env_(env), out_(out) {}

  bool in_file(const std::string& key) const { return file_ && file_->lines.count(key) != 0; }
  // "file:LINE" of a key the file holds (in_file).
  std::string file_origin(const std::string& key) const { return "file:" + std::to_string(file_->lines.at(key)); }

  // One of `words`: default, file, env, flag; `out` takes the last one present.
  Status choice(const std::string& key, const std::vector<std::string>& words, std::string value,
                const std::optional<std::string>& from_file, const char* env_name,
                const std::optional<FlagValue>& flag, std::string* out) {
    std::string origin = "default";
    if (from_file && in_file(key)) value = *from_file, origin = file_origin(key);
    if (auto v = env_(env_name)) value = *v, origin = std::string("env ") + env_name;
    if (flag) value = flag->value, origin = "flag " + flag->flag;
    if (std::find(words.begin(), words.end(), value) == words.end())
      return Status(Code::kInvalidArgument, origin + ": " + key + " '" + value + "' is none of " + join(words, ", "));
    add(key, value, origin);
    *out = value;
    return Status::ok();
  }

  void add(const std::string& key, const std::string& value, const std::string& origin) {
    out_->settings.push_back({key, value, origin});
  }

 private:
  const pool::DaemonConfig* file_;
  const Environment& env_;
  DaemonSettings* out_;
};

std::string redacted(const std::string& token) { return token.empty() ? "(none)" : "<redacted>"; }

std::string tenant_summary(const pool::TenantSpec& t) {
  std::string s = "token " + redacted(t.token) + ", ";
  if (t.whole_gpu()) s += "whole GPUs";
  else
    s += (t.memory_bytes ? std::to_string(t.memory_bytes >> 20) + " MiB" : std::string("no memory slice")) +
         ", compute " + std::to_string(t.compute) + "% (cap " + std::to_string(t.compute_limit) + "%)";
  if (t.memory_host_bytes) s += ", memory_host " + std::to_string(t.memory_host_bytes >> 20) + " MiB";
  s += ", priority " + pool::priority_name(t.priority);
  if (t.queue_timeout_s) s += ", queue_timeout " + std::to_string(*t.queue_timeout_s) + " s";
  return s;
}

// The policy's lines: each key the file set, or its default.
void add_policy(const pool::PoolPolicy& p, Resolver& r) {
  char overcommit[32];
  std::snprintf(overcommit, sizeof overcommit, "%g", p.memory_overcommit);
  const std::pair<const char*, std::string> values[] = {
      {"placement", p.placement == pool::Placement::kSpread ? "spread" : "pack"},
      {"quantum_ms", std::to_string(p.quantum_ms)},
      {"idle_release_ms", std::to_string(p.idle_release_ms)},
      {"min_share_percent", std::to_string(p.min_share_percent)},
      {"memory_overcommit", overcommit},
      {"swap_idle_ms", std::to_string(p.swap_idle_ms)},
      {"mps", p.mps ? "true" : "false"},
  };
  for (const auto& [name, value] : values) {
    const std::string key = std::string("policy.") + name;
    r.add(key, value, r.in_file(key) ? r.file_origin(key) : "default");
  }
}

}  // namespace

Environment process_environment() {
  return [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
}

std::pair<std::string, std::string> choose_config_file(const DaemonFlags& flags, const Environment& env,
                                                       const std::function<bool(const std::string&)>& exists) {
  if (flags.config) return {*flags.config, "flag --config"};
  if (auto v = env(kConfig.name())) return {*v, std::string("env ") + kConfig.name()};
  if (exists(kDefaultConfigPath)) return {kDefaultConfigPath, "default"};
  return {"", "default"};
}

Result<DaemonSettings> resolve_settings(std::optional<pool::DaemonConfig> file, const std::string& config_file,
                                        const std::string& config_origin, const DaemonFlags& flags,
                                        const Environment& env) {
  DaemonSettings out;
  out.config_file = config_file;
  out.config_origin = config_origin;
  const pool::DaemonConfig* f = file ? &*file : nullptr;
  Resolver r(f, env, &out);

  // listen: a list; RGPU_LISTEN is comma-separated, --listen given once per address.
  out.listen = split_list(kListen.default_value());
  std::string listen_origin = "default";
  if (f && !f->listen.empty()) out.listen = f->listen, listen_origin = r.file_origin("listen");
  if (auto v = env(kListen.name())) out.listen = split_list(*v), listen_origin = std::string("env ") + kListen.name();
  if (!flags.listen.empty()) out.listen = flags.listen, listen_origin = "flag --listen";
  if (out.listen.empty())
    return Status(Code::kInvalidArgument, listen_origin + ": no address to listen on (e.g. 127.0.0.1:7070)");
  r.add("listen", join(out.listen, ", "), listen_origin);

  const std::optional<std::string> none;
  std::string level, format;
  for (Status st : {r.choice("tls", {"auto", "on", "off"}, "auto", f ? f->tls : none, kTlsEnv, flags.tls, &out.tls),
                    r.choice("backend", {"cuda", "emulated"}, kBackend.default_value(), f ? f->backend : none,
                             kBackend.name(), flags.backend, &out.backend),
                    r.choice("log_level", {"error", "warn", "info", "debug"}, "info", f ? f->log_level : none,
                             kLogEnv, flags.log_level, &level),
                    r.choice("log_format", {"text", "json"}, kLogFormat.default_value(), f ? f->log_format : none,
                             kLogFormat.name(), flags.log_format, &format)})
    if (!st.is_ok()) return st;
  out.log_level = *parse_log_level(level);
  out.log_format = *parse_log_format(format);

  // Read by the workers from the environment: a file's value is exported unless the environment
  // has its own.
  std::string cache = kModuleCacheDefault, cache_origin = "default";
  if (f && f->module_cache) cache = *f->module_cache, cache_origin = r.file_origin("module_cache");
  if (auto v = env(kModuleCacheEnv)) cache = *v, cache_origin = std::string("env ") + kModuleCacheEnv;
  else if (f && f->module_cache) out.exports.emplace_back(kModuleCacheEnv, cache);
  r.add("module_cache", cache.empty() ? "\"\" (no cache)" : cache, cache_origin);

  std::string timeout = std::to_string(kPeerTimeoutDefault), timeout_origin = "default";
  if (f && f->peer_timeout_s) timeout = std::to_string(*f->peer_timeout_s), timeout_origin = r.file_origin("peer_timeout_s");
  if (auto v = env(kPeerTimeoutEnv)) {
    uint32_t seconds = 0;
    auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), seconds);
    if (v->empty() || ec != std::errc() || end != v->data() + v->size() || seconds > 3600)
      return Status(Code::kInvalidArgument, std::string("env ") + kPeerTimeoutEnv +
                                                ": peer_timeout_s must be a whole number of seconds in 0..3600, not '" +
                                                *v + "'");
    timeout = *v, timeout_origin = std::string("env ") + kPeerTimeoutEnv;
  } else if (f && f->peer_timeout_s) {
    out.exports.emplace_back(kPeerTimeoutEnv, timeout);
  }
  r.add("peer_timeout_s", timeout, timeout_origin);

  // metrics.listen: start_metrics (metrics_setup.h) reads it with the same precedence.
  std::string metrics = kMetricsListen.default_value(), metrics_origin = "default";
  if (f && f->metrics_listen) metrics = *f->metrics_listen, metrics_origin = r.file_origin("metrics.listen");
  if (auto v = env(kMetricsListen.name())) metrics = *v, metrics_origin = std::string("env ") + kMetricsListen.name();
  r.add("metrics.listen", metrics, metrics_origin);

  // Tokens and tenants come from the file; a file without tenants (or none) gets the built-in
  // default tenant, whose token is RGPU_TOKEN, also the admin token unless the file names one.
  const std::string env_token = env(kServerToken.name()).value_or("");
  const std::string token_origin = env(kServerToken.name()) ? std::string("env ") + kServerToken.name() : "default";
  if (f && !f->tenants.empty()) {
    out.config = *f;
    r.add("admin_token", redacted(f->admin_token), r.in_file("admin_token") ? r.file_origin("admin_token") : "default");
  } else {
    out.config = pool::default_config(env_token);
    if (f) {
      out.config.source = f->source;
      out.config.policy = f->policy;
      out.config.lines = f->lines;
    }
    const bool admin_in_file = f && r.in_file("admin_token");
    if (admin_in_file) out.config.admin_token = f->admin_token;
    r.add("admin_token", redacted(out.config.admin_token), admin_in_file ? r.file_origin("admin_token") : token_origin);
  }
  add_policy(out.config.policy, r);
  for (const pool::TenantSpec& t : out.config.tenants) {
    const std::string key = "tenants." + t.name;
    r.add(key, tenant_summary(t), r.in_file(key) ? r.file_origin(key) : token_origin);
  }
  return out;
}

std::string format_settings(const DaemonSettings& s) {
  std::string out = "configuration file: ";
  if (!s.config_file.empty()) out += s.config_file + " (" + s.config_origin + ")\n";
  else if (s.config_origin == "default") out += std::string("none (") + kDefaultConfigPath + " does not exist)\n";
  else out += "none (" + s.config_origin + " is empty)\n";
  size_t key_width = 0, value_width = 0;
  for (const Setting& e : s.settings) {
    key_width = std::max(key_width, e.key.size());
    value_width = std::max(value_width, e.value.size());
  }
  for (const Setting& e : s.settings)
    out += e.key + std::string(key_width - e.key.size() + 2, ' ') + e.value +
           std::string(value_width - e.value.size() + 2, ' ') + e.origin + "\n";
  return out;
}

}  // namespace rgpu::server
