// Parser of the worker's stdout (see worker_output.h).
#include "bench/cli/worker_output.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace rgpu::bench {

const Measurement* find(const Measurements& ms, const std::string& name) {
  for (const auto& m : ms)
    if (m.name == name) return &m;
  return nullptr;
}

const Bins* find_bins(const WorkerOutput& out, const std::string& name) {
  for (const auto& b : out.bins)
    if (b.name == name) return &b;
  return nullptr;
}

namespace {

// One whole decimal integer word.
bool parse_int(std::istream& in, int64_t& value) {
  std::string word;
  if (!(in >> word)) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(word.c_str(), &end, 10);
  if (*end || errno) return false;
  value = v;
  return true;
}

}  // namespace

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
      std::string rest;
      std::getline(words, rest);
      if (key == "device") out.device = rest;
      else out.info.emplace_back(key, rest);
    } else if (kind == "metric") {
      Measurement m;
      std::string value, extra;
      words >> m.name >> value >> m.unit >> extra;
      char* end = nullptr;
      m.value = std::strtod(value.c_str(), &end);
      if (m.unit.empty() || !extra.empty() || value.empty() || *end || !std::isfinite(m.value))
        return RGPU_ERROR(kProtocol, "worker output line " + std::to_string(number) + " is not 'metric NAME VALUE UNIT': " + line);
      out.metrics.push_back(std::move(m));
    } else if (kind == "bins") {
      Bins b;
      words >> b.name;
      bool ok = !b.name.empty();
      int64_t* fields[] = {&b.epoch_ns, &b.width_ns, &b.from_ns, &b.to_ns};
      for (int64_t* f : fields) ok = ok && parse_int(words, *f);
      for (int64_t c = 0; ok && (words >> std::ws, !words.eof());) {
        ok = parse_int(words, c) && c >= 0;
        b.counts.push_back(c);
      }
      if (!ok || b.width_ns <= 0 || b.to_ns < b.from_ns)
        return RGPU_ERROR(kProtocol, "worker output line " + std::to_string(number) +
                                         " is not 'bins NAME EPOCH_NS WIDTH_NS FROM_NS TO_NS COUNT...': " + line);
      out.bins.push_back(std::move(b));
    }
  }
  return out;
}

}  // namespace rgpu::bench
