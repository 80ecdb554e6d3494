// rgpud's log lines (common/log_event.h): the text line as scripts grep it, with the session named
// once; the JSON line valid JSON whatever the message and fields hold.
#include <catch2/catch.hpp>

#include <limits>
#include <string>
#include <vector>

#include "common/log_event.h"
#include "tests/unit/json_checker.h"

using namespace rgpu;
using rgpu::test::valid_json;

namespace {

LogRecord record(std::string_view message, uint64_t session, const std::vector<LogField>* fields) {
  LogRecord r;
  r.time_ms = 1764869440123;  // 2025-12-04T17:30:40.123Z
  r.level = LogLevel::kWarn;
  r.process = "rgpud";
  r.pid = 42;
  r.event = "session_refused";
  r.session = session;
  r.message = message;
  r.fields = fields;
  return r;
}

}  // namespace

TEST_CASE("a text line: prefix, level, and the session named once") {
  CHECK(format_log_line(record("listening on 127.0.0.1:7070", 0, nullptr), LogFormat::kText) ==
        "rgpud[42] warn: listening on 127.0.0.1:7070\n");
  // A worker's line that does not name its session gets it in front.
  CHECK(format_log_line(record("swapped 4.0 MiB out", 7, nullptr), LogFormat::kText) ==
        "rgpud[42] warn: session 7: swapped 4.0 MiB out\n");
  // One that does is left as it is (`grep "session [0-9]* start:"`).
  CHECK(format_log_line(record("session 7 start: host pid 3", 7, nullptr), LogFormat::kText) ==
        "rgpud[42] warn: session 7 start: host pid 3\n");
  CHECK(format_log_line(record("session 7: its slice is back", 7, nullptr), LogFormat::kText) ==
        "rgpud[42] warn: session 7: its slice is back\n");
  // "session 70" is not session 7.
  CHECK(format_log_line(record("session 70 start", 7, nullptr), LogFormat::kText) ==
        "rgpud[42] warn: session 7: session 70 start\n");
}

TEST_CASE("a JSON line: every key, numbers as numbers, strings escaped") {
  const std::vector<LogField> fields{{"tenant", "in\"fer\\ence"}, {"gpu", 1}, {"memory_bytes", uint64_t{4} << 30},
                                     {"seconds", 2.5}, {"reason", "line\nbreak\ttab\x01"}};
  const std::string line = format_log_line(record("session 7 refused: \"quoted\"\n", 7, &fields), LogFormat::kJson);
  REQUIRE(line.back() == '\n');
  const std::string object = line.substr(0, line.size() - 1);
  CHECK(object.find('\n') == std::string::npos);  // one line
  CHECK(valid_json(object));
  CHECK(object ==
        R"({"time":"2025-12-04T17:30:40.123Z","level":"warn","process":"rgpud","pid":42,"event":"session_refused",)"
        R"("session":7,"message":"session 7 refused: \"quoted\"\n","fields":{"tenant":"in\"fer\\ence","gpu":1,)"
        R"("memory_bytes":4294967296,"seconds":2.500000,"reason":"line\nbreak\ttab\u0001"}})");
}

TEST_CASE("a JSON line without a session or fields, and with bytes that are not UTF-8") {
  const std::string line = format_log_line(record("bad \xff\xfe name", 0, nullptr), LogFormat::kJson);
  CHECK(valid_json(line.substr(0, line.size() - 1)));
  CHECK_THAT(line, Catch::Contains(R"("session":null,"message":"bad \ufffd\ufffd name","fields":{}})"));
  // A number that is not finite would not be JSON.
  const std::vector<LogField> nan{{"ms", std::numeric_limits<double>::quiet_NaN()}};
  const std::string with_nan = format_log_line(record("x", 0, &nan), LogFormat::kJson);
  CHECK(valid_json(with_nan.substr(0, with_nan.size() - 1)));
  CHECK_THAT(with_nan, Catch::Contains(R"("fields":{"ms":null})"));
}

TEST_CASE("level and format names") {
  CHECK(parse_log_level("debug") == LogLevel::kDebug);
  CHECK(parse_log_level("warn") == LogLevel::kWarn);
  CHECK_FALSE(parse_log_level("verbose"));
  CHECK(parse_log_format("json") == LogFormat::kJson);
  CHECK(parse_log_format("text") == LogFormat::kText);
  CHECK_FALSE(parse_log_format("xml"));
  CHECK(std::string(log_format_name(LogFormat::kJson)) == "json");
}
