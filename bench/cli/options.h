// The command line of `rgpu bench`:
//   rgpu bench [transport|copy|latency|launch|all] [--format table|csv|json] [--quick] [--stripes N]
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace rgpu::bench {

enum class Format { kTable, kCsv, kJson };

struct Options {
  bool transport = false;  // the raw transport probe (ping-pong and streams)
  bool copy = false;
  bool latency = false;
  bool launch = false;
  Format format = Format::kTable;
  bool quick = false;          // smaller sweeps and fewer repetitions (CI, a first look)
  std::optional<int> stripes;  // connections of the striped copy run and an extra probe row
};

// Parses the arguments after "bench". A bad argument is kInvalidArgument with what was wrong.
Result<Options> parse_options(const std::vector<std::string>& args);

extern const char* const kUsage;

}  // namespace rgpu::bench
