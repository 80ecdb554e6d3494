// The pool's control API (see pool_admin.h): one table of handlers, from which `help`, the
// permission check and the "unknown request" message are generated.
//
// JSON output: hand-written, keys stable, numbers in base units named by the key's suffix:
// *_bytes (bytes), *_percent (0..100, integers), *_fraction (0..1), *_seconds. Every reply is an
// object with "ok"; a failed one carries "error" (the same text as the text reply).
#include "server/pool/pool_admin.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "common/json_string.h"
#include "common/memory_size.h"
#include "common/utf8.h"
#include "server/pool/nearest.h"

namespace rgpu::pool {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

// ---- JSON ------------------------------------------------------------------------------------

std::string json_number(double v, const char* format = "%.6g") {
  if (!std::isfinite(v)) v = 0;
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// An object written key by key: {"a":1,"b":"x"}.
class JsonObject {
 public:
  JsonObject& raw(const char* key, const std::string& value) {
    // Appended piece by piece: GCC 12's -Wrestrict misfires on `"x" + std::string` at -O3.
    if (out_.size() > 1) out_ += ',';
    out_ += json_string(key);
    out_ += ':';
    out_ += value;
    return *this;
  }
  JsonObject& str(const char* key, std::string_view v) { return raw(key, json_string(v)); }
  JsonObject& num(const char* key, uint64_t v) { return raw(key, std::to_string(v)); }
  JsonObject& num(const char* key, int64_t v) { return raw(key, std::to_string(v)); }
  JsonObject& real(const char* key, double v, const char* format = "%.6g") { return raw(key, json_number(v, format)); }
  JsonObject& boolean(const char* key, bool v) { return raw(key, v ? "true" : "false"); }
  std::string done() const { return out_ + "}"; }

 private:
  std::string out_ = "{";
};

std::string json_array(const std::vector<std::string>& items) {
  std::string out = "[";
  out += join_words(items, ",");
  out += ']';
  return out;
}

std::string slice_json(uint64_t id, const Slice& s) {
  return JsonObject()
      .num("id", id)
      .raw("gpu", s.sliced() ? std::to_string(s.gpu) : "null")
      .num("memory_slice_bytes", s.memory_bytes)
      .num("compute_percent", uint64_t{s.compute})
      .num("compute_limit_percent", uint64_t{s.compute_limit})
      .num("priority", int64_t{s.priority})
      .str("priority_name", priority_name(s.priority))
      .done();
}

// ---- text tables -----------------------------------------------------------------------------

// Printable on a terminal: control characters become '?'.
std::string printable(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out.empty() ? "-" : out;
}

// Columns padded to their widest cell; `right` columns are numbers, right-aligned.
class Table {
 public:
  Table(std::vector<std::string> header, std::vector<bool> right) : right_(std::move(right)) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string render(const std::string& indent = "") const {
    std::vector<size_t> width(rows_[0].size(), 0);
    for (const auto& r : rows_)
      for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
    std::string out;
    for (const auto& r : rows_) {
      std::string line = indent;
      for (size_t c = 0; c < r.size(); ++c) {
        const std::string pad(width[c] - r[c].size(), ' ');
        if (c) line += "  ";
        line += right_[c] ? pad + r[c] : r[c] + (c + 1 < r.size() ? pad : "");
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
    return out;
  }

 private:
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

std::string mib(uint64_t bytes) { return std::to_string(bytes / kMiB); }
std::string percent(double fraction) {
  if (!std::isfinite(fraction) || fraction < 0) fraction = 0;
  return std::to_string(static_cast<long long>(std::lround(fraction * 100)));
}

std::string age_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) seconds = 0;
  const auto s = static_cast<uint64_t>(seconds);
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%llus", static_cast<unsigned long long>(s));
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%llum%02llus", static_cast<unsigned long long>(s / 60), static_cast<unsigned long long>(s % 60));
  else if (s < 86400) std::snprintf(buf, sizeof buf, "%lluh%02llum", static_cast<unsigned long long>(s / 3600), static_cast<unsigned long long>(s / 60 % 60));
  else std::snprintf(buf, sizeof buf, "%llud%02lluh", static_cast<unsigned long long>(s / 86400), static_cast<unsigned long long>(s / 3600 % 24));
  return buf;
}

std::string seconds_of(Duration d) { return age_text(std::chrono::duration<double>(d).count()); }

// The admission queue, in start order; nothing when it is empty.
std::string queue_text(const PoolView& v) {
  if (v.queue.empty()) return "";
  Table queue({"QUEUED", "SESSION", "TENANT", "HOST:PID", "PROGRAM", "ASKS MEMORY", "COMPUTE", "PRIORITY", "WAITED",
               "GIVES UP AFTER"},
              {true, true, false, false, false, true, true, false, true, true});
  for (const auto& q : v.queue)
    queue.add({std::to_string(q.status.position), std::to_string(q.id), printable(q.tenant),
               printable(q.host) + ":" + std::to_string(q.pid), printable(q.program),
               q.slice.memory_bytes ? mib(q.slice.memory_bytes) + " MiB" : "-", std::to_string(q.slice.compute) + "%",
               priority_name(q.slice.priority), seconds_of(q.status.waited),
               q.status.timeout ? seconds_of(*q.status.timeout) : "never"});
  return queue.render() + "\n";
}

std::string view_text(const PoolView& v, const std::string& heading) {
  std::string out = heading + "\n\n";
  Table gpus({"GPU", "NAME", "MEMORY TOTAL", "RESERVED", "USED", "COMPUTE RESERVED", "BUSY", "SESSIONS"},
             {true, false, true, true, true, true, true, true});
  for (const auto& g : v.gpus)
    gpus.add({std::to_string(g.index), printable(g.name), mib(g.total_bytes) + " MiB", mib(g.reserved_bytes) + " MiB",
              mib(g.used_bytes) + " MiB", std::to_string(g.compute_reserved) + "%", percent(g.busy) + "%",
              std::to_string(g.sessions)});
  out += v.gpus.empty() ? "no GPUs\n" : gpus.render();
  out += "\n";
  out += queue_text(v);
  if (v.sessions.empty()) return out + "no sessions\n";
  // MEMORY: used / slice MiB ("-": no memory limit), "+N on host" while swapped out. COMPUTE: achieved / guaranteed / cap percent.
  Table sessions({"SESSION", "TENANT", "HOST:PID", "PROGRAM", "GPU", "MEMORY USED/SLICE", "COMPUTE NOW/SHARE/CAP",
                  "PRIORITY", "AGE"},
                 {true, false, false, false, true, true, true, false, true});
  for (const auto& s : v.sessions) {
    const Slice& sl = s.slice;
    sessions.add({std::to_string(s.id), printable(s.tenant), printable(s.host) + ":" + std::to_string(s.pid),
                  printable(s.program), sl.sliced() ? std::to_string(sl.gpu) : "all",
                  mib(s.memory_used) + "/" + (sl.memory_bytes ? mib(sl.memory_bytes) : "-") + " MiB" +
                      (s.memory_host ? " +" + mib(s.memory_host) + " on host" : ""),
                  sl.sliced() ? percent(s.share) + "/" + std::to_string(sl.compute) + "/" +
                                    std::to_string(sl.compute_limit) + "%"
                              : "whole GPU",
                  priority_name(sl.priority), age_text(s.age_s)});
  }
  return out + sessions.render();
}

std::string view_json(const PoolView& v) {
  std::vector<std::string> gpus, sessions;
  for (const auto& g : v.gpus)
    gpus.push_back(JsonObject()
                       .num("index", int64_t{g.index})
                       .str("name", g.name)
                       .num("memory_total_bytes", g.total_bytes)
                       .num("memory_reserved_bytes", g.reserved_bytes)
                       .num("memory_used_bytes", g.used_bytes)
                       .num("compute_reserved_percent", uint64_t{g.compute_reserved})
                       .real("busy_fraction", g.busy)
                       .num("sessions", uint64_t{g.sessions})
                       .boolean("healthy", g.healthy)
                       .done());
  for (const auto& s : v.sessions)
    sessions.push_back(JsonObject()
                           .num("id", s.id)
                           .str("tenant", s.tenant)
                           .str("host", s.host)
                           .num("pid", uint64_t{s.pid})
                           .str("program", s.program)
                           .raw("gpu", s.slice.sliced() ? std::to_string(s.slice.gpu) : "null")
                           .num("memory_used_bytes", s.memory_used)
                           .num("memory_host_bytes", s.memory_host)
                           .num("memory_slice_bytes", s.slice.memory_bytes)
                           .num("compute_percent", uint64_t{s.slice.compute})
                           .num("compute_limit_percent", uint64_t{s.slice.compute_limit})
                           .real("share_fraction", s.share)
                           .num("priority", int64_t{s.slice.priority})
                           .str("priority_name", priority_name(s.slice.priority))
                           .real("age_seconds", s.age_s, "%.3f")
                           .done());
  std::vector<std::string> queue;
  for (const auto& q : v.queue)
    queue.push_back(JsonObject()
                        .num("position", uint64_t{q.status.position})
                        .num("id", q.id)
                        .str("tenant", q.tenant)
                        .str("host", q.host)
                        .num("pid", uint64_t{q.pid})
                        .str("program", q.program)
                        .num("memory_slice_bytes", q.slice.memory_bytes)
                        .num("compute_percent", uint64_t{q.slice.compute})
                        .num("priority", int64_t{q.slice.priority})
                        .real("waited_seconds", std::chrono::duration<double>(q.status.waited).count(), "%.3f")
                        .raw("timeout_seconds", q.status.timeout ? json_number(std::chrono::duration<double>(*q.status.timeout).count(), "%.3f") : "null")
                        .str("waiting_for", q.status.waiting_for)
                        .done());
  return JsonObject()
      .boolean("ok", true)
      .raw("gpus", json_array(gpus))
      .raw("sessions", json_array(sessions))
      .raw("queue", json_array(queue))
      .done();
}

// ---- the handlers ----------------------------------------------------------------------------

struct Context {
  Pool& pool;
  const AdminCaller& caller;
  const AdminRequest& request;
  TimePoint now;
};

struct Handler {
  const char* name;
  const char* usage;
  const char* help;
  bool mutates;     // changes the pool's state
  bool admin_only;  // needs the admin token
  bool takes_args;  // positional or key=value arguments (the others refuse any)
  AdminReply (*handle)(const Context&);
};

AdminReply fail(const AdminRequest& request, const std::string& message) {
  AdminReply r;
  r.ok = false;
  r.text = request.json ? JsonObject().boolean("ok", false).str("error", message).done() : message;
  return r;
}

AdminReply ok_text(std::string text) {
  AdminReply r;
  r.ok = true;
  r.text = std::move(text);
  return r;
}

AdminReply handle_pool(const Context& c) {
  const PoolView v = c.pool.view(c.now);
  if (c.request.json) return ok_text(view_json(v));
  const std::string heading = "rgpud pool: " + std::to_string(v.gpus.size()) + " GPU" + (v.gpus.size() == 1 ? "" : "s") +
                              ", " + std::to_string(v.sessions.size()) + " session" + (v.sessions.size() == 1 ? "" : "s") +
                              (v.queue.empty() ? std::string() : ", " + std::to_string(v.queue.size()) + " queued") +
                              ", placement " +
                              (c.pool.config().policy.placement == Placement::kPack ? "pack" : "spread");
  return ok_text(view_text(v, heading));
}

AdminReply handle_ls(const Context& c) {
  if (c.caller.admin) return handle_pool(c);
  const PoolView v = c.pool.view(c.now, &c.caller.tenant);
  if (c.request.json) return ok_text(view_json(v));
  const std::string heading = "tenant " + printable(c.caller.tenant) + ": " + std::to_string(v.sessions.size()) +
                              " session" + (v.sessions.size() == 1 ? "" : "s") +
                              " (the GPUs' figures include every tenant's sessions)";
  return ok_text(view_text(v, heading));
}

Result<uint32_t> parse_percent(const std::string& key, std::string_view value, uint32_t lo) {
  std::string_view s = value;
  if (!s.empty() && s.back() == '%') s.remove_suffix(1);
  uint32_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v < lo || v > 100)
    return Status(Code::kInvalidArgument, key + "=" + std::string(value) + ": " + key + " must be a whole percent in " +
                                              std::to_string(lo) + "..100, e.g. " + key + "=30");
  return v;
}

// The key=value arguments from args[from] on, each key one of `keys` and given once unless it is
// `repeatable`; the error names the bad argument and the usage.
Result<std::vector<std::pair<std::string, std::string>>> key_values(const std::vector<std::string>& args, size_t from,
                                                                    const std::vector<std::string>& keys,
                                                                    std::string_view repeatable, std::string_view usage) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = from; i < args.size(); ++i) {
    const std::string& a = args[i];
    const size_t eq = a.find('=');
    if (eq == std::string::npos || eq == 0)
      return Status(Code::kInvalidArgument, "'" + a + "' is not key=value; " + std::string(usage));
    std::string key = a.substr(0, eq);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      std::string msg = "unknown key '" + key + "'";
      if (auto best = nearest_word(key, keys)) msg += "; did you mean '" + *best + "'?";
      return Status(Code::kInvalidArgument, msg + " (keys: " + join_words(keys) + ")");
    }
    const bool seen = std::any_of(out.begin(), out.end(), [&](const auto& kv) { return kv.first == key; });
    if (seen && key != repeatable) return Status(Code::kInvalidArgument, "'" + key + "' is given twice; give it once");
    out.emplace_back(std::move(key), a.substr(eq + 1));
  }
  return out;
}

