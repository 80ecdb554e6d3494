// The report's rows and issue 3's bars: ratios, limits and verdicts from made-up measurements.
#include <catch2/catch.hpp>

#include "bench/cli/report.h"

using namespace rgpu::bench;

namespace {

const Row& row(const std::vector<Row>& rows, const std::string& metric) {
  for (const auto& r : rows)
    if (r.metric == metric) return r;
  FAIL("no row " << metric);
  return rows.front();
}

RunSet with_transport() {
  RunSet runs;
  runs.transport = {{names::kPingPong, 20.0, "us"},
                    {names::sink(1), 4.0, "GB/s"},
                    {names::source(1), 5.0, "GB/s"}};
  return runs;
}

}  // namespace

TEST_CASE("transport rows are remote only, first, with no bar") {
  auto rows = build_rows(with_transport());
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].metric == names::kPingPong);
  CHECK(*rows[0].remote == 20.0);
  CHECK_FALSE(rows[0].native);
  CHECK_FALSE(rows[0].ratio);
  CHECK(rows[0].bar.empty());
  CHECK(rows[0].verdict == Verdict::kNone);
}

TEST_CASE("latency bars: native plus a multiple of the ping-pong") {
  RunSet runs = with_transport();
  runs.native = {{"latency_launch_sync", 10.0, "us"}, {"latency_malloc_free_1MiB", 100.0, "us"}};
  runs.remote = {{"latency_launch_sync", 36.0, "us"}, {"latency_malloc_free_1MiB", 141.0, "us"}};
  auto rows = build_rows(runs);
  const Row& sync = row(rows, "latency_launch_sync");
  CHECK(*sync.limit == Approx(10.0 + 1.3 * 20.0));
  CHECK(sync.verdict == Verdict::kOk);  // 36 <= 36
  CHECK(*sync.ratio == Approx(3.6));
  const Row& malloc_free = row(rows, "latency_malloc_free_1MiB");
  CHECK(*malloc_free.limit == Approx(140.0));
  CHECK(malloc_free.verdict == Verdict::kMiss);
}

TEST_CASE("launch throughput bar: 0.9 x native") {
  RunSet runs;
  runs.native = {{"launch_throughput", 250000, "launches/s"}};
  runs.remote = {{"launch_throughput", 230000, "launches/s"}};
  Row r = build_rows(runs).at(0);
  CHECK(*r.limit == Approx(225000));
  CHECK(r.verdict == Verdict::kOk);
  runs.remote[0].value = 200000;
  CHECK(build_rows(runs).at(0).verdict == Verdict::kMiss);
}

TEST_CASE("copies across the network get a row per connection setting, each with its own bar") {
  RunSet runs = with_transport();
  runs.native = {{"copy_h2d_pageable_256MiB", 13.0, "GB/s"}, {"copy_d2h_pageable_256MiB", 11.0, "GB/s"},
                 {"copy_d2d_256MiB", 1000.0, "GB/s"}};
  runs.remote = {{"copy_h2d_pageable_256MiB", 3.7, "GB/s"}, {"copy_d2h_pageable_256MiB", 4.0, "GB/s"},
                 {"copy_d2d_256MiB", 990.0, "GB/s"}};
  runs.remote_striped = {{"copy_h2d_pageable_256MiB", 14.0, "GB/s"}, {"copy_d2h_pageable_256MiB", 10.0, "GB/s"},
                         {"copy_d2d_256MiB", 990.0, "GB/s"}};
  auto rows = build_rows(runs);
  CHECK(rows.size() == 3 + 5);  // d2d stays on the server: one row

  const Row& h2d1 = row(rows, "copy_h2d_pageable_256MiB/1conn");
  CHECK(h2d1.bar == ">= 0.9 x transport_sink_1conn");
  CHECK(*h2d1.limit == Approx(3.6));
  CHECK(h2d1.verdict == Verdict::kOk);
  const Row& d2h1 = row(rows, "copy_d2h_pageable_256MiB/1conn");
  CHECK(*d2h1.limit == Approx(4.5));  // held to the source direction, not the sink
  CHECK(d2h1.verdict == Verdict::kMiss);

  const Row& h2ds = row(rows, "copy_h2d_pageable_256MiB/striped");
  CHECK(*h2ds.limit == Approx(13.0));
  CHECK(h2ds.verdict == Verdict::kOk);
  CHECK(*h2ds.ratio == Approx(14.0 / 13.0));
  CHECK(row(rows, "copy_d2h_pageable_256MiB/striped").verdict == Verdict::kMiss);

  const Row& d2d = row(rows, "copy_d2d_256MiB");
  CHECK(d2d.bar.empty());
  CHECK(*d2d.remote == 990.0);
}

TEST_CASE("without a GPU here, bars that need native have no limit and no verdict") {
  RunSet runs = with_transport();
  runs.remote = {{"latency_d2h_4B", 30.0, "us"}, {"copy_h2d_pageable_256MiB", 3.0, "GB/s"}};
  auto rows = build_rows(runs);
  const Row& lat = row(rows, "latency_d2h_4B");
  CHECK_FALSE(lat.native);
  CHECK_FALSE(lat.ratio);
  CHECK_FALSE(lat.limit);
  CHECK(lat.bar == "<= native + 1.3 x ping-pong");
  CHECK(lat.verdict == Verdict::kNone);
  // The one-connection copy is held to the transport, which was measured: it still gets a verdict.
  CHECK(row(rows, "copy_h2d_pageable_256MiB/1conn").verdict == Verdict::kMiss);
  // No striped run, no striped rows.
  for (const auto& r : rows) CHECK_FALSE(r.metric.ends_with("/striped"));
}

