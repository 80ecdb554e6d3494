// The session's error log: iterators number the entries, a read gives what follows one, the log
// keeps the driver's 25,600 bytes of the newest entries and counts what an old iterator missed.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "server/session/error_log.h"

using rgpu::server::ErrorLog;

TEST_CASE("error log: a read gives the entries from an iterator on, in order") {
  ErrorLog log;
  CHECK(log.end() == 0);
  log.append("first\n");
  const uint32_t it = log.end();
  log.append("second");
  log.append("third");
  ErrorLog::Since since;
  REQUIRE(log.read(it, false, &since));
  CHECK(since.end == 3);
  CHECK(since.dropped == 0);
  CHECK(since.entries == std::vector<std::string>{"second", "third"});
  ErrorLog::Since all;
  REQUIRE(log.read(0, true, &all));
  CHECK(all.entries == std::vector<std::string>{"first", "second", "third"});  // the newline is the dump's
  ErrorLog::Since none;
  CHECK_FALSE(log.read(4, false, &none));  // past the end: never given
  REQUIRE(log.read(3, false, &none));
  CHECK(none.entries.empty());
}

TEST_CASE("error log: bounded to the newest entries, an old iterator learns what it missed") {
  ErrorLog log;
  const std::string entry(100, 'x');
  for (int i = 0; i < 300; ++i) log.append(entry);  // 30,000 bytes
  ErrorLog::Since since;
  REQUIRE(log.read(0, false, &since));
  CHECK(since.entries.size() == ErrorLog::kMaxBytes / 100);
  CHECK(since.dropped == 300 - ErrorLog::kMaxBytes / 100);
  CHECK(since.end == 300);
  ErrorLog::Since all;
  REQUIRE(log.read(0, true, &all));
  CHECK(all.dropped == 0);
  CHECK(all.entries.size() == since.entries.size());
  log.append(std::string(5000, 'y'));
  ErrorLog::Since last;
  REQUIRE(log.read(300, false, &last));
  CHECK(last.entries.at(0).size() == ErrorLog::kMaxEntryBytes);  // a long entry is cut
}
