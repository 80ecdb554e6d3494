// Logging to stderr; one write(2) per line so lines from several processes do not interleave.
#include "common/log.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace rgpu {
namespace {

std::atomic<int> g_level{-1};
const char* g_prefix = "rgpu";

int level_from_env() {
  const char* v = std::getenv("RGPU_LOG");
  if (!v) return static_cast<int>(LogLevel::kInfo);
  if (!std::strcmp(v, "error")) return 0;
  if (!std::strcmp(v, "warn")) return 1;
  if (!std::strcmp(v, "debug")) return 3;
  return 2;
}

const char* level_name(LogLevel l) {
  switch (l) {
    case LogLevel::kError: return "error";
    case LogLevel::kWarn: return "warn";
    case LogLevel::kInfo: return "info";
    case LogLevel::kDebug: return "debug";
  }
  return "?";
}

}  // namespace

void log_set_level(LogLevel level) { g_level = static_cast<int>(level); }
void log_set_prefix(const char* prefix) { g_prefix = prefix; }

bool log_enabled(LogLevel level) {
  int l = g_level.load(std::memory_order_relaxed);
  if (l < 0) {
    l = level_from_env();
    g_level = l;
  }
  return static_cast<int>(level) <= l;
}

void log_write(LogLevel level, const char* fmt, ...) {
  if (!log_enabled(level)) return;
  char line[2048];
  int n = std::snprintf(line, sizeof line, "%s[%d] %s: ", g_prefix, static_cast<int>(getpid()), level_name(level));
  va_list ap;
  va_start(ap, fmt);
  int m = std::vsnprintf(line + n, sizeof line - static_cast<size_t>(n) - 1, fmt, ap);
  va_end(ap);
  size_t len = static_cast<size_t>(n) + (m < 0 ? 0 : static_cast<size_t>(m));
  if (len > sizeof line - 2) len = sizeof line - 2;
  line[len++] = '\n';
  ssize_t ignored = ::write(2, line, len);
  (void)ignored;
}

}  // namespace rgpu
