// driver_log_line (see driver_log_line.h).
#include "common/driver_log_line.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>

namespace rgpu {

std::string driver_log_line(std::string_view source, char severity, std::string_view api, std::string_view message) {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const std::time_t seconds = system_clock::to_time_t(now);
  const auto millis = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char head[64];
  std::snprintf(head, sizeof head, "[%02d:%02d:%02d.%03lld][%ld]", tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long long>(millis), static_cast<long>(syscall(SYS_gettid)));
  std::string line(head);
  line.append("[").append(source).append("][").append(1, severity).append("]");
  if (!api.empty()) line.append("[").append(api).append("]");
  line.append(" ");
  line.append(message);
  return line;
}

}  // namespace rgpu
