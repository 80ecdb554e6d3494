// Memory sizes as people write them: units, fractions that must come to whole MiB, refusals.
#include <catch2/catch.hpp>

#include "common/memory_size.h"

using rgpu::format_mib;
using rgpu::parse_memory_size;

namespace {
constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;
}  // namespace

TEST_CASE("a plain number is MiB, and M/MiB/G/GiB/T are binary units, any case") {
  CHECK(*parse_memory_size("4096") == 4096 * kMiB);
  CHECK(*parse_memory_size("0") == 0);
  CHECK(*parse_memory_size("4096M") == 4096 * kMiB);
  CHECK(*parse_memory_size("4096MiB") == 4096 * kMiB);
  CHECK(*parse_memory_size("4096mib") == 4096 * kMiB);
  CHECK(*parse_memory_size("4G") == 4 * kGiB);
  CHECK(*parse_memory_size("4gib") == 4 * kGiB);
  CHECK(*parse_memory_size("4Gi") == 4 * kGiB);
  CHECK(*parse_memory_size("1T") == 1024 * kGiB);
  CHECK(*parse_memory_size(" 8 G ") == 8 * kGiB);
}

TEST_CASE("a decimal is fine when it comes to whole MiB") {
  CHECK(*parse_memory_size("1.5G") == 1536 * kMiB);
  CHECK(*parse_memory_size("0.25GiB") == 256 * kMiB);
  auto half = parse_memory_size("0.5M");
  REQUIRE_FALSE(half.is_ok());
  CHECK_THAT(half.status().message(), Catch::Contains("not a whole number of MiB"));
  auto g = parse_memory_size("1.0001G");
  REQUIRE_FALSE(g.is_ok());
  CHECK_THAT(g.status().message(), Catch::Contains("not a whole number of MiB"));
}

TEST_CASE("malformed sizes are refused, saying how to write one") {
  for (const char* text : {"", "G", "abc", "4X", "4..5G", "-4G", "4.G", ".5G", "4 G B"}) {
    INFO(text);
    auto r = parse_memory_size(text);
    REQUIRE_FALSE(r.is_ok());
    CHECK(r.status().code() == rgpu::Code::kInvalidArgument);
    CHECK_THAT(r.status().message(), Catch::Contains("4096M, 4096MiB, 4G, 4GiB"));
  }
  auto mb = parse_memory_size("4GB");
  REQUIRE_FALSE(mb.is_ok());
  CHECK_THAT(mb.status().message(), Catch::Contains("sizes are binary: say G or GiB"));
  auto kb = parse_memory_size("4096K");
  REQUIRE_FALSE(kb.is_ok());
  CHECK_THAT(kb.status().message(), Catch::Contains("smallest unit is M"));
}

TEST_CASE("sizes that overflow 64 bits are refused") {
  auto r = parse_memory_size("99999999999999999999");
  REQUIRE_FALSE(r.is_ok());
  CHECK_THAT(r.status().message(), Catch::Contains("too large"));
  auto t = parse_memory_size("17592186044416T");  // 2^44 TiB = 2^84 bytes
  REQUIRE_FALSE(t.is_ok());
  CHECK_THAT(t.status().message(), Catch::Contains("too large"));
}

TEST_CASE("format_mib writes whole MiB, or one decimal for a part") {
  CHECK(format_mib(4096 * kMiB) == "4096 MiB");
  CHECK(format_mib(0) == "0 MiB");
  CHECK(format_mib(kMiB + kMiB / 2) == "1.5 MiB");
  CHECK(format_mib(kMiB - 1) == "1.0 MiB");
}
