// Parses what rgpu-bench-worker prints on stdout (bench/worker/bench_worker.cu):
//   info device <name with spaces>
//   metric <name> <value> <unit>
// Other lines (a program's stray output) are ignored; a malformed metric line is an error, since
// a number silently lost would make a row read "-" for no visible reason.
#pragma once

#include <string>
#include <string_view>

#include "bench/cli/measurement.h"
#include "common/status.h"

namespace rgpu::bench {

struct WorkerOutput {
  std::string device;  // the device the worker ran on, as CUDA names it
  Measurements metrics;
};

Result<WorkerOutput> parse_worker_output(std::string_view text);

}  // namespace rgpu::bench
