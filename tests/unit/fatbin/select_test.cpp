// select_for_arch on hand-built containers: which SASS and PTX a GPU keeps, and a valid result.
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "common/fatbin/fatbin.h"
#include "container_builder.h"

using namespace rgpu::fatbin;
using namespace rgpu::fatbin::testing;

namespace {

constexpr uint64_t kArchSpecific = 0x100000;
constexpr uint64_t kFamilySpecific = 0x200000;

EntrySpec entry(uint16_t kind, uint32_t arch, uint64_t extra_flags = 0) {
  EntrySpec e;
  e.kind = kind;
  e.arch = arch;
  e.flags = 0x11 | extra_flags;
  // A payload that names the entry, so the test can tell which ones were kept.
  std::string tag = (kind == 1 ? "ptx" : "elf") + std::to_string(arch) +
                    (extra_flags & kArchSpecific     ? "a"
                     : extra_flags & kFamilySpecific ? "f"
                                                     : "");
  e.payload.assign(tag.begin(), tag.end());
  return e;
}

const std::vector<uint8_t>& mixed_container() {
  static const auto bytes = build_container(
      {entry(2, 80), entry(1, 80), entry(2, 86), entry(2, 90), entry(2, 90, kArchSpecific),
       entry(1, 90), entry(1, 90, kArchSpecific), entry(2, 100, kFamilySpecific), entry(2, 120)});
  return bytes;
}

// The tags of the entries that the selection for `arch` keeps; checks the result is a valid
// container whose entries are byte-for-byte those of the original.
std::set<std::string> kept(uint32_t arch) {
  auto original = parse_container(mixed_container());
  REQUIRE(original.is_ok());
  auto selected = select_for_arch(*original, arch);
  auto c = parse_container(selected);
  REQUIRE(c.is_ok());
  CHECK(c->bytes.size() == selected.size());
  std::set<std::string> tags;
  for (const Entry& e : c->entries) {
    std::string tag(e.payload.begin(), e.payload.end());
    tags.insert(tag.substr(0, tag.find('\0')));
    const auto stored = std::span(e.header.data(), e.header.size() + e.payload.size());
    const auto haystack = mixed_container();
    CHECK(std::search(haystack.begin(), haystack.end(), stored.begin(), stored.end()) !=
          haystack.end());
  }
  return tags;
}

}  // namespace

TEST_CASE("select_for_arch keeps the best SASS of the GPU's family and the newest usable PTX") {
  CHECK(kept(90) == std::set<std::string>{"elf90a", "ptx90a"});  // exact specific builds win ties
  CHECK(kept(89) == std::set<std::string>{"elf86", "ptx80"});
  CHECK(kept(86) == std::set<std::string>{"elf86", "ptx80"});
  CHECK(kept(80) == std::set<std::string>{"elf80", "ptx80"});
  CHECK(kept(103) == std::set<std::string>{"elf100f", "ptx90"});  // family SASS; 90a PTX only on 90
  CHECK(kept(121) == std::set<std::string>{"elf120", "ptx90"});
}

TEST_CASE("select_for_arch returns the whole container when nothing fits the GPU") {
  auto original = parse_container(mixed_container());
  REQUIRE(original.is_ok());
  CHECK(select_for_arch(*original, 75) == mixed_container());

  auto only_sass = build_container({entry(2, 90)});
  auto c = parse_container(only_sass);
  REQUIRE(c.is_ok());
  CHECK(select_for_arch(*c, 100) == only_sass);  // sm_90 SASS does not run on 10.0
  CHECK(select_for_arch(*c, 91) == only_sass);   // same family: 9.0 SASS runs on 9.1 — kept alone
}