AdminReply handle_set(const Context& c) {
  const auto& args = c.request.args;
  const char* usage = "usage: set TARGET memory=SIZE compute=PERCENT compute_limit=PERCENT when_free=1 (TARGET: a session id or a tenant name)";
  if (args.empty() || args[0].find('=') != std::string::npos)
    return fail(c.request, std::string("`set` needs a target first, a session id or a tenant name; ") + usage);
  auto kvs = key_values(args, 1, {"memory", "compute", "compute_limit", "when_free"}, "", usage);
  if (!kvs.is_ok()) return fail(c.request, kvs.status().message());
  SliceChange change;
  for (const auto& [key, value] : *kvs) {
    if (key == "memory") {
      auto bytes = parse_memory_size(value);
      if (!bytes.is_ok()) return fail(c.request, "memory=" + value + ": " + bytes.status().message());
      change.memory_bytes = *bytes;
    } else if (key == "compute") {
      auto v = parse_percent(key, value, 0);
      if (!v.is_ok()) return fail(c.request, v.status().message());
      change.compute = *v;
    } else if (key == "compute_limit") {
      auto v = parse_percent(key, value, 1);
      if (!v.is_ok()) return fail(c.request, v.status().message());
      change.compute_limit = *v;
    } else {
      if (value == "1" || value == "true" || value == "yes" || value == "on") change.when_free = true;
      else if (value == "0" || value == "false" || value == "no" || value == "off") change.when_free = false;
      else return fail(c.request, "when_free=" + value + ": say when_free=1 or when_free=0");
    }
  }
  if (!change.memory_bytes && !change.compute && !change.compute_limit)
    return fail(c.request, std::string("nothing to change: give at least one of memory=, compute=, compute_limit=; ") + usage);
  std::string summary;
  auto r = c.pool.set(args[0], change, c.now, &summary);
  if (!r.is_ok()) return fail(c.request, r.status().message());
  AdminReply reply;
  reply.ok = true;
  reply.actions = std::move(*r);
  if (c.request.json) {
    std::vector<std::string> resliced;
    for (const auto& [id, s] : reply.actions.reslice) resliced.push_back(slice_json(id, s));
    reply.text = JsonObject().boolean("ok", true).str("summary", summary).raw("resliced", json_array(resliced)).done();
  } else {
    reply.text = summary + "\n";
  }
  return reply;
}

