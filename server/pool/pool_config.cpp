// rgpud's configuration file (see pool_config.h): YAML through yaml-cpp, checked key by key. Every
// error reads "FILE:LINE:COL: what is wrong; how to fix it" (line and column 1-based, from yaml-cpp's
// Mark of the offending key or value).
#include "server/pool/pool_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
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

class Parser {
 public:
  explicit Parser(const std::string& source) : source_(source.empty() ? "<config>" : source) {}

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

  // The entries of a map, refusing keys not in `known` (naming the nearest one) and duplicates.
  Result<std::vector<Entry>> entries(const YAML::Node& map, const YAML::Mark& map_mark, const std::string& what,
                                     const std::vector<std::string>& known) const {
    if (!map.IsMap())
      return error(map.IsNull() ? map_mark : map.Mark(),
                   what + " must be a map of key: value lines (keys: " + join_words(known) + ")");
    std::vector<Entry> out;
    std::map<std::string, YAML::Mark> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const YAML::Node key = it->first;  // a copy: the iterator yields a temporary pair
      if (!key.IsScalar()) return error(key.Mark(), what + ": a key must be a plain word (keys: " + join_words(known) + ")");
      const std::string name = key.Scalar();
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        std::string msg = "unknown key '" + name + "' in " + what;
        if (auto best = nearest_word(name, known)) msg += "; did you mean '" + *best + "'?";
        msg += " (known keys: " + join_words(known) + ")";
        return error(key.Mark(), msg);
      }
      if (auto s = seen.find(name); s != seen.end())
        return error(key.Mark(), "duplicate key '" + name + "' in " + what + " (first at line " +
                                     std::to_string(s->second.line + 1) + "); keep only one");
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

  Status policy(const Entry& parent, PoolPolicy* out) const {
    RGPU_ASSIGN_OR_RETURN(auto es, entries(parent.value, parent.key_mark, "policy",
                                           {"placement", "quantum_ms", "idle_release_ms", "min_share_percent",
                                            "memory_overcommit", "swap_idle_ms", "mps"}));
    for (const auto& e : es) {
      if (e.key == "placement") {
        RGPU_ASSIGN_OR_RETURN(std::string p, scalar(e, "placement", "pack"));
        if (p == "pack") out->placement = Placement::kPack;
        else if (p == "spread") out->placement = Placement::kSpread;
        else return error(e.value_mark(), "placement must be pack (fill one GPU before the next) or spread (the GPU with the most free), not '" + p + "'");
      } else if (e.key == "quantum_ms") {
        RGPU_ASSIGN_OR_RETURN(out->quantum_ms, integer(e, "policy.quantum_ms", 1, 1000, false));
      } else if (e.key == "idle_release_ms") {
        RGPU_ASSIGN_OR_RETURN(out->idle_release_ms, integer(e, "policy.idle_release_ms", 1, 1000, false));
      } else if (e.key == "min_share_percent") {
        RGPU_ASSIGN_OR_RETURN(out->min_share_percent, integer(e, "policy.min_share_percent", 0, 50, true));
      } else if (e.key == "memory_overcommit") {
        RGPU_ASSIGN_OR_RETURN(std::string v, scalar(e, "policy.memory_overcommit", "2.0"));
        double x = 0;
        auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
        if (ec != std::errc() || end != v.data() + v.size() || !(x >= 1.0 && x <= 10.0))
          return error(e.value_mark(), "policy.memory_overcommit must be a number from 1 (no over-commit) to 10, e.g. 2.0 "
                                       "(each GPU's memory may be promised twice over), not '" + v + "'");
        out->memory_overcommit = x;
      } else if (e.key == "swap_idle_ms") {
        RGPU_ASSIGN_OR_RETURN(out->swap_idle_ms, integer(e, "policy.swap_idle_ms", 1, 3600000, false));
      } else if (e.key == "mps") {
        RGPU_ASSIGN_OR_RETURN(std::string v, scalar(e, "policy.mps", "true"));
        if (v != "true" && v != "false")
          return error(e.value_mark(), "policy.mps must be true (the GPUs are shared through NVIDIA MPS) or false, not '" +
                                           v + "'");
        out->mps = v == "true";
      }
    }
    return Status::ok();
  }

  // metrics: {listen: HOST:PORT | off}
  Status metrics(const Entry& parent, std::optional<std::string>* listen) const {
    RGPU_ASSIGN_OR_RETURN(auto es, entries(parent.value, parent.key_mark, "metrics", {"listen"}));
    for (const auto& e : es) {
      RGPU_ASSIGN_OR_RETURN(std::string text, scalar(e, "metrics.listen", "127.0.0.1:9449"));
      if (text != "off" && !is_host_port(text))
        return error(e.value_mark(), "metrics.listen must be HOST:PORT with a port in 1..65535 (e.g. 127.0.0.1:9449; "
                                     "0.0.0.0:9449 serves every network) or off, not '" + text + "'");
      *listen = text;
    }
    return Status::ok();
  }

