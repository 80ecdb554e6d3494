// Logging to stderr; one write(2) per line so lines from several processes do not interleave.
#include "common/log.h"
#include "common/log_event.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "common/json_string.h"

namespace rgpu {
namespace {

std::atomic<int> g_level{-1};
const char* g_prefix = "rgpu";
LogFormat g_format = LogFormat::kText;
uint64_t g_session = 0;

int level_from_env() {
  const char* v = std::getenv("RGPU_LOG");
  std::optional<LogLevel> level = v ? parse_log_level(v) : std::nullopt;
  return static_cast<int>(level.value_or(LogLevel::kInfo));
}

// "2026-12-04T17:30:40.123Z"
std::string utc_time(int64_t ms) {
  const time_t secs = static_cast<time_t>(ms / 1000);
  tm parts{};
  gmtime_r(&secs, &parts);
  char text[32];
  const size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &parts);
  char millis[8];
  std::snprintf(millis, sizeof millis, ".%03dZ", static_cast<int>(ms % 1000));
  return std::string(text, n) + millis;
}

std::string text_line(const LogRecord& r) {
  std::string line = std::string(r.process) + "[" + std::to_string(r.pid) + "] " + log_level_name(r.level) + ": ";
  if (r.session != 0) {
    const std::string named = "session " + std::to_string(r.session);
    const bool names_it = r.message.starts_with(named) &&
                          (r.message.size() == named.size() || r.message[named.size()] == ' ' ||
                           r.message[named.size()] == ':');
    if (!names_it) line += named + ": ";
  }
  line.append(r.message);
  return line + "\n";
}

std::string json_line(const LogRecord& r) {
  std::string line = "{\"time\":\"" + utc_time(r.time_ms) + "\",\"level\":\"" + log_level_name(r.level) +
                     "\",\"process\":" + json_string(r.process) + ",\"pid\":" + std::to_string(r.pid) +
                     ",\"event\":" + json_string(r.event) +
                     ",\"session\":" + (r.session ? std::to_string(r.session) : std::string("null")) +
                     ",\"message\":" + json_string(r.message) + ",\"fields\":{";
  static const std::vector<LogField> kNone;
  bool first = true;
  for (const LogField& f : r.fields ? *r.fields : kNone) {
    // Appended piece by piece: GCC 12's -Wrestrict misreads `"," + std::string&&` in Release builds.
    if (!first) line += ',';
    line += json_string(f.key);
    line += ':';
    line += f.number ? f.value : json_string(f.value);
    first = false;
  }
  return line + "}}\n";
}

void emit(LogLevel level, std::string_view event, uint64_t session, const std::vector<LogField>* fields,
          const char* fmt, va_list ap) {
  char message[2048];
  int m = std::vsnprintf(message, sizeof message, fmt, ap);
  const size_t len = m < 0 ? 0 : std::min(static_cast<size_t>(m), sizeof message - 1);
  LogRecord r;
  r.time_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
  r.level = level;
  r.process = g_prefix;
  r.pid = static_cast<int>(getpid());
  r.event = event;
  r.session = session ? session : g_session;
  r.message = std::string_view(message, len);
  r.fields = fields;
  const std::string line = format_log_line(r, g_format);
  ssize_t ignored = ::write(2, line.data(), line.size());
  (void)ignored;
}

}  // namespace

void log_set_level(LogLevel level) { g_level = static_cast<int>(level); }
void log_set_prefix(const char* prefix) { g_prefix = prefix; }
void log_set_format(LogFormat format) { g_format = format; }
void log_set_session(uint64_t session) { g_session = session; }

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
  va_list ap;
  va_start(ap, fmt);
  emit(level, "log", 0, nullptr, fmt, ap);
  va_end(ap);
}

void log_event(LogLevel level, std::string_view event, uint64_t session, std::vector<LogField> fields,
               const char* fmt, ...) {
  if (!log_enabled(level)) return;
  va_list ap;
  va_start(ap, fmt);
  emit(level, event, session, &fields, fmt, ap);
  va_end(ap);
}

std::string format_log_line(const LogRecord& record, LogFormat format) {
  return format == LogFormat::kJson ? json_line(record) : text_line(record);
}

std::optional<LogLevel> parse_log_level(std::string_view name) {
  for (LogLevel l : {LogLevel::kError, LogLevel::kWarn, LogLevel::kInfo, LogLevel::kDebug})
    if (name == log_level_name(l)) return l;
  return std::nullopt;
}

const char* log_level_name(LogLevel level) {
  switch (level) {
    case LogLevel::kError: return "error";
    case LogLevel::kWarn: return "warn";
    case LogLevel::kInfo: return "info";
    case LogLevel::kDebug: return "debug";
  }
  return "?";
}

std::optional<LogFormat> parse_log_format(std::string_view name) {
  if (name == "text") return LogFormat::kText;
  if (name == "json") return LogFormat::kJson;
  return std::nullopt;
}

const char* log_format_name(LogFormat format) { return format == LogFormat::kJson ? "json" : "text"; }

}  // namespace rgpu
