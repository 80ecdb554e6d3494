// One number a benchmark produced: "copy_h2d_pageable_256MiB 3.1 GB/s". Shared by the worker's
// output parser, the transport probe and the report.
#pragma once

#include <string>
#include <vector>

namespace rgpu::bench {

struct Measurement {
  std::string name;
  double value = 0;
  std::string unit;  // "GB/s", "us" or "launches/s"
};

using Measurements = std::vector<Measurement>;

// The measurement called `name`, or null.
const Measurement* find(const Measurements& ms, const std::string& name);

}  // namespace rgpu::bench

namespace rgpu::bench::names {

// The transport probe's rows (bench/cli/transport_probe_client.cpp), which the bars refer to.
inline constexpr const char* kPingPong = "transport_pingpong_64B";
// "transport_sink_<n>conn" (client -> server) and "transport_source_<n>conn" (server -> client).
inline std::string sink(int connections) { return "transport_sink_" + std::to_string(connections) + "conn"; }
inline std::string source(int connections) { return "transport_source_" + std::to_string(connections) + "conn"; }

}  // namespace rgpu::bench::names