// `tenant add NAME token=T [token=T2] [memory=SIZE] ...`: a tenant spec from key=value arguments.
Result<TenantSpec> tenant_from_args(const std::vector<std::string>& args, std::string_view usage) {
  TenantSpec t;
  t.name = args[1];
  t.added_live = true;
  RGPU_ASSIGN_OR_RETURN(auto kvs, key_values(args, 2,
                                             {"token", "memory", "memory_host", "compute", "compute_limit", "priority",
                                              "queue_timeout"},
                                             "token", usage));
  bool has_limit = false;
  for (const auto& [key, value] : kvs) {
    if (key == "token") {
      (t.token.empty() ? t.token : t.aliases.emplace_back()) = value;
    } else if (key == "memory" || key == "memory_host") {
      auto bytes = parse_memory_size(value);
      if (!bytes.is_ok()) return Status(Code::kInvalidArgument, key + "=" + value + ": " + bytes.status().message());
      (key == "memory" ? t.memory_bytes : t.memory_host_bytes) = *bytes;
    } else if (key == "compute" || key == "compute_limit") {
      RGPU_ASSIGN_OR_RETURN(uint32_t v, parse_percent(key, value, key == "compute" ? 0 : 1));
      (key == "compute" ? t.compute : t.compute_limit) = v;
      has_limit = has_limit || key == "compute_limit";
    } else if (key == "priority") {
      RGPU_ASSIGN_OR_RETURN(t.priority, parse_priority(value));
    } else {
      uint32_t s = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), s);
      if (value.empty() || ec != std::errc() || p != value.data() + value.size() || s > 86400)
        return Status(Code::kInvalidArgument, "queue_timeout=" + value + ": seconds, 0..86400");
      t.queue_timeout_s = s;
    }
  }
  if (t.token.empty())
    return Status(Code::kInvalidArgument, "tenant '" + t.name + "' needs token=SECRET (its clients' RGPU_TOKEN); " +
                                              std::string(usage));
  if (!has_limit) t.compute_limit = default_compute_limit(t.compute);
  return t;
}

