// rgpud's configuration file (see pool_config.h): YAML through yaml-cpp, checked key by key. Every
// error reads "FILE:LINE:COL: what is wrong; how to fix it" (line and column 1-based, from yaml-cpp's
// Mark of the offending key or value).
#include "server/pool/pool_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "common/memory_size.h"
#include "server/pool/nearest.h"

namespace rgpu::pool {
namespace {

// HOST:PORT with a port in 1..65535.
bool is_host_port(const std::string& text) {
  const size_t colon = text.rfind(':');
  uint32_t port = 0;
  if (colon == std::string::npos || colon + 1 >= text.size()) return false;
  auto [end, ec] = std::from_chars(text.data() + colon + 1, text.data() + text.size(), port);
  return ec == std::errc() && end == text.data() + text.size() && port >= 1 && port <= 65535;
}

// Checks every key and collects every error (an operator fixes a file in one pass): a key whose
// value is wrong is reported and skipped, and parsing goes on with the next.
class Parser {
 public:
  explicit Parser(const std::string& source) : source_(source.empty() ? "<config>" : source) {}

  // Records an error (if `st` is one) without the source trace RGPU_ASSIGN_OR_RETURN adds below
  // it: one line each. Whether `st` is fine.
  bool note(const Status& st) {
    if (!st.is_ok()) errors_.push_back(st.message().substr(0, st.message().find('\n')));
    return st.is_ok();
  }
  // `out` takes the value of a good result; a bad one is recorded.
  template <typename T, typename U>
  bool take(Result<T> r, U* out) {
    if (!note(r.status())) return false;
    *out = std::move(*r);
    return true;
  }

  Status error(const YAML::Mark& mark, const std::string& message) const {
    std::string where = source_;
    if (!mark.is_null()) where += ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
    return Status(Code::kInvalidArgument, where + ": " + message);
  }

  // One key of a map with where it is, for messages about its value.
  struct Entry {
    std::string key;
    YAML::Mark key_mark;
    YAML::Node value;
    // Where a message about the value points: the value, or the key when the value is empty (an
    // empty value's own mark is the start of the next line).
    YAML::Mark value_mark() const { return value.IsNull() ? key_mark : value.Mark(); }
  };

  // The entries of a map; keys not in `known` (each error names the nearest known one) and
  // duplicates are recorded and left out. Not a map: an error.
  Result<std::vector<Entry>> entries(const YAML::Node& map, const YAML::Mark& map_mark, const std::string& what,
                                     const std::vector<std::string>& known) {
    if (!map.IsMap())
      return error(map.IsNull() ? map_mark : map.Mark(),
                   what + " must be a map of key: value lines (keys: " + join_words(known) + ")");
    std::vector<Entry> out;
    std::map<std::string, YAML::Mark> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const YAML::Node key = it->first;  // a copy: the iterator yields a temporary pair
      if (!key.IsScalar()) {
        note(error(key.Mark(), what + ": a key must be a plain word (keys: " + join_words(known) + ")"));
        continue;
      }
      const std::string name = key.Scalar();
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        std::string msg = "unknown key '" + name + "' in " + what;
        if (auto best = nearest_word(name, known)) msg += "; did you mean '" + *best + "'?";
        msg += " (known keys: " + join_words(known) + ")";
        note(error(key.Mark(), msg));
        continue;
      }
      if (auto s = seen.find(name); s != seen.end()) {
        note(error(key.Mark(), "duplicate key '" + name + "' in " + what + " (first at line " +
                                   std::to_string(s->second.line + 1) + "); keep only one"));
        continue;
      }
      seen.emplace(name, key.Mark());
      out.push_back(Entry{name, key.Mark(), it->second});
    }
    return out;
  }

  Result<std::string> scalar(const Entry& e, const std::string& what, const std::string& example) const {
    if (e.value.IsNull()) return error(e.key_mark, what + " needs a value, e.g. " + e.key + ": " + example);
    if (!e.value.IsScalar())
      return error(e.value.Mark(), what + " must be a single value, not a " +
                                       std::string(e.value.IsMap() ? "map" : "list") + ", e.g. " + e.key + ": " +
                                       example);
    return e.value.Scalar();
  }

