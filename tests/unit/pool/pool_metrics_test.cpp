// The /metrics renderer (server/pool/pool_metrics.h) on a view written out by hand: exact lines,
// HELP and TYPE for each metric, label escaping, and counters that do not go back when a session
// ends.
#include <catch2/catch.hpp>

#include <set>
#include <sstream>
#include <string>

#include "server/pool/pool_metrics.h"

namespace rgpu::pool {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

PoolView known_view() {
  PoolView v;
  GpuView g;
  g.index = 0;
  g.name = "H200";
  g.total_bytes = 4096 * kMiB;
  g.reserved_bytes = 1024 * kMiB;
  g.used_bytes = 300 * kMiB;
  g.compute_reserved = 30;
  g.busy = 0.25;
  g.sessions = 2;
  v.gpus.push_back(g);

  SessionView sliced;
  sliced.id = 7;
  sliced.tenant = "inference";
  sliced.host = "node-a";
  sliced.program = "serve";
  sliced.slice.gpu = 0;
  sliced.slice.memory_bytes = 1024 * kMiB;
  sliced.slice.compute = 30;
  sliced.slice.compute_limit = 60;
  sliced.memory_used = 200 * kMiB;
  sliced.share = 0.125;
  v.sessions.push_back(sliced);

  SessionView whole;  // a whole-GPU session: no slice, no guarantee, no cap
  whole.id = 9;
  whole.tenant = "batch";
  whole.host = "node-b";
  whole.program = "a\"b\\c\nd";
  whole.memory_used = 100 * kMiB;
  v.sessions.push_back(whole);

  v.queue.push_back(QueuedView{});
  v.swaps_out = 3;
  v.swaps_in = 2;
  return v;
}

// "NAME{labels} VALUE"
std::string sample(const char* name, const std::string& labels, const char* value) {
  std::string out = name;
  out += labels;
  out += ' ';
  out += value;
  return out;
}

bool has_line(const std::string& page, const std::string& line) {
  std::istringstream in(page);
  for (std::string l; std::getline(in, l);)
    if (l == line) return true;
  return false;
}

}  // namespace

TEST_CASE("metrics: exact lines for GPUs, sessions, the queue and the daemon's counters") {
  const PoolView view = known_view();
  std::map<uint64_t, Traffic> traffic{{7, Traffic{120, 40, 5000, 7000}}};
  DaemonCounters counters;
  counters.sessions_started = 4;
  counters.sessions_ended["client_closed"] = 2;
  counters.admissions_refused = 1;
  counters.handshakes = {{"authenticated", 6}, {"refused", 5}};
  const std::string page = render_metrics({view, traffic, counters});

  CHECK(has_line(page, "# HELP rgpu_gpu_memory_total_bytes The GPU's memory."));
  CHECK(has_line(page, "# TYPE rgpu_gpu_memory_total_bytes gauge"));
  CHECK(has_line(page, "rgpu_gpu_memory_total_bytes{gpu=\"0\",name=\"H200\"} 4294967296"));
  CHECK(has_line(page, "rgpu_gpu_memory_reserved_bytes{gpu=\"0\",name=\"H200\"} 1073741824"));
  CHECK(has_line(page, "rgpu_gpu_memory_used_bytes{gpu=\"0\",name=\"H200\"} 314572800"));
  CHECK(has_line(page, "rgpu_gpu_compute_reserved_ratio{gpu=\"0\",name=\"H200\"} 0.3"));
  CHECK(has_line(page, "rgpu_gpu_compute_busy_ratio{gpu=\"0\",name=\"H200\"} 0.25"));
  CHECK(has_line(page, "rgpu_gpu_sessions{gpu=\"0\",name=\"H200\"} 2"));
  CHECK(has_line(page, "rgpu_queue_sessions 1"));

  const std::string s7 = "{session=\"7\",tenant=\"inference\",client_host=\"node-a\",program=\"serve\",gpu=\"0\"}";
  CHECK(has_line(page, sample("rgpu_session_memory_used_bytes", s7, "209715200")));
  CHECK(has_line(page, sample("rgpu_session_memory_slice_bytes", s7, "1073741824")));
  CHECK(has_line(page, sample("rgpu_session_compute_share_ratio", s7, "0.125")));
  CHECK(has_line(page, sample("rgpu_session_compute_guarantee_ratio", s7, "0.3")));
  CHECK(has_line(page, sample("rgpu_session_compute_cap_ratio", s7, "0.6")));
  CHECK(has_line(page, "# TYPE rgpu_session_calls_total counter"));
  CHECK(has_line(page, sample("rgpu_session_calls_total", s7, "120")));
  CHECK(has_line(page, sample("rgpu_session_round_trips_total", s7, "40")));
  CHECK(has_line(page, sample("rgpu_session_received_bytes_total", s7, "5000")));
  CHECK(has_line(page, sample("rgpu_session_sent_bytes_total", s7, "7000")));

  CHECK(has_line(page, "rgpu_sessions_started_total 4"));
  CHECK(has_line(page, "rgpu_sessions_ended_total{cause=\"client_closed\"} 2"));
  CHECK(has_line(page, "rgpu_sessions_ended_total{cause=\"worker_died\"} 0"));  // every cause, zero or not
  CHECK(has_line(page, "rgpu_admissions_refused_total 1"));
  CHECK(has_line(page, "rgpu_handshakes_total{outcome=\"refused\"} 5"));
  CHECK(has_line(page, "rgpu_swaps_out_total 3"));
  CHECK(has_line(page, "rgpu_swaps_in_total 2"));
}

