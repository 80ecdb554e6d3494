// rgpud's Prometheus metrics (see pool_metrics.h): the one table of metrics, and its rendering.
// Names follow Prometheus's conventions: `rgpu_` first, the base unit as suffix (`_bytes`,
// `_seconds`, `_ratio` for 0..1), counters ending in `_total`.
#include "server/pool/pool_metrics.h"

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <utility>
#include <vector>

#include "common/utf8.h"

namespace rgpu::pool {

Traffic& Traffic::operator+=(const Traffic& o) {
  calls += o.calls;
  round_trips += o.round_trips;
  bytes_received += o.bytes_received;
  bytes_sent += o.bytes_sent;
  return *this;
}

std::string_view end_cause_label(std::string_view cause) {
  for (std::string_view known : kEndCauses)
    if (cause == known) return known;
  return "error";
}

std::string escape_label_value(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t len = utf8_sequence_length(s, i);
    if (len == 0) {
      out += "\xef\xbf\xbd";  // U+FFFD
      ++i;
      continue;
    }
    if (s[i] == '\\') out += "\\\\";
    else if (s[i] == '"') out += "\\\"";
    else if (s[i] == '\n') out += "\\n";
    else out.append(s.substr(i, len));
    i += len;
  }
  return out;
}

namespace {

// The samples of one metric, as they are collected.
class Samples {
 public:
  using Labels = std::initializer_list<std::pair<const char*, std::string_view>>;
  void add(Labels labels, uint64_t value) { add_text(labels, std::to_string(value)); }
  void add(Labels labels, double value) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", std::isfinite(value) ? value : 0.0);
    add_text(labels, buf);
  }
  const std::vector<std::pair<std::string, std::string>>& lines() const { return lines_; }

 private:
  void add_text(Labels labels, std::string value) {
    std::string text;
    for (const auto& [name, v] : labels) {
      text += text.empty() ? "{" : ",";
      text += name;
      text += "=\"";
      text += escape_label_value(v);
      text += '"';
    }
    if (!text.empty()) text += '}';
    lines_.emplace_back(std::move(text), std::move(value));
  }
  std::vector<std::pair<std::string, std::string>> lines_;
};

struct Metric {
  const char* name;
  const char* type;  // gauge or counter
  const char* help;
  void (*collect)(const MetricsInput& in, Samples& out);
};

// Per GPU: labels gpu (its index) and name.
template <typename F>
void each_gpu(const MetricsInput& in, Samples& out, F value) {
  for (const GpuView& g : in.view.gpus) out.add({{"gpu", std::to_string(g.index)}, {"name", g.name}}, value(g));
}

// Per session: labels session (its id), tenant, client_host, program and gpu (its index, or "all"
// for a whole-GPU session). `value` returns nullopt where the metric does not apply.
template <typename F>
void each_session(const MetricsInput& in, Samples& out, F value) {
  for (const SessionView& s : in.view.sessions) {
    const auto v = value(s);
    if (!v) continue;
    const std::string id = std::to_string(s.id);
    const std::string gpu = s.slice.sliced() ? std::to_string(s.slice.gpu) : "all";
    out.add({{"session", id}, {"tenant", s.tenant}, {"client_host", s.host}, {"program", s.program}, {"gpu", gpu}}, *v);
  }
}

// A live session's traffic counters (zero until its worker's first report).
Traffic traffic_of(const MetricsInput& in, uint64_t session) {
  auto it = in.traffic.find(session);
  return it == in.traffic.end() ? Traffic{} : it->second;
}

// Per tenant: its ended sessions' traffic and its live ones' latest, so the counter never goes back
// when a session ends.
template <typename F>
void each_tenant(const MetricsInput& in, Samples& out, F value) {
  std::map<std::string, Traffic> total = in.counters.ended_traffic;
  for (const SessionView& s : in.view.sessions) total[s.tenant] += traffic_of(in, s.id);
  for (const auto& [tenant, t] : total) out.add({{"tenant", tenant}}, value(t));
}

double percent_ratio(uint32_t percent) { return percent / 100.0; }