  Result<uint32_t> integer(const Entry& e, const std::string& what, uint32_t lo, uint32_t hi, bool percent) const {
    RGPU_ASSIGN_OR_RETURN(std::string text, scalar(e, what, std::to_string(hi)));
    std::string_view s = text;
    if (percent && !s.empty() && s.back() == '%') s.remove_suffix(1);
    uint64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    const std::string range = std::to_string(lo) + ".." + std::to_string(hi) + (percent ? " (percent)" : "");
    if (ec != std::errc() || end != s.data() + s.size() || s.empty())
      return error(e.value_mark(), what + " must be a whole number in " + range + ", not '" + text + "'");
    if (v < lo || v > hi)
      return error(e.value_mark(), what + " must be in " + range + ", not " + std::to_string(v));
    return static_cast<uint32_t>(v);
  }

  // One address or a list of them: HOST:PORT, or unix:PATH (a socket file on this host).
  Result<std::vector<std::string>> listen(const Entry& e) const {
    const char* example = "127.0.0.1:7070, or [127.0.0.1:7070, unix:/run/rgpu/rgpud.sock]";
    if (e.value.IsNull() || e.value.IsMap() || (e.value.IsSequence() && e.value.size() == 0))
      return error(e.value_mark(), std::string("listen needs an address or a list of them, e.g. listen: ") + example);
    std::vector<YAML::Node> nodes;
    if (!e.value.IsSequence()) nodes.push_back(e.value);
    for (size_t i = 0; e.value.IsSequence() && i < e.value.size(); ++i) nodes.push_back(e.value[i]);
    std::vector<std::string> out;
    for (const YAML::Node& node : nodes) {
      if (!node.IsScalar())
        return error(node.Mark(), std::string("each listen address must be a single value, e.g. ") + example);
      const std::string text = node.Scalar();
      if (text.starts_with("unix:")) {
        if (text.size() == 5) return error(node.Mark(), "listen: unix: needs the socket file's path, e.g. unix:/run/rgpu/rgpud.sock");
        out.push_back(text);
        continue;
      }
      if (!is_host_port(text))
        return error(node.Mark(), "listen must be HOST:PORT with a port in 1..65535 (e.g. 0.0.0.0:7070) or "
                                  "unix:PATH, not '" + text + "'");
      out.push_back(text);
    }
    return out;
  }

  // One of a few words, e.g. tls: auto|on|off.
  Result<std::string> choice(const Entry& e, const std::string& what, const std::vector<std::string>& words,
                             const std::string& meaning) const {
    RGPU_ASSIGN_OR_RETURN(std::string v, scalar(e, what, words.front()));
    if (std::find(words.begin(), words.end(), v) != words.end()) return v;
    std::string listed;  // "a, b or c"
    for (size_t i = 0; i < words.size(); ++i) listed += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
    return error(e.value_mark(), what + " must be " + listed + " (" + meaning + "), not '" + v + "'");
  }

  void policy(const Entry& parent, PoolPolicy* out) {
    auto es = entries(parent.value, parent.key_mark, "policy",
                      {"placement", "quantum_ms", "idle_release_ms", "min_share_percent", "memory_overcommit",
                       "swap_idle_ms", "mps"});
    if (!note(es.status())) return;
    for (const auto& e : *es) {
      const std::string what = "policy." + e.key;
      bool good = true;
      if (e.key == "placement") {
        std::string p;
        good = take(choice(e, what, {"pack", "spread"},
                           "pack fills one GPU before the next, spread takes the GPU with the most free"),
                    &p);
        out->placement = p == "spread" ? Placement::kSpread : Placement::kPack;
      } else if (e.key == "quantum_ms") {
        good = take(integer(e, what, 1, 1000, false), &out->quantum_ms);
      } else if (e.key == "idle_release_ms") {
        good = take(integer(e, what, 1, 1000, false), &out->idle_release_ms);
      } else if (e.key == "min_share_percent") {
        good = take(integer(e, what, 0, 50, true), &out->min_share_percent);
      } else if (e.key == "memory_overcommit") {
        std::string v;
        if (!take(scalar(e, what, "2.0"), &v)) continue;
        double x = 0;
        auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
        good = ec == std::errc() && end == v.data() + v.size() && x >= 1.0 && x <= 10.0;
        if (!good)
          note(error(e.value_mark(), what + " must be a number from 1 (no over-commit) to 10, e.g. 2.0 "
                                            "(each GPU's memory may be promised twice over), not '" + v + "'"));
        else out->memory_overcommit = x;
      } else if (e.key == "swap_idle_ms") {
        good = take(integer(e, what, 1, 3600000, false), &out->swap_idle_ms);
      } else if (e.key == "mps") {
        std::string v;
        good = take(choice(e, what, {"true", "false"}, "true: the GPUs are shared through NVIDIA MPS"), &v);
        out->mps = v == "true";
      }
      if (good) mark_line(what, e.key_mark);
    }
  }