std::string tenant_line(const TenantSpec& t) {
  char line[512];
  std::snprintf(line, sizeof line, "  %-32s %10s %10s %7s %7s %8s\n", printable(t.name).c_str(),
                t.memory_bytes ? std::to_string(t.memory_bytes / kMiB).c_str() : "-",
                t.memory_host_bytes ? std::to_string(t.memory_host_bytes / kMiB).c_str() : "-",
                (std::to_string(t.compute) + "%").c_str(), (std::to_string(t.compute_limit) + "%").c_str(),
                priority_name(t.priority).c_str());
  return line;
}

AdminReply handle_tenant(const Context& c) {
  const auto& args = c.request.args;
  const char* usage =
      "usage: tenant list | tenant add NAME token=SECRET [token=SECRET2] [memory=SIZE] [memory_host=SIZE] "
      "[compute=PERCENT] [compute_limit=PERCENT] [priority=P] [queue_timeout=S] | tenant remove NAME";
  const std::string what = args.empty() ? "" : args[0];
  if (what == "list" && args.size() == 1) {
    const DaemonConfig& config = c.pool.config();
    std::vector<std::string> items;
    std::string text = "  name                                 memory MiB   host MiB compute     cap priority\n";
    for (size_t i = 0; i < config.tenants.size(); ++i) {
      if (c.pool.tenant_removed(i)) continue;
      const TenantSpec& t = config.tenants[i];
      text += tenant_line(t);
      items.push_back(JsonObject()
                          .str("name", t.name)
                          .num("memory_slice_bytes", t.memory_bytes)
                          .num("memory_host_bytes", t.memory_host_bytes)
                          .num("compute_percent", uint64_t{t.compute})
                          .num("compute_limit_percent", uint64_t{t.compute_limit})
                          .num("priority", int64_t{t.priority})
                          .done());
    }
    return ok_text(c.request.json ? JsonObject().boolean("ok", true).raw("tenants", json_array(items)).done() : text);
  }
  AdminReply reply;
  std::string done;
  if (what == "add" && args.size() >= 2) {
    auto spec = tenant_from_args(args, usage);
    if (!spec.is_ok()) return fail(c.request, spec.status().message());
    const std::string line = tenant_line(*spec);
    if (Status st = c.pool.add_tenant(std::move(*spec)); !st.is_ok()) return fail(c.request, st.message());
    done = "tenant added: " + line.substr(2);
  } else if (what == "remove" && args.size() == 2) {
    auto actions = c.pool.remove_tenant(args[1], c.now);
    if (!actions.is_ok()) return fail(c.request, actions.status().message());
    reply.actions = std::move(*actions);
    done = "tenant removed: " + printable(args[1]) + " (its running sessions keep their slices until they end)\n";
  } else {
    return fail(c.request, usage);
  }
  reply.ok = true;
  reply.tenants_changed = true;
  reply.text = c.request.json ? JsonObject().boolean("ok", true).str("summary", done.substr(0, done.size() - 1)).done() : done;
  return reply;
}