// Every metric rgpud serves, in the order of the page.
const Metric kMetrics[] = {
    {"rgpu_gpu_memory_total_bytes", "gauge", "The GPU's memory.",
     [](const MetricsInput& in, Samples& out) { each_gpu(in, out, [](const GpuView& g) { return g.total_bytes; }); }},
    {"rgpu_gpu_memory_reserved_bytes", "gauge",
     "Memory reserved on the GPU: each sliced session's slice, or what it holds if more.",
     [](const MetricsInput& in, Samples& out) { each_gpu(in, out, [](const GpuView& g) { return g.reserved_bytes; }); }},
    {"rgpu_gpu_memory_used_bytes", "gauge", "Memory the sessions' worker processes hold on the GPU.",
     [](const MetricsInput& in, Samples& out) { each_gpu(in, out, [](const GpuView& g) { return g.used_bytes; }); }},
    {"rgpu_gpu_compute_reserved_ratio", "gauge",
     "The compute guarantees of the GPU's sliced sessions, added up (1: the whole GPU).",
     [](const MetricsInput& in, Samples& out) {
       each_gpu(in, out, [](const GpuView& g) { return percent_ratio(g.compute_reserved); });
     }},
    {"rgpu_gpu_compute_busy_ratio", "gauge", "The share of the GPU's time its sliced sessions used (last window).",
     [](const MetricsInput& in, Samples& out) { each_gpu(in, out, [](const GpuView& g) { return g.busy; }); }},
    {"rgpu_gpu_sessions", "gauge", "Sessions placed on the GPU.",
     [](const MetricsInput& in, Samples& out) {
       each_gpu(in, out, [](const GpuView& g) { return static_cast<uint64_t>(g.sessions); });
     }},
    {"rgpu_gpu_healthy", "gauge", "1 while rgpud's health probe reaches the GPU, 0 while it does not (no new session goes there).",
     [](const MetricsInput& in, Samples& out) {
       each_gpu(in, out, [](const GpuView& g) { return static_cast<uint64_t>(g.healthy ? 1 : 0); });
     }},
    {"rgpu_queue_sessions", "gauge", "Sessions waiting in the admission queue for room on a GPU.",
     [](const MetricsInput& in, Samples& out) { out.add({}, static_cast<uint64_t>(in.view.queue.size())); }},
    {"rgpu_session_memory_used_bytes", "gauge", "Device memory the session's worker process holds.",
     [](const MetricsInput& in, Samples& out) {
       each_session(in, out, [](const SessionView& s) { return std::optional<uint64_t>(s.memory_used); });
     }},
    {"rgpu_session_memory_slice_bytes", "gauge", "The session's memory slice (absent: no limit).",
     [](const MetricsInput& in, Samples& out) {
       each_session(in, out, [](const SessionView& s) {
         return s.slice.sliced() && s.slice.memory_bytes ? std::optional<uint64_t>(s.slice.memory_bytes) : std::nullopt;
       });
     }},
    {"rgpu_session_memory_host_bytes", "gauge",
     "The session's memory in host memory: swapped out, or allocated past its slice (memory_host).",
     [](const MetricsInput& in, Samples& out) {
       each_session(in, out, [](const SessionView& s) { return std::optional<uint64_t>(s.memory_host); });
     }},
    {"rgpu_session_compute_share_ratio", "gauge", "The share of its GPU's time the session used (last window).",
     [](const MetricsInput& in, Samples& out) {
       each_session(in, out, [](const SessionView& s) { return std::optional<double>(s.share); });
     }},
    {"rgpu_session_compute_guarantee_ratio", "gauge",
     "The share of its GPU's time guaranteed to the session when contended (sliced sessions).",
     [](const MetricsInput& in, Samples& out) {
       each_session(in, out, [](const SessionView& s) {
         return s.slice.sliced() ? std::optional<double>(percent_ratio(s.slice.compute)) : std::nullopt;
       });
     }},
    {"rgpu_session_compute_cap_ratio", "gauge", "The share of its GPU's time the session never exceeds (sliced sessions).",
     [](const MetricsInput& in, Samples& out) {
       each_session(in, out, [](const SessionView& s) {
         return s.slice.sliced() ? std::optional<double>(percent_ratio(s.slice.compute_limit)) : std::nullopt;
       });
     }},
    {"rgpu_session_calls_total", "counter", "Calls the session executed.",
     [](const MetricsInput& in, Samples& out) {
       each_session(in, out, [&](const SessionView& s) { return std::optional<uint64_t>(traffic_of(in, s.id).calls); });
     }},
    {"rgpu_session_round_trips_total", "counter",
     "Calls and module loads whose answer the session's client waited for.",
     [](const MetricsInput& in, Samples& out) {
       each_session(in, out,
                    [&](const SessionView& s) { return std::optional<uint64_t>(traffic_of(in, s.id).round_trips); });
     }},
    {"rgpu_session_received_bytes_total", "counter", "Bytes the session received from its client.",
     [](const MetricsInput& in, Samples& out) {
       each_session(in, out,
                    [&](const SessionView& s) { return std::optional<uint64_t>(traffic_of(in, s.id).bytes_received); });
     }},
    {"rgpu_session_sent_bytes_total", "counter", "Bytes the session sent to its client.",
     [](const MetricsInput& in, Samples& out) {
       each_session(in, out,
                    [&](const SessionView& s) { return std::optional<uint64_t>(traffic_of(in, s.id).bytes_sent); });
     }},
    {"rgpu_tenant_calls_total", "counter", "Calls the tenant's sessions executed, ended sessions included.",
     [](const MetricsInput& in, Samples& out) { each_tenant(in, out, [](const Traffic& t) { return t.calls; }); }},
    {"rgpu_tenant_round_trips_total", "counter", "Round trips of the tenant's sessions, ended sessions included.",
     [](const MetricsInput& in, Samples& out) { each_tenant(in, out, [](const Traffic& t) { return t.round_trips; }); }},
    {"rgpu_tenant_received_bytes_total", "counter",
     "Bytes the tenant's sessions received from their clients, ended sessions included.",
     [](const MetricsInput& in, Samples& out) { each_tenant(in, out, [](const Traffic& t) { return t.bytes_received; }); }},
    {"rgpu_tenant_sent_bytes_total", "counter", "Bytes the tenant's sessions sent to their clients, ended sessions included.",
     [](const MetricsInput& in, Samples& out) { each_tenant(in, out, [](const Traffic& t) { return t.bytes_sent; }); }},
    {"rgpu_sessions_started_total", "counter", "Sessions admitted, at once or from the admission queue.",
     [](const MetricsInput& in, Samples& out) { out.add({}, in.counters.sessions_started); }},
    {"rgpu_sessions_ended_total", "counter", "Admitted sessions that ended, by cause.",
     [](const MetricsInput& in, Samples& out) {
       for (std::string_view cause : kEndCauses) {
         auto it = in.counters.sessions_ended.find(std::string(cause));
         out.add({{"cause", cause}}, it == in.counters.sessions_ended.end() ? uint64_t{0} : it->second);
       }
     }},
    {"rgpu_admissions_refused_total", "counter",
     "Sessions refused a slice: above what their tenant allows, or given up waiting in the admission queue.",
     [](const MetricsInput& in, Samples& out) { out.add({}, in.counters.admissions_refused); }},
    {"rgpu_handshakes_total", "counter",
     "Connections by how their handshake ended: authenticated, refused (a bad token or protocol), left, timed_out, "
     "dropped (past a bound).",
     [](const MetricsInput& in, Samples& out) {
       for (const auto& [outcome, n] : in.counters.handshakes) out.add({{"outcome", outcome}}, n);
     }},
    {"rgpu_swaps_out_total", "counter", "Idle sessions' memory moved to host memory (memory over-commit).",
     [](const MetricsInput& in, Samples& out) { out.add({}, in.view.swaps_out); }},
    {"rgpu_swaps_in_total", "counter", "Swapped-out sessions' memory brought back to the GPU.",
     [](const MetricsInput& in, Samples& out) { out.add({}, in.view.swaps_in); }},
};

}  // namespace

std::string render_metrics(const MetricsInput& in) {
  std::string out;
  for (const Metric& m : kMetrics) {
    Samples samples;
    m.collect(in, samples);
    out += "# HELP ";
    out += m.name;
    out += ' ';
    out += m.help;
    out += "\n# TYPE ";
    out += m.name;
    out += ' ';
    out += m.type;
    out += '\n';
    for (const auto& [labels, value] : samples.lines()) {
      out += m.name;
      out += labels;
      out += ' ';
      out += value;
      out += '\n';
    }
  }
  return out;
}

}  // namespace rgpu::pool