TEST_CASE("metrics: a whole-GPU session has no slice, guarantee or cap, and its program name is escaped") {
  const PoolView view = known_view();
  const std::string page = render_metrics({view, {}, {}});
  const std::string s9 =
      "{session=\"9\",tenant=\"batch\",client_host=\"node-b\",program=\"a\\\"b\\\\c\\nd\",gpu=\"all\"}";
  CHECK(has_line(page, sample("rgpu_session_memory_used_bytes", s9, "104857600")));
  CHECK(has_line(page, sample("rgpu_session_calls_total", s9, "0")));  // no report from its worker yet
  CHECK(page.find("rgpu_session_memory_slice_bytes{session=\"9\"") == std::string::npos);
  CHECK(page.find("rgpu_session_compute_guarantee_ratio{session=\"9\"") == std::string::npos);
  CHECK(page.find("rgpu_session_compute_cap_ratio{session=\"9\"") == std::string::npos);
}

TEST_CASE("metrics: every metric has HELP and TYPE once, before its samples, and every line is one of the three") {
  const PoolView view = known_view();
  const std::string page = render_metrics({view, {}, {}});
  std::set<std::string> helped, typed;
  std::istringstream in(page);
  for (std::string l; std::getline(in, l);) {
    if (l.rfind("# HELP ", 0) == 0) {
      CHECK(helped.insert(l.substr(7, l.find(' ', 7) - 7)).second);
    } else if (l.rfind("# TYPE ", 0) == 0) {
      const std::string name = l.substr(7, l.find(' ', 7) - 7);
      CHECK(typed.insert(name).second);
      CHECK(helped.count(name) == 1);
      const std::string type = l.substr(l.rfind(' ') + 1);
      CHECK((type == "gauge" || type == "counter"));
      CHECK((type == "counter") == (name.size() > 6 && name.compare(name.size() - 6, 6, "_total") == 0));
    } else {
      const std::string name = l.substr(0, l.find_first_of("{ "));
      INFO(l);
      CHECK(typed.count(name) == 1);
    }
  }
  CHECK(helped.size() == typed.size());
  CHECK(helped.count("rgpu_tenant_calls_total") == 1);
}

TEST_CASE("metrics: label values are escaped and kept valid UTF-8") {
  CHECK(escape_label_value("plain") == "plain");
  CHECK(escape_label_value("a\"b") == "a\\\"b");
  CHECK(escape_label_value("a\\b") == "a\\\\b");
  CHECK(escape_label_value("a\nb") == "a\\nb");
  CHECK(escape_label_value("caf\xc3\xa9") == "caf\xc3\xa9");
  CHECK(escape_label_value("x\xff" "y") == "x\xef\xbf\xbdy");       // not UTF-8: U+FFFD
  CHECK(escape_label_value("cut\xe2\x82") == "cut\xef\xbf\xbd\xef\xbf\xbd");  // a sequence cut short
}

TEST_CASE("metrics: a tenant's counters add its ended sessions to its live ones") {
  PoolView view = known_view();
  std::map<uint64_t, Traffic> traffic{{7, Traffic{10, 4, 100, 200}}};
  DaemonCounters counters;
  counters.ended_traffic["inference"] = Traffic{5, 1, 50, 60};
  counters.ended_traffic["gone"] = Traffic{1, 1, 1, 1};  // no live session left: still counted
  std::string page = render_metrics({view, traffic, counters});
  CHECK(has_line(page, "rgpu_tenant_calls_total{tenant=\"inference\"} 15"));
  CHECK(has_line(page, "rgpu_tenant_round_trips_total{tenant=\"inference\"} 5"));
  CHECK(has_line(page, "rgpu_tenant_received_bytes_total{tenant=\"inference\"} 150"));
  CHECK(has_line(page, "rgpu_tenant_sent_bytes_total{tenant=\"inference\"} 260"));
  CHECK(has_line(page, "rgpu_tenant_calls_total{tenant=\"gone\"} 1"));
  CHECK(has_line(page, "rgpu_tenant_calls_total{tenant=\"batch\"} 0"));
}

TEST_CASE("metrics: a session's end cause is one of the known ones") {
  CHECK(end_cause_label("client_closed") == "client_closed");
  CHECK(end_cause_label("worker_died") == "worker_died");
  CHECK(end_cause_label("anything a worker made up") == "error");
}

}  // namespace rgpu::pool