AdminReply handle_help(const Context& c);

const std::vector<Handler>& handlers() {
  static const std::vector<Handler> table = {
      {"pool", "pool", "every GPU and every session: reservations, use, shares", false, true, false, handle_pool},
      {"ls", "ls", "the GPUs and your own sessions (the admin sees all)", false, false, false, handle_ls},
      {"set", "set TARGET [memory=SIZE] [compute=PERCENT] [compute_limit=PERCENT] [when_free=1]",
       "change a session's slice (TARGET a session id) or a tenant's (TARGET its name: its running and later "
       "sessions); SIZE like 4096, 4096M, 4G; when_free=1 lets memory shrink below what is held, applying as it frees",
       true, true, true, handle_set},
      {"tenant", "tenant list | tenant add NAME token=SECRET [token=...] [memory=SIZE] [memory_host=SIZE] "
       "[compute=PERCENT] [compute_limit=PERCENT] [priority=P] [queue_timeout=S] | tenant remove NAME",
       "the tenants; add one while rgpud runs (its clients prove any of its tokens), or remove one (its tokens admit "
       "no new session, its queued ones are refused, its running ones keep their slices until they end)",
       true, true, true, handle_tenant},
      {"help", "help [REQUEST]", "this list, or one request's usage", false, false, true, handle_help},
  };
  return table;
}