TEST_CASE("a metric only the native run produced still gets a row, remote empty") {
  RunSet runs;
  runs.native = {{"launch_throughput", 250000, "launches/s"}};
  Row r = build_rows(runs).at(0);
  CHECK(*r.native == 250000);
  CHECK_FALSE(r.remote);
  CHECK(r.verdict == Verdict::kNone);
}

TEST_CASE("over a Unix socket, host<->device copies are held to native (issue 13's bars)") {
  RunSet runs = with_transport();
  runs.same_host = true;
  runs.native = {{"copy_h2d_pinned_16MiB", 50.0, "GB/s"}, {"copy_d2h_pinned_256MiB", 50.0, "GB/s"},
                 {"copy_h2d_pageable_256MiB", 20.0, "GB/s"}, {"copy_h2d_pinned_1MiB", 30.0, "GB/s"}};
  runs.remote = {{"copy_h2d_pinned_16MiB", 48.0, "GB/s"}, {"copy_d2h_pinned_256MiB", 47.0, "GB/s"},
                 {"copy_h2d_pageable_256MiB", 18.5, "GB/s"}, {"copy_h2d_pinned_1MiB", 10.0, "GB/s"}};
  auto rows = build_rows(runs);
  const Row& pinned = row(rows, "copy_h2d_pinned_16MiB/1conn");
  CHECK(pinned.bar == ">= 0.95 x native");
  CHECK(*pinned.limit == Approx(47.5));
  CHECK(pinned.verdict == Verdict::kOk);
  CHECK(row(rows, "copy_d2h_pinned_256MiB/1conn").verdict == Verdict::kMiss);  // 47 < 47.5
  const Row& pageable = row(rows, "copy_h2d_pageable_256MiB/1conn");
  CHECK(pageable.bar == ">= 0.9 x native");  // instead of the socket's floor
  CHECK(*pageable.limit == Approx(18.0));
  CHECK(pageable.verdict == Verdict::kOk);
  CHECK(row(rows, "copy_h2d_pinned_1MiB/1conn").bar.empty());  // no bar below 16 MiB
  // The same rows over TCP keep issue 3's bars.
  runs.same_host = false;
  rows = build_rows(runs);
  CHECK(row(rows, "copy_h2d_pinned_16MiB/1conn").bar.empty());
  CHECK(row(rows, "copy_h2d_pageable_256MiB/1conn").bar == ">= 0.9 x transport_sink_1conn");
}

TEST_CASE("over a Unix socket, latency and launch rate are held to the shared-memory pipe's own ping-pong") {
  RunSet runs = with_transport();
  runs.same_host = true;
  runs.native = {{"latency_launch_sync", 9.0, "us"}, {"launch_throughput", 250000, "launches/s"}};
  runs.remote = {{"latency_launch_sync", 13.0, "us"}, {"launch_throughput", 240000, "launches/s"}};
  auto rows = build_rows(runs);
  const Row& lat = row(rows, "latency_launch_sync");
  CHECK(lat.bar == "<= native + 1.2 x ping-pong");
  CHECK(lat.limit.has_value());
  const Row& rate = row(rows, "launch_throughput");
  CHECK(rate.bar == ">= 1 x native");
  CHECK(rate.verdict == Verdict::kMiss);  // 240k < 250k
  runs.same_host = false;  // over TCP, issue 3's
  rows = build_rows(runs);
  CHECK(row(rows, "latency_launch_sync").bar == "<= native + 1.3 x ping-pong");
  CHECK(row(rows, "launch_throughput").bar == ">= 0.9 x native");
}

TEST_CASE("over TCP, striped pinned async copies are held to the raw stream over as many connections") {
  RunSet runs = with_transport();
  runs.stripes = 12;
  runs.transport.push_back({names::sink(12), 20.0, "GB/s"});
  runs.transport.push_back({names::source(12), 10.0, "GB/s"});
  runs.remote = {{"copy_h2d_pinned_256MiB", 4.0, "GB/s"}, {"copy_d2h_pinned_16MiB", 4.0, "GB/s"}};
  runs.remote_striped = {{"copy_h2d_pinned_256MiB", 17.0, "GB/s"}, {"copy_d2h_pinned_16MiB", 6.0, "GB/s"}};
  auto rows = build_rows(runs);
  const Row& h2d = row(rows, "copy_h2d_pinned_256MiB/striped");
  CHECK(h2d.bar == ">= 0.9 x transport_sink_12conn");
  CHECK(*h2d.limit == Approx(18.0));
  CHECK(h2d.verdict == Verdict::kMiss);
  const Row& d2h = row(rows, "copy_d2h_pinned_16MiB/striped");
  CHECK(d2h.bar == ">= 0.5 x transport_source_12conn");
  CHECK(*d2h.limit == Approx(5.0));
  CHECK(d2h.verdict == Verdict::kOk);
  CHECK(row(rows, "copy_h2d_pinned_256MiB/1conn").bar.empty());  // one connection: no such bar
  // Without a striped run, or over a Unix socket (no copied byte rides it), no such bar.
  runs.stripes = 0;
  CHECK(row(build_rows(runs), "copy_h2d_pinned_256MiB/striped").bar.empty());
  runs.stripes = 12;
  runs.same_host = true;
  CHECK(row(build_rows(runs), "copy_h2d_pinned_256MiB/striped").bar.empty());
}
