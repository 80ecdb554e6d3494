// The session's call profile (see call_profile.h).
#include "server/session/call_profile.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "codegen/support/call_names.h"
#include "common/config.h"

namespace rgpu::server {
namespace {

const Tunable kCallProfile{"RGPU_CALL_PROFILE", "0",
                           "rgpud: 1 logs at each session's end the calls that took most of its thread's time, and "
                           "how long it waited for the client"};

double ms(CallProfile::Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

}  // namespace

bool CallProfile::wanted() {
  static const bool on = kCallProfile.get_bool();
  return on;
}

void CallProfile::add(uint32_t method, Clock::time_point began, Clock::time_point ended) {
  Entry& e = calls_[method];
  e.calls += 1;
  e.spent += ended - began;
  e.buckets[bucket(ended - began)] += 1;
  busy_ += ended - began;
  if (last_end_ != Clock::time_point{} && began > last_end_) waiting_ += began - last_end_;
  last_end_ = ended;
}

size_t CallProfile::bucket(Clock::duration d) {
  const int64_t count = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
  const auto ns = static_cast<uint64_t>(std::max<int64_t>(count, 1));
  const int power = 63 - __builtin_clzll(ns);
  // The three bits after the leading one pick the eighth of [2^power, 2^(power+1)).
  const uint64_t eighth = power >= 3 ? (ns >> (power - 3)) & 7 : 0;
  return std::min(kBuckets - 1, static_cast<size_t>(8 * power) + eighth);
}

double CallProfile::bucket_floor_us(size_t b) {
  const double power = static_cast<double>(uint64_t{1} << (b / 8));
  return power * (1.0 + 0.125 * static_cast<double>(b % 8)) / 1000.0;
}

// The floor of the bucket that holds the middle call.
double CallProfile::median_us(const Entry& e) {
  uint64_t seen = 0;
  for (size_t b = 0; b < kBuckets; ++b) {
    seen += e.buckets[b];
    if (2 * seen >= e.calls) return bucket_floor_us(b);
  }
  return 0;
}

std::string CallProfile::report(size_t top) const {
  std::vector<std::pair<uint32_t, Entry>> rows(calls_.begin(), calls_.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.spent > b.second.spent; });
  uint64_t calls = 0;
  for (const auto& [method, e] : rows) calls += e.calls;
  char line[256];
  std::snprintf(line, sizeof line, "call profile: %llu calls, %.1f ms handling them, %.1f ms waiting for input between them",
                static_cast<unsigned long long>(calls), ms(busy_), ms(waiting_));
  std::string out = line;
  rows.resize(std::min(top, rows.size()));
  for (const auto& [method, e] : rows) {
    std::snprintf(line, sizeof line, "\n  %-44s %10llu calls %10.2f ms %8.2f us each, median %.2f us",
                  gen::any_call_name(method), static_cast<unsigned long long>(e.calls), ms(e.spent),
                  1000.0 * ms(e.spent) / static_cast<double>(e.calls), median_us(e));
    out += line;
  }
  return out;
}

}  // namespace rgpu::server
