// Parsing what rgpu-bench-worker prints.
#include <catch2/catch.hpp>

#include "bench/cli/worker_output.h"

using namespace rgpu::bench;

TEST_CASE("metric and info lines are read, other lines are ignored") {
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

TEST_CASE("bins lines are read, and other info lines kept") {
  auto out = parse_worker_output(
      "info device NVIDIA H200\n"
      "info timing device\n"
      "metric spin_launches 2990 launches\n"
      "bins spin_completions 123456789000 10000000 1500 3000000000 0 8 16 8\n");
  REQUIRE(out.is_ok());
  REQUIRE(out->info.size() == 1);
  CHECK(out->info[0] == std::pair<std::string, std::string>{"timing", "device"});
  const Bins* b = find_bins(*out, "spin_completions");
  REQUIRE(b);
  CHECK(b->epoch_ns == 123456789000);
  CHECK(b->width_ns == 10000000);
  CHECK(b->from_ns == 1500);
  CHECK(b->to_ns == 3000000000);
  CHECK(b->counts == std::vector<int64_t>{0, 8, 16, 8});
  CHECK(find_bins(*out, "other") == nullptr);

  auto empty = parse_worker_output("bins none 0 10 0 0\n");
  REQUIRE(empty.is_ok());
  CHECK(empty->bins[0].counts.empty());
}

TEST_CASE("a malformed bins line is an error naming the line") {
  for (const char* bad : {"bins", "bins x 0 10 0", "bins x 0 0 0 0", "bins x 0 10 5 1", "bins x 0 10 0 1 2 -1",
                          "bins x 0 10 0 1 2 3.5", "bins x 0 10 0 1 two"}) {
    auto out = parse_worker_output(std::string("info device d\n") + bad + "\n");
    INFO(bad);
    REQUIRE_FALSE(out.is_ok());
    CHECK(out.status().message().find("line 2") != std::string::npos);
  }
}