  // A tenant, or nullopt when it has no name or no token (the errors are recorded).
  std::optional<TenantSpec> tenant(const YAML::Node& node, size_t index, const YAML::Mark& list_mark) {
    const std::string what = "tenant #" + std::to_string(index + 1);
    auto es = entries(node, list_mark, what,
                      {"name", "token", "memory", "memory_host", "compute", "compute_limit", "priority", "queue_timeout"});
    if (!note(es.status())) return std::nullopt;
    TenantSpec t;
    bool name_given = false, has_name = false, has_token = false, has_compute = false, has_limit = false;
    YAML::Mark limit_mark;
    for (const auto& e : *es) {
      if (e.key == "name") {
        name_given = true;
        if (!take(scalar(e, what + "'s name", "inference"), &t.name)) continue;
        if (Status st = check_tenant_name(t.name); !st.is_ok()) note(error(e.value_mark(), what + "'s " + st.message()));
        else has_name = true;
      } else if (e.key == "token") {
        has_token = take(scalar(e, what + "'s token", "a-long-random-secret"), &t.token);
      } else if (e.key == "memory" || e.key == "memory_host") {
        std::string text;
        if (!take(scalar(e, what + "'s " + e.key, e.key == "memory" ? "4096M" : "8G"), &text)) continue;
        auto bytes = parse_memory_size(text);
        if (!bytes.is_ok()) note(error(e.value_mark(), what + "'s " + e.key + ": " + bytes.status().message()));
        else (e.key == "memory" ? t.memory_bytes : t.memory_host_bytes) = *bytes;
      } else if (e.key == "compute") {
        has_compute = take(integer(e, what + "'s compute", 0, 100, true), &t.compute);
      } else if (e.key == "compute_limit") {
        has_limit = take(integer(e, what + "'s compute_limit", 1, 100, true), &t.compute_limit);
        limit_mark = e.value_mark();
      } else if (e.key == "queue_timeout") {
        take(integer(e, what + "'s queue_timeout (seconds)", 0, 86400, false), &t.queue_timeout_s);
      } else if (e.key == "priority") {
        std::string text;
        if (!take(scalar(e, what + "'s priority", "normal"), &text)) continue;
        auto p = parse_priority(text);
        if (!p.is_ok()) note(error(e.value_mark(), what + "'s priority: " + p.status().message()));
        else t.priority = *p;
      }
    }
    const YAML::Mark mark = node.Mark();
    if (!has_name) {  // a bad name has its error already
      if (!name_given) note(error(mark, what + " has no name: add name: followed by a word (letters, digits, -, _)"));
      return std::nullopt;
    }
    const std::string named = "tenant '" + t.name + "'";
    if (!has_token || t.token.empty()) {
      note(error(mark, named + " needs a non-empty token (the secret its clients put in RGPU_TOKEN): add token: ..."));
      return std::nullopt;
    }
    if (!has_limit) t.compute_limit = default_compute_limit(has_compute ? t.compute : 0);
    if (t.compute_limit < t.compute)
      note(error(limit_mark, named + "'s compute_limit " + std::to_string(t.compute_limit) +
                                 " is below its compute " + std::to_string(t.compute) +
                                 ": the cap must be at least the guarantee (compute.." + "100)"));
    return t;
  }