const Handler* find_handler(std::string_view name) {
  for (const auto& h : handlers())
    if (name == h.name) return &h;
  return nullptr;
}

std::vector<std::string> handler_names() {
  std::vector<std::string> names;
  for (const auto& h : handlers()) names.emplace_back(h.name);
  return names;
}

AdminReply handle_help(const Context& c) {
  std::vector<const Handler*> shown;
  if (c.request.args.empty()) {
    for (const auto& h : handlers()) shown.push_back(&h);
  } else if (const Handler* h = find_handler(c.request.args[0])) {
    shown.push_back(h);
  } else {
    return fail(c.request, "no request '" + c.request.args[0] + "' (requests: " + join_words(handler_names()) + ")");
  }
  if (c.request.json) {
    std::vector<std::string> items;
    for (const Handler* h : shown)
      items.push_back(JsonObject()
                          .str("name", h->name)
                          .str("usage", h->usage)
                          .str("help", h->help)
                          .boolean("mutates", h->mutates)
                          .boolean("admin_only", h->admin_only)
                          .done());
    return ok_text(JsonObject().boolean("ok", true).raw("requests", json_array(items)).done());
  }
  std::string out = shown.size() > 1 ? "requests (add --json for JSON):\n" : "";
  for (const Handler* h : shown) {
    std::string tags;
    if (h->admin_only) tags += "admin";
    if (h->mutates) tags += std::string(tags.empty() ? "" : ", ") + "changes the pool";
    out += "  " + std::string(h->usage) + "\n      " + h->help + (tags.empty() ? "" : " [" + tags + "]") + "\n";
  }
  return ok_text(out);
}

}  // namespace

AdminReply handle_admin(Pool& pool, const AdminCaller& caller, const AdminRequest& request, TimePoint now) {
  const Handler* h = find_handler(request.verb);
  if (!h) {
    std::string msg = "unknown request '" + request.verb + "'";
    if (auto best = nearest_word(request.verb, handler_names())) msg += "; did you mean '" + *best + "'?";
    return fail(request, msg + " (requests: " + join_words(handler_names()) + "; `help` describes them)");
  }
  if (h->admin_only && !caller.admin) {
    std::string msg = "`";
    msg.append(h->name).append("` needs the admin token: set RGPU_TOKEN to rgpud's admin_token");
    if (std::string_view(h->name) == "pool") msg += ", or use `ls` to see your own sessions";
    return fail(request, msg);
  }
  if (!h->takes_args && !request.args.empty())
    return fail(request, std::string("`").append(h->name).append("` takes no arguments (usage: ").append(h->usage).append(")"));
  return h->handle(Context{pool, caller, request, now});
}

}  // namespace rgpu::pool