  Result<TenantSpec> tenant(const YAML::Node& node, size_t index, const YAML::Mark& list_mark) const {
    const std::string what = "tenant #" + std::to_string(index + 1);
    RGPU_ASSIGN_OR_RETURN(auto es, entries(node, list_mark, what,
                                           {"name", "token", "memory", "memory_host", "compute", "compute_limit", "priority",
                                            "queue_timeout"}));
    TenantSpec t;
    bool has_name = false, has_token = false, has_compute = false, has_limit = false;
    YAML::Mark limit_mark;
    for (const auto& e : es) {
      if (e.key == "name") {
        RGPU_ASSIGN_OR_RETURN(t.name, scalar(e, what + "'s name", "inference"));
        if (Status st = check_tenant_name(t.name); !st.is_ok()) return error(e.value_mark(), what + "'s " + st.message());
        has_name = true;
      } else if (e.key == "token") {
        RGPU_ASSIGN_OR_RETURN(t.token, scalar(e, what + "'s token", "a-long-random-secret"));
        has_token = true;
      } else if (e.key == "memory") {
        RGPU_ASSIGN_OR_RETURN(std::string text, scalar(e, what + "'s memory", "4096M"));
        auto bytes = parse_memory_size(text);
        if (!bytes.is_ok()) return error(e.value_mark(), what + "'s memory: " + bytes.status().message());
        t.memory_bytes = *bytes;
      } else if (e.key == "memory_host") {
        RGPU_ASSIGN_OR_RETURN(std::string text, scalar(e, what + "'s memory_host", "8G"));
        auto bytes = parse_memory_size(text);
        if (!bytes.is_ok()) return error(e.value_mark(), what + "'s memory_host: " + bytes.status().message());
        t.memory_host_bytes = *bytes;
      } else if (e.key == "compute") {
        RGPU_ASSIGN_OR_RETURN(t.compute, integer(e, what + "'s compute", 0, 100, true));
        has_compute = true;
      } else if (e.key == "compute_limit") {
        RGPU_ASSIGN_OR_RETURN(t.compute_limit, integer(e, what + "'s compute_limit", 1, 100, true));
        has_limit = true;
        limit_mark = e.value_mark();
      } else if (e.key == "queue_timeout") {
        RGPU_ASSIGN_OR_RETURN(t.queue_timeout_s, integer(e, what + "'s queue_timeout (seconds)", 0, 86400, false));
      } else if (e.key == "priority") {
        RGPU_ASSIGN_OR_RETURN(std::string text, scalar(e, what + "'s priority", "normal"));
        auto p = parse_priority(text);
        if (!p.is_ok()) return error(e.value_mark(), what + "'s priority: " + p.status().message());
        t.priority = *p;
      }
    }
    const YAML::Mark mark = node.Mark();
    if (!has_name) return error(mark, what + " has no name: add name: followed by a word (letters, digits, -, _)");
    const std::string named = "tenant '" + t.name + "'";
    if (!has_token || t.token.empty())
      return error(mark, named + " needs a non-empty token (the secret its clients put in RGPU_TOKEN): add token: ...");
    if (!has_limit) t.compute_limit = has_compute && t.compute > 0 ? t.compute : 100;
    if (t.compute_limit < t.compute)
      return error(limit_mark, named + "'s compute_limit " + std::to_string(t.compute_limit) +
                                   " is below its compute " + std::to_string(t.compute) +
                                   ": the cap must be at least the guarantee (compute.." + "100)");
    return t;
  }

  Result<DaemonConfig> parse(std::string_view text) const {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      return error(e.mark, "not valid YAML: " + e.msg + " (check the indentation and brackets near here)");
    }
    DaemonConfig config;
    config.source = source_;
    if (root.IsNull()) return error(YAML::Mark::null_mark(), "the file is empty: it needs at least a tenants: list");
    RGPU_ASSIGN_OR_RETURN(auto es, entries(root, YAML::Mark(), "the file", {"listen", "admin_token", "policy", "metrics", "tenants"}));
    bool has_tenants = false;
    for (const auto& e : es) {
      if (e.key == "listen") {
        RGPU_ASSIGN_OR_RETURN(config.listen, listen(e));
      } else if (e.key == "admin_token") {
        RGPU_ASSIGN_OR_RETURN(config.admin_token, scalar(e, "admin_token", "a-long-random-secret"));
      } else if (e.key == "policy") {
        RGPU_TRY(policy(e, &config.policy));
      } else if (e.key == "metrics") {
        RGPU_TRY(metrics(e, &config.metrics_listen));
      } else if (e.key == "tenants") {
        has_tenants = true;
        if (!e.value.IsSequence() || e.value.size() == 0)
          return error(e.value_mark(), "tenants must be a list of tenants, each starting with '- name: ...' and a token");
        std::map<std::string, int> names, tokens;  // -> line
        for (size_t i = 0; i < e.value.size(); ++i) {
          const YAML::Node node = e.value[i];
          RGPU_ASSIGN_OR_RETURN(TenantSpec t, tenant(node, i, e.value.Mark()));
          const int line = node.Mark().line + 1;
          if (auto n = names.find(t.name); n != names.end())
            return error(node.Mark(), "tenant name '" + t.name + "' is used twice (first at line " +
                                          std::to_string(n->second) + "); give each tenant its own name");
          if (auto k = tokens.find(t.token); k != tokens.end())
            return error(node.Mark(), "tenant '" + t.name + "' has the same token as the tenant at line " +
                                          std::to_string(k->second) +
                                          "; each tenant needs its own token, since the token says which tenant a client is");
          names.emplace(t.name, line);
          tokens.emplace(t.token, line);
          config.tenants.push_back(std::move(t));
        }
      }
    }
    if (!has_tenants) return error(YAML::Mark::null_mark(), "no tenants: add a tenants: list, each tenant with a name and a token");
    if (!config.admin_token.empty()) {
      for (const auto& e : es) {
        if (e.key != "admin_token") continue;
        for (const auto& t : config.tenants)
          if (t.token == config.admin_token)
            return error(e.value_mark(), "admin_token is the same as the token of tenant '" + t.name +
                                             "'; the admin token must differ from every tenant's token");
      }
    }
    return config;
  }

 private:
  std::string source_;
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
