// Logging: one line per event on stderr, with a level threshold from RGPU_LOG
// (error, warn, info, debug; default info for the daemon, warn for the client).
#pragma once

#include <cstdarg>

namespace rgpu {

enum class LogLevel : int { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

void log_set_level(LogLevel level);
void log_set_prefix(const char* prefix);  // e.g. "rgpud" or "rgpu-client"
bool log_enabled(LogLevel level);
void log_write(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace rgpu

#define RGPU_LOG_ERROR(...) ::rgpu::log_write(::rgpu::LogLevel::kError, __VA_ARGS__)
#define RGPU_LOG_WARN(...) ::rgpu::log_write(::rgpu::LogLevel::kWarn, __VA_ARGS__)
#define RGPU_LOG_INFO(...) ::rgpu::log_write(::rgpu::LogLevel::kInfo, __VA_ARGS__)
#define RGPU_LOG_DEBUG(...)                                                              \
  do {                                                                                   \
    if (::rgpu::log_enabled(::rgpu::LogLevel::kDebug)) ::rgpu::log_write(::rgpu::LogLevel::kDebug, __VA_ARGS__); \
  } while (0)