  void tenants(const Entry& e, DaemonConfig* config) {
    if (!e.value.IsSequence() || e.value.size() == 0) {
      note(error(e.value_mark(), "tenants must be a list of tenants, each starting with '- name: ...' and a token"));
      return;
    }
    std::map<std::string, int> names, tokens;  // -> line
    for (size_t i = 0; i < e.value.size(); ++i) {
      const YAML::Node node = e.value[i];
      std::optional<TenantSpec> t = tenant(node, i, e.value.Mark());
      if (!t) continue;
      const int line = node.Mark().line + 1;
      if (auto n = names.find(t->name); n != names.end()) {
        note(error(node.Mark(), "tenant name '" + t->name + "' is used twice (first at line " +
                                    std::to_string(n->second) + "); give each tenant its own name"));
        continue;
      }
      if (auto k = tokens.find(t->token); k != tokens.end()) {
        note(error(node.Mark(), "tenant '" + t->name + "' has the same token as the tenant at line " +
                                    std::to_string(k->second) +
                                    "; each tenant needs its own token, since the token says which tenant a client is"));
        continue;
      }
      names.emplace(t->name, line);
      tokens.emplace(t->token, line);
      mark_line("tenants." + t->name, node.Mark());
      config->tenants.push_back(std::move(*t));
    }
  }

  // metrics: {listen: HOST:PORT | off}
  void metrics(const Entry& parent, std::optional<std::string>* listen) {
    auto es = entries(parent.value, parent.key_mark, "metrics", {"listen"});
    if (!note(es.status())) return;
    for (const auto& e : *es) {
      std::string text;
      if (!take(scalar(e, "metrics.listen", "127.0.0.1:9449"), &text)) continue;
      if (text != "off" && !is_host_port(text)) {
        note(error(e.value_mark(), "metrics.listen must be HOST:PORT with a port in 1..65535 (e.g. 127.0.0.1:9449; "
                                   "0.0.0.0:9449 serves every network) or off, not '" + text + "'"));
        continue;
      }
      *listen = text;
      mark_line("metrics.listen", e.key_mark);
    }
  }

  // The top level's keys, each read into `config`.
  void top_level(const Entry& e, DaemonConfig* config) {
    bool good = true;
    if (e.key == "listen") {
      good = take(listen(e), &config->listen);
    } else if (e.key == "tls") {
      good = take(choice(e, "tls", {"auto", "on", "off"},
                         "auto: plain TCP only from this host, TLS from others; on: TLS only; off: plain TCP from "
                         "anywhere"),
                  &config->tls);
    } else if (e.key == "backend") {
      good = take(choice(e, "backend", {"cuda", "emulated"}, "cuda: the real GPUs; emulated: no GPU, for tests"),
                  &config->backend);
    } else if (e.key == "log_level") {
      good = take(choice(e, "log_level", {"error", "warn", "info", "debug"}, "the least severe level logged"),
                  &config->log_level);
    } else if (e.key == "log_format") {
      good = take(choice(e, "log_format", {"text", "json"}, "json: each line one JSON object"), &config->log_format);
    } else if (e.key == "module_cache") {
      std::string dir;
      good = take(scalar(e, "module_cache", "/var/cache/rgpu/modules"), &dir);
      if (good && !dir.empty() && dir.front() != '/') {
        note(error(e.value_mark(), "module_cache must be an absolute directory path (e.g. /var/cache/rgpu/modules) "
                                   "or \"\" for no cache, not '" + dir + "'"));
        good = false;
      }
      if (good) config->module_cache = dir;
    } else if (e.key == "peer_timeout_s") {
      good = take(integer(e, "peer_timeout_s", 0, 3600, false), &config->peer_timeout_s);
    } else if (e.key == "admin_token") {
      good = take(scalar(e, "admin_token", "a-long-random-secret"), &config->admin_token);
    } else if (e.key == "policy") {
      policy(e, &config->policy);
    } else if (e.key == "metrics") {
      metrics(e, &config->metrics_listen);
    } else if (e.key == "tenants") {
      tenants(e, config);
    }
    if (good) mark_line(e.key, e.key_mark);
  }

