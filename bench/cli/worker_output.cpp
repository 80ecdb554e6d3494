// Parser of the worker's stdout (see worker_output.h).
#include "bench/cli/worker_output.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

namespace rgpu::bench {

const Measurement* find(const Measurements& ms, const std::string& name) {
  for (const auto& m : ms)
    if (m.name == name) return &m;
  return nullptr;
}

Result<WorkerOutput> parse_worker_output(std::string_view text) {
  WorkerOutput out;
  std::istringstream in{std::string(text)};
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::istringstream words(line);
    std::string kind;
    words >> kind;
    if (kind == "info") {
      std::string key;
      words >> key >> std::ws;
      if (key == "device") std::getline(words, out.device);
    } else if (kind == "metric") {
      Measurement m;
      std::string value, extra;
      words >> m.name >> value >> m.unit >> extra;
      char* end = nullptr;
      m.value = std::strtod(value.c_str(), &end);
      if (m.unit.empty() || !extra.empty() || value.empty() || *end || !std::isfinite(m.value))
        return RGPU_ERROR(kProtocol, "worker output line " + std::to_string(number) + " is not 'metric NAME VALUE UNIT': " + line);
      out.metrics.push_back(std::move(m));
    }
  }
  return out;
}

}  // namespace rgpu::bench
