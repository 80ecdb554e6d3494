// rgpud's operator logs, beside log.h's plain lines: `log_format: json` (log_set_format) makes
// each line one JSON object {time, level, process, pid, event, session, message, fields}; an event
// (log_event) has a name and fields a program can read without parsing the message (a plain
// RGPU_LOG_* line is the event "log"); a worker serves one session and says so once
// (log_set_session), and every line it writes then names that session.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "common/log.h"

namespace rgpu {

enum class LogFormat { kText, kJson };

// One field of an event: a string, or a number written as a JSON number.
struct LogField {
  LogField(std::string_view k, std::string v) : key(k), value(std::move(v)) {}
  LogField(std::string_view k, const char* v) : key(k), value(v ? v : "") {}
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, bool>>>
  LogField(std::string_view k, T v) : key(k), value(std::to_string(v)), number(true) {
    if constexpr (std::is_floating_point_v<T>)
      if (!std::isfinite(v)) value = "null";
  }
  std::string_view key;
  std::string value;
  bool number = false;
};

// What one line says, before it is formatted.
struct LogRecord {
  int64_t time_ms = 0;  // since the epoch
  LogLevel level = LogLevel::kInfo;
  std::string_view process;  // the prefix: "rgpud", "rgpu-client"
  int pid = 0;
  std::string_view event;  // "log" for a plain line
  uint64_t session = 0;    // 0: none
  std::string_view message;
  const std::vector<LogField>* fields = nullptr;
};

void log_set_format(LogFormat format);
void log_set_session(uint64_t session);  // this process serves this session (0: none)
// An event: `session` 0 means the process's own (log_set_session), if any.
void log_event(LogLevel level, std::string_view event, uint64_t session, std::vector<LogField> fields,
               const char* fmt, ...) __attribute__((format(printf, 5, 6)));

// The line (with its newline) a record makes. Text: "PREFIX[PID] LEVEL: MESSAGE", the message
// preceded by "session N: " unless it already starts with "session N" (as the session's own
// start and end lines do, which scripts grep for); the fields are for JSON only. JSON: one
// object, strings escaped.
std::string format_log_line(const LogRecord& record, LogFormat format);

// "error", "warn", "info", "debug" and "text", "json": the names rgpud's configuration and
// RGPU_LOG use.
std::optional<LogLevel> parse_log_level(std::string_view name);
const char* log_level_name(LogLevel level);
std::optional<LogFormat> parse_log_format(std::string_view name);
const char* log_format_name(LogFormat format);

}  // namespace rgpu
