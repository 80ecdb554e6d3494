// parse_wrapper on wrappers built in memory: versions, the -rdc list, and the readable bound.
#include <catch2/catch.hpp>
#include <cstring>

#include "common/fatbin/fatbin.h"
#include "container_builder.h"

using namespace rgpu::fatbin;
using namespace rgpu::fatbin::testing;

namespace {

struct Wrapper {
  uint32_t magic = kWrapperMagic;
  uint32_t version = 1;
  const void* data = nullptr;
  const void* filename_or_fatbins = nullptr;
};
static_assert(sizeof(Wrapper) == 24);

// The readable regions of this test: each registered buffer, up to its end.
std::vector<std::pair<const uint8_t*, size_t>>& regions() {
  static std::vector<std::pair<const uint8_t*, size_t>> all;
  return all;
}
size_t test_readable(const void* p) {
  auto* at = static_cast<const uint8_t*>(p);
  for (auto [begin, size] : regions())
    if (at >= begin && at < begin + size) return begin + size - at;
  return 0;
}
template <typename T>
void allow(const T* p, size_t bytes = sizeof(T)) {
  regions().emplace_back(reinterpret_cast<const uint8_t*>(p), bytes);
}

EntrySpec elf(uint32_t arch) {
  EntrySpec e;
  e.arch = arch;
  e.payload = bytes_of(
      "\x7f"
      "ELF");
  return e;
}

}  // namespace

TEST_CASE("parse_wrapper reads version 1 and version 2 wrappers") {
  regions().clear();
  const auto linked = build_container({elf(90)});
  const auto first = build_container({elf(80)});
  const auto second = build_container({elf(86), elf(90)});
  allow(linked.data(), linked.size());
  allow(first.data(), first.size());
  allow(second.data(), second.size());

  Wrapper v1{kWrapperMagic, 1, linked.data(), "ignored file name"};
  allow(&v1);
  auto one = parse_wrapper(&v1, test_readable);
  REQUIRE(one.is_ok());
  REQUIRE(one->size() == 1);
  CHECK((*one)[0].bytes.data() == linked.data());

  const void* list[] = {first.data(), second.data(), nullptr};
  allow(&list);
  Wrapper v2{kWrapperMagic, 2, linked.data(), list};
  allow(&v2);
  auto three = parse_wrapper(&v2, test_readable);
  REQUIRE(three.is_ok());
  REQUIRE(three->size() == 3);
  CHECK((*three)[0].bytes.data() == linked.data());
  CHECK((*three)[1].bytes.data() == first.data());
  CHECK((*three)[2].entries.size() == 2);

  Wrapper v2_no_linked{kWrapperMagic, 2, nullptr, list};
  allow(&v2_no_linked);
  auto two = parse_wrapper(&v2_no_linked, test_readable);
  REQUIRE(two.is_ok());
  CHECK(two->size() == 2);
}

TEST_CASE("parse_wrapper refuses bad wrappers and reads nothing past the readable bound") {
  regions().clear();
  const auto container = build_container({elf(90)});
  allow(container.data(), container.size() - 1);  // the last byte is "unmapped"

  Wrapper w{kWrapperMagic, 1, container.data(), nullptr};
  CHECK_FALSE(parse_wrapper(&w, test_readable).is_ok());  // the wrapper itself is unreadable
  allow(&w);
  CHECK_FALSE(parse_wrapper(&w, test_readable).is_ok());  // the container is cut by the bound
  CHECK_FALSE(parse_wrapper(nullptr, test_readable).is_ok());

  regions().clear();
  allow(container.data(), container.size());
  allow(&w);
  REQUIRE(parse_wrapper(&w, test_readable).is_ok());
  w.magic ^= 1;
  CHECK_FALSE(parse_wrapper(&w, test_readable).is_ok());
  w.magic = kWrapperMagic;
  w.version = 3;
  CHECK(parse_wrapper(&w, test_readable).status().code() == rgpu::Code::kNotSupported);
  w.version = 1;
  w.data = nullptr;
  CHECK_FALSE(parse_wrapper(&w, test_readable).is_ok());

  // A version 2 list that runs into unreadable memory before its NULL.
  const void* list[] = {container.data(), container.data()};
  allow(&list);
  Wrapper v2{kWrapperMagic, 2, container.data(), list};
  allow(&v2);
  auto r = parse_wrapper(&v2, test_readable);
  REQUIRE_FALSE(r.is_ok());
  CHECK_THAT(r.status().message(), Catch::Contains("NULL-terminated"));
}
