// The report's three formats: the table for people, CSV and JSON for machines.
#include <catch2/catch.hpp>

#include "bench/cli/format.h"

using namespace rgpu::bench;

namespace {

ReportHeader header() {
  ReportHeader h;
  h.date_utc = "2026-12-01 10:00:00 UTC";
  h.host = "client1";
  h.server = "127.0.0.1:7070";
  h.backend = "cuda";
  h.server_device = "NVIDIA H200";
  h.native_device = "NVIDIA H200";
  return h;
}

std::vector<Row> rows() {
  Row ping{names::kPingPong, "us", std::nullopt, 19.24, {}, {}, {}, Verdict::kNone};
  Row sync{"latency_launch_sync", "us", 9.9, 30.0, 30.0 / 9.9, "<= native + 1.3 x ping-pong", 34.912, Verdict::kOk};
  Row launch{"launch_throughput", "launches/s", 250000, 200000, 0.8, ">= 0.9 x native", 225000, Verdict::kMiss};
  return {ping, sync, launch};
}

}  // namespace

TEST_CASE("values print with the precision of their unit") {
  CHECK(format_value(55.234, "GB/s") == "55.23");
  CHECK(format_value(9.87, "us") == "9.9");
  CHECK(format_value(249999.6, "launches/s") == "250000");
}

TEST_CASE("the table has the context, a header line and one aligned line per row") {
  std::string t = format_report(Format::kTable, header(), rows());
  CHECK(t.find("2026-12-01 10:00:00 UTC") != std::string::npos);
  CHECK(t.find("host client1") != std::string::npos);
  CHECK(t.find("cuda backend, NVIDIA H200") != std::string::npos);
  CHECK(t.find("metric") != std::string::npos);
  CHECK(t.find("<= native + 1.3 x ping-pong (34.9)") != std::string::npos);
  CHECK(t.find("3.03x") != std::string::npos);
  CHECK(t.find("MISS") != std::string::npos);
  // The ping-pong row has no native side: a dash.
  auto ping = t.find(names::kPingPong);
  REQUIRE(ping != std::string::npos);
  CHECK(t.substr(ping, t.find('\n', ping) - ping).find(" - ") != std::string::npos);
  // Columns line up: every row's "remote" value ends where the header's "remote" does.
  auto line_of = [&](const std::string& key) {
    auto at = t.find(key);
    auto begin = t.rfind('\n', at) + 1;
    return t.substr(begin, t.find('\n', at) - begin);
  };
  std::string head = line_of("metric");
  size_t remote_end = head.find("remote") + 6;
  CHECK(line_of("launch_throughput").substr(0, remote_end).ends_with("200000"));
  CHECK(line_of("latency_launch_sync").substr(0, remote_end).ends_with("30.0"));
}

TEST_CASE("without a GPU the table says so") {
  ReportHeader h = header();
  h.native_device.clear();
  CHECK(format_report(Format::kTable, h, {}).find("native: none (no GPU here)") != std::string::npos);
}

TEST_CASE("CSV: a comment with the context, a header, empty fields for missing values") {
  std::string c = format_report(Format::kCsv, header(), rows());
  CHECK(c.starts_with("# rgpu bench, date 2026-12-01 10:00:00 UTC, host client1"));
  CHECK(c.find("\nmetric,unit,native,remote,ratio,bar,limit,verdict\n") != std::string::npos);
  CHECK(c.find("\ntransport_pingpong_64B,us,,19.24,,,,\n") != std::string::npos);
  CHECK(c.find("\nlaunch_throughput,launches/s,250000,200000,0.8,>= 0.9 x native,225000,MISS\n") != std::string::npos);
}

TEST_CASE("JSON: the context, then rows with null for what was not measured") {
  ReportHeader h = header();
  h.native_device.clear();
  h.server_device = "GPU \"quoted\"\\";
  std::string j = format_report(Format::kJson, h, rows());
  CHECK(j.find("\"native_device\": null") != std::string::npos);
  CHECK(j.find("\"server_device\": \"GPU \\\"quoted\\\"\\\\\"") != std::string::npos);
  CHECK(j.find("{\"metric\": \"transport_pingpong_64B\", \"unit\": \"us\", \"native\": null, \"remote\": 19.24, "
               "\"ratio\": null, \"bar\": null, \"limit\": null, \"verdict\": null}") != std::string::npos);
  CHECK(j.find("\"verdict\": \"ok\"") != std::string::npos);
  CHECK(format_report(Format::kJson, h, {}).find("\"rows\": []") != std::string::npos);
}
