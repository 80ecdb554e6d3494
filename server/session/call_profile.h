// Where a session thread's time goes, call by call. With RGPU_CALL_PROFILE=1, rgpud logs at each
// session's end the calls that took most of the thread's time (how many, in all, each on average)
// and how long it waited for the client's next frame; beside each call's mean, its median, as a
// call's first run may load a library's kernels (CUDA's lazy loading: milliseconds) and make the
// mean of a cheap call look dear. It answers the first question about a
// program that runs slower remotely than natively: is the server busy replaying (and with which
// call), or idle waiting for the client? Off, it costs one well-predicted branch a call.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_map>

namespace rgpu::server {

class CallProfile {
 public:
  using Clock = std::chrono::steady_clock;

  // RGPU_CALL_PROFILE, read once per worker.
  static bool wanted();

  // A call the session thread handled from `began` to `ended`. The time since the previous call
  // ended counts as waiting for input (reading frames included).
  void add(uint32_t method, Clock::time_point began, Clock::time_point ended);

  // The report: the busy and waiting totals, then the `top` calls by time, one line each.
  std::string report(size_t top = 25) const;

 private:
  // Durations by bucket, eight to each power of two of nanoseconds: the median is known to within
  // an eighth, and no call allocates.
  static constexpr size_t kBuckets = 8 * 48;
  struct Entry {
    uint64_t calls = 0;
    Clock::duration spent{};
    std::array<uint32_t, kBuckets> buckets{};
  };
  static size_t bucket(Clock::duration d);
  static double bucket_floor_us(size_t b);
  static double median_us(const Entry& e);
  std::unordered_map<uint32_t, Entry> calls_;  // grows by one entry per distinct call, not per call
  Clock::time_point last_end_{};
  Clock::duration busy_{};
  Clock::duration waiting_{};
};

}  // namespace rgpu::server
