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

AdminReply handle_set(const Context& c) {
  const auto& args = c.request.args;
  const char* usage = "usage: set TARGET memory=SIZE compute=PERCENT compute_limit=PERCENT when_free=1 (TARGET: a session id or a tenant name)";
  if (args.empty() || args[0].find('=') != std::string::npos)
    return fail(c.request, std::string("`set` needs a target first, a session id or a tenant name; ") + usage);
  const std::vector<std::string> keys = {"memory", "compute", "compute_limit", "when_free"};
  SliceChange change;
  std::vector<std::string> seen;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    const size_t eq = a.find('=');
    if (eq == std::string::npos || eq == 0)
      return fail(c.request, "'" + a + "' is not key=value; " + usage);
    const std::string key = a.substr(0, eq);
    const std::string value = a.substr(eq + 1);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      std::string msg = "unknown key '" + key + "'";
      if (auto best = nearest_word(key, keys)) msg += "; did you mean '" + *best + "'?";
      return fail(c.request, msg + " (keys: " + join_words(keys) + ")");
    }
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      return fail(c.request, "'" + key + "' is given twice; give it once");
    seen.push_back(key);
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

AdminReply handle_help(const Context& c);

const std::vector<Handler>& handlers() {
  static const std::vector<Handler> table = {
      {"pool", "pool", "every GPU and every session: reservations, use, shares", false, true, false, handle_pool},
      {"ls", "ls", "the GPUs and your own sessions (the admin sees all)", false, false, false, handle_ls},
      {"set", "set TARGET [memory=SIZE] [compute=PERCENT] [compute_limit=PERCENT] [when_free=1]",
       "change a session's slice (TARGET a session id) or a tenant's (TARGET its name: its running and later "
       "sessions); SIZE like 4096, 4096M, 4G; when_free=1 lets memory shrink below what is held, applying as it frees",
       true, true, true, handle_set},
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
