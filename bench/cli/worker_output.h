// Parses what rgpu-bench-worker prints on stdout (bench/worker/bench_worker.cu):
//   info device <name with spaces>
//   metric <name> <value> <unit>
//   bins <name> <epoch_ns> <width_ns> <from_ns> <to_ns> <count>...
// A bins line (the spin scenario, for `rgpu bench pool`) counts events in consecutive bins of
// width_ns, the first starting at epoch_ns (CLOCK_MONOTONIC); the events were produced between
// from_ns and to_ns after the epoch (the bins outside that span are start-up or drain).
// Other lines (a program's stray output) are ignored; a malformed metric line is an error, since
// a number silently lost would make a row read "-" for no visible reason.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/cli/measurement.h"
#include "common/status.h"

namespace rgpu::bench {

struct Bins {
  std::string name;
  int64_t epoch_ns = 0;
  int64_t width_ns = 0;
  int64_t from_ns = 0;  // relative to the epoch
  int64_t to_ns = 0;
  std::vector<int64_t> counts;
};

struct WorkerOutput {
  std::string device;  // the device the worker ran on, as CUDA names it
  Measurements metrics;
  std::vector<Bins> bins;
  std::vector<std::pair<std::string, std::string>> info;  // every info line but device: key, rest
};

// The bins called `name`, or null.
const Bins* find_bins(const WorkerOutput& out, const std::string& name);

Result<WorkerOutput> parse_worker_output(std::string_view text);

}  // namespace rgpu::bench