  Result<DaemonConfig> parse(std::string_view text) {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      return error(e.mark, "not valid YAML: " + e.msg + " (check the indentation and brackets near here)");
    }
    DaemonConfig config;
    config.source = source_;
    if (root.IsNull()) return config;  // an empty file: every setting's default
    auto es = entries(root, YAML::Mark(), "the file",
                      {"listen", "tls", "backend", "admin_token", "log_level", "log_format", "module_cache",
                       "peer_timeout_s", "policy", "metrics", "tenants"});
    if (!note(es.status())) return failed();
    for (const auto& e : *es) top_level(e, &config);
    if (!config.admin_token.empty()) {
      for (const auto& e : *es) {
        if (e.key != "admin_token") continue;
        for (const auto& t : config.tenants)
          if (t.token == config.admin_token)
            note(error(e.value_mark(), "admin_token is the same as the token of tenant '" + t.name +
                                           "'; the admin token must differ from every tenant's token"));
      }
    }
    if (!errors_.empty()) return failed();
    config.lines = std::move(lines_);
    return config;
  }

 private:
  void mark_line(const std::string& key, const YAML::Mark& mark) { lines_[key] = mark.line + 1; }

  // Every error recorded, one a line, in the order of the file (by the LINE:COL each message
  // starts with after the file's name; one without comes last).
  Status failed() const {
    auto position = [this](const std::string& message) {
      const std::pair<int, int> unknown{INT_MAX, INT_MAX};
      if (!message.starts_with(source_ + ":")) return unknown;
      const char* end = message.data() + message.size();
      std::pair<int, int> at;
      auto line = std::from_chars(message.data() + source_.size() + 1, end, at.first);
      if (line.ec != std::errc() || line.ptr == end || *line.ptr != ':') return unknown;
      std::from_chars(line.ptr + 1, end, at.second);
      return at;
    };
    std::vector<std::string> sorted = errors_;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [&](const std::string& a, const std::string& b) { return position(a) < position(b); });
    std::string all;
    for (const std::string& e : sorted) all += (all.empty() ? "" : "\n") + e;
    return Status(Code::kInvalidArgument, all);
  }

  std::string source_;
  std::vector<std::string> errors_;
  std::map<std::string, int> lines_;
};

}  // namespace

Result<DaemonConfig> load_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status(Code::kIo, path + ": cannot read the configuration file: " + std::strerror(errno) +
                                 " (check the path given to --config)");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), path);
}

Result<DaemonConfig> parse_config(std::string_view text, const std::string& source) {
  return Parser(source).parse(text);
}

DaemonConfig default_config(const std::string& token) {
  DaemonConfig config;
  config.admin_token = token;
  TenantSpec t;
  t.name = "default";
  t.token = token;
  config.tenants.push_back(std::move(t));
  return config;
}

Status check_tenant_name(std::string_view name) {
  const bool charset_ok = std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '/';
  });
  if (name.empty() || name.size() > 253 || !charset_ok)
    return Status(Code::kInvalidArgument, "name must be 1..253 letters, digits, '-', '_', '.' or '/', not '" +
                                              std::string(name) + "'");
  if (std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return Status(Code::kInvalidArgument, "name '" + std::string(name) +
                                              "' is all digits, which `rgpu pool set` would read as a session id; add a letter");
  return Status::ok();
}

Result<int> parse_priority(std::string_view text) {
  if (text == "high") return kPriorityHigh;
  if (text == "normal") return kPriorityNormal;
  if (text == "low") return kPriorityLow;
  int v = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (begin != end && *begin == '+') ++begin;
  auto [p, ec] = std::from_chars(begin, end, v);
  if (text.empty() || ec != std::errc() || p != end || v < -100 || v > 100)
    return Status(Code::kInvalidArgument, "priority must be high (" + std::to_string(kPriorityHigh) + "), normal (" +
                                              std::to_string(kPriorityNormal) + "), low (" +
                                              std::to_string(kPriorityLow) + ") or a number in -100..100, not '" +
                                              std::string(text) + "'");
  return v;
}

std::string priority_name(int priority) {
  switch (priority) {
    case kPriorityHigh: return "high";
    case kPriorityNormal: return "normal";
    case kPriorityLow: return "low";
    default: return std::to_string(priority);
  }
}

}  // namespace rgpu::pool
