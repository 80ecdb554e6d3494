// Rows and bars of `rgpu bench` (see report.h).
#include "bench/cli/report.h"

#include <algorithm>
#include <cstdio>

namespace rgpu::bench {
namespace {

// A bar from issue 3 or 13. Four shapes: a fraction of native (throughput), native plus a number
// of raw round trips (latency: what a remote call may add is about one trip over the wire), a
// fraction of the raw transport (a copy can go no faster than the connection it rides on), and a
// fraction of the raw stream over as many connections as the striped run's, in the copy's direction.
struct Bar {
  const char* metric;
  enum Kind { kTimesNative, kNativePlusPing, kTimesTransport, kTimesStripedStream } kind;
  double factor;
  std::string reference;  // kTimesTransport: the transport row it is held to
};

const std::vector<Bar>& bars() {
  static const std::vector<Bar> kBars = {
      {"launch_throughput", Bar::kTimesNative, 0.9, {}},
      {"latency_launch_sync", Bar::kNativePlusPing, 1.3, {}},
      {"latency_d2h_4B", Bar::kNativePlusPing, 1.3, {}},
      {"latency_malloc_free_1MiB", Bar::kNativePlusPing, 2.0, {}},
      {"copy_h2d_pageable_256MiB/1conn", Bar::kTimesTransport, 0.9, names::sink(1)},
      {"copy_d2h_pageable_256MiB/1conn", Bar::kTimesTransport, 0.9, names::source(1)},
      {"copy_h2d_pageable_256MiB/striped", Bar::kTimesNative, 1.0, {}},
      {"copy_d2h_pageable_256MiB/striped", Bar::kTimesNative, 1.0, {}},
      // Issue 13 (TCP, pinned and async): async copies striped and pipelined like synchronous ones.
      {"copy_h2d_pinned_256MiB/striped", Bar::kTimesStripedStream, 0.9, {}},
      {"copy_d2h_pinned_256MiB/striped", Bar::kTimesStripedStream, 0.9, {}},
      {"copy_h2d_pinned_16MiB/striped", Bar::kTimesStripedStream, 0.5, {}},
      {"copy_d2h_pinned_16MiB/striped", Bar::kTimesStripedStream, 0.5, {}},
  };
  return kBars;
}

// Issue 13's, for a client on rgpud's host: its copies are the GPU's own (pinned memory shared with
// the session, pageable memory through shared staging), so they are held to native, and the socket
// they no longer ride on is no floor. They replace issue 3's bars of the same rows.
const std::vector<Bar>& same_host_bars() {
  static const std::vector<Bar> kBars = {
      {"copy_h2d_pinned_16MiB/1conn", Bar::kTimesNative, 0.95, {}},
      {"copy_d2h_pinned_16MiB/1conn", Bar::kTimesNative, 0.95, {}},
      {"copy_h2d_pinned_256MiB/1conn", Bar::kTimesNative, 0.95, {}},
      {"copy_d2h_pinned_256MiB/1conn", Bar::kTimesNative, 0.95, {}},
      {"copy_h2d_pageable_256MiB/1conn", Bar::kTimesNative, 0.9, {}},
      {"copy_d2h_pageable_256MiB/1conn", Bar::kTimesNative, 0.9, {}},
      // The call pipe through shared memory (transports/shm/): its own ping-pong is the floor.
      {"launch_throughput", Bar::kTimesNative, 1.0, {}},
      {"latency_launch_sync", Bar::kNativePlusPing, 1.2, {}},
      {"latency_d2h_4B", Bar::kNativePlusPing, 1.2, {}},
  };
  return kBars;
}

const Bar* bar_of(const std::string& metric, bool same_host) {
  auto in = [&](const std::vector<Bar>& table) -> const Bar* {
    auto it = std::find_if(table.begin(), table.end(), [&](const Bar& b) { return metric == b.metric; });
    return it == table.end() ? nullptr : &*it;
  };
  const Bar* own = same_host ? in(same_host_bars()) : nullptr;
  return own ? own : in(bars());
}

std::string factor_text(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", f);
  return buf;
}

void apply_bar(Row& row, const Measurements& transport, bool same_host, int stripes) {
  const Bar* bar = bar_of(row.metric, same_host);
  if (!bar) return;
  bool higher_is_better = true;
  switch (bar->kind) {
    case Bar::kTimesNative:
      row.bar = ">= " + factor_text(bar->factor) + " x native";
      if (row.native) row.limit = bar->factor * *row.native;
      break;
    case Bar::kNativePlusPing: {
      row.bar = "<= native + " + factor_text(bar->factor) + " x ping-pong";
      higher_is_better = false;
      const Measurement* ping = find(transport, names::kPingPong);
      if (row.native && ping) row.limit = *row.native + bar->factor * ping->value;
      break;
    }
    case Bar::kTimesTransport: {
      row.bar = ">= " + factor_text(bar->factor) + " x " + bar->reference;
      const Measurement* ref = find(transport, bar->reference);
      if (ref) row.limit = bar->factor * ref->value;
      break;
    }
    case Bar::kTimesStripedStream: {
      if (stripes < 1 || same_host) return;  // no striped run; or no copied byte rides the socket
      const std::string ref_name = row.metric.starts_with("copy_h2d_") ? names::sink(stripes) : names::source(stripes);
      row.bar = ">= " + factor_text(bar->factor) + " x " + ref_name;
      const Measurement* ref = find(transport, ref_name);
      if (ref) row.limit = bar->factor * ref->value;
      break;
    }
  }
  if (!row.limit || !row.remote) return;
  bool ok = higher_is_better ? *row.remote >= *row.limit : *row.remote <= *row.limit;
  row.verdict = ok ? Verdict::kOk : Verdict::kMiss;
}

std::optional<double> value_of(const Measurements& ms, const std::string& name) {
  const Measurement* m = find(ms, name);
  return m ? std::optional<double>(m->value) : std::nullopt;
}

// Copies between host and device ride the connection, so they get a row per connection setting;
// device-to-device copies never leave the server.
bool crosses_network(const std::string& name) {
  return name.starts_with("copy_h2d_") || name.starts_with("copy_d2h_");
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kOk: return "ok";
    case Verdict::kMiss: return "MISS";
    case Verdict::kNone: break;
  }
  return "";
}

std::vector<Row> build_rows(const RunSet& runs) {
  std::vector<Row> rows;
  for (const auto& m : runs.transport) rows.push_back(Row{m.name, m.unit, std::nullopt, m.value, {}, {}, {}, {}});

  // Worker metrics in the order they were measured; a metric only one side produced still gets a row.
  Measurements order = runs.remote;
  for (const auto& m : runs.native)
    if (!find(order, m.name)) order.push_back(m);

  auto add = [&](const std::string& name, const std::string& unit, std::optional<double> native,
                 std::optional<double> remote) {
    Row row{name, unit, native, remote, {}, {}, {}, {}};
    if (native && remote && *native > 0) row.ratio = *remote / *native;
    apply_bar(row, runs.transport, runs.same_host, runs.stripes);
    rows.push_back(std::move(row));
  };
  for (const auto& m : order) {
    auto native = value_of(runs.native, m.name);
    if (!crosses_network(m.name)) {
      add(m.name, m.unit, native, value_of(runs.remote, m.name));
      continue;
    }
    add(m.name + "/1conn", m.unit, native, value_of(runs.remote, m.name));
    if (!runs.remote_striped.empty()) add(m.name + "/striped", m.unit, native, value_of(runs.remote_striped, m.name));
  }
  return rows;
}

}  // namespace rgpu::bench
