// Parsing what rgpu-bench-worker prints.
#include <catch2/catch.hpp>

#include "bench/cli/worker_output.h"

using namespace rgpu::bench;

TEST_CASE("metric and info lines are read; other lines are ignored") {
  auto out = parse_worker_output(
      "info device NVIDIA H200 NVL\n"
      "some program output\n"
      "metric copy_h2d_pinned_4KiB 1.5 GB/s\n"
      "metric latency_d2h_4B 9.8e+00 us\n"
      "metric launch_throughput 250000 launches/s");  // no final newline
  REQUIRE(out.is_ok());
  CHECK(out->device == "NVIDIA H200 NVL");
  REQUIRE(out->metrics.size() == 3);
  CHECK(out->metrics[0].name == "copy_h2d_pinned_4KiB");
  CHECK(out->metrics[0].value == 1.5);
  CHECK(out->metrics[0].unit == "GB/s");
  CHECK(out->metrics[1].value == 9.8);
  CHECK(find(out->metrics, "launch_throughput")->unit == "launches/s");
  CHECK(find(out->metrics, "nothing") == nullptr);
}

TEST_CASE("a malformed metric line is an error naming the line") {
  for (const char* bad : {"metric x", "metric x 1", "metric x one us", "metric x 1 us extra", "metric x nan us",
                          "metric x 1.5.2 us"}) {
    auto out = parse_worker_output(std::string("info device d\n") + bad + "\n");
    INFO(bad);
    REQUIRE_FALSE(out.is_ok());
    CHECK(out.status().message().find("line 2") != std::string::npos);
  }
}

TEST_CASE("empty output parses to nothing") {
  auto out = parse_worker_output("");
  REQUIRE(out.is_ok());
  CHECK(out->device.empty());
  CHECK(out->metrics.empty());
}
