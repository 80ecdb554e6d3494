// The rows of `rgpu bench`: native and remote numbers side by side, their ratio, and the bars of
// issue 3 ("Near-native speed"), or over a Unix socket issue 13's (same-host data paths), with a
// verdict. Pure functions of the measurements, so the bar
// logic is tested without a GPU or a server (tests/bench/report_test.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/cli/measurement.h"

namespace rgpu::bench {

// Everything one run measured.
struct RunSet {
  Measurements transport;       // the raw probe: remote only, the physical floor
  Measurements native;          // the worker on this host's GPU (empty without one)
  Measurements remote;          // the worker through rgpud; copies with one connection (RGPU_STRIPES=1)
  Measurements remote_striped;  // the copy scenario again, striped over several connections
  int stripes = 0;              // the connections of that striped run (0: none); the probe streams over as many
  // The runs reached rgpud over its Unix socket, on its host: pinned memory is shared with the
  // session (client/runtime/shared_host.h) and the host<->device copy rows take issue 13's bars.
  bool same_host = false;
};

enum class Verdict { kNone, kOk, kMiss };

struct Row {
  std::string metric;  // copy rows between host and device end in "/1conn" or "/striped"
  std::string unit;
  std::optional<double> native;
  std::optional<double> remote;
  std::optional<double> ratio;  // remote / native (above 1 is better for GB/s, worse for us)
  std::string bar;              // e.g. ">= 0.9 x native"; empty when no bar applies
  std::optional<double> limit;  // the bar's threshold in this run, when its inputs were measured
  Verdict verdict = Verdict::kNone;
};

std::vector<Row> build_rows(const RunSet& runs);

const char* verdict_name(Verdict v);  // "", "ok", "MISS"

}  // namespace rgpu::bench
