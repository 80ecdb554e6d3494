// The nvcc-built fatbins: entry kinds, arches and compression per build variant, decompressed
// content, and select_for_arch on a multi-architecture container.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <tuple>

#include "fixtures.h"

using namespace rgpu::fatbin;
using namespace rgpu::fatbin::testing;

namespace {

using Shape = std::tuple<EntryKind, uint32_t, Compression>;

std::vector<Shape> shapes(const Container& c) {
  std::vector<Shape> out;
  for (const Entry& e : c.entries) out.emplace_back(e.kind, e.arch, e.compression);
  std::sort(out.begin(), out.end());
  return out;
}

std::string text_of(const std::vector<uint8_t>& bytes) {
  std::string text(bytes.begin(), bytes.end());
  return text.substr(0, text.find('\0'));
}

// Decompressed images of each kind, by arch, checked for what they must look like.
std::map<std::pair<EntryKind, uint32_t>, std::vector<uint8_t>> images(const Container& c) {
  std::map<std::pair<EntryKind, uint32_t>, std::vector<uint8_t>> out;
  for (const Entry& e : c.entries) {
    auto image = decompress(e);
    REQUIRE(image.is_ok());
    CHECK(image->size() == e.uncompressed_size);
    if (e.kind == EntryKind::kElf) {
      REQUIRE(image->size() > 4);
      CHECK(std::string(image->begin(), image->begin() + 4) ==
            "\x7f"
            "ELF");
    } else {
      const std::string text = text_of(*image);
      CHECK(text.find(".entry") != std::string::npos);
      CHECK(text.find(".target sm_" + std::to_string(e.arch)) != std::string::npos);
    }
    out[{e.kind, e.arch}] = std::move(*image);
  }
  return out;
}

}  // namespace

TEST_CASE("each build variant parses with the entries its flags ask for") {
  const auto E = EntryKind::kElf;
  const auto P = EntryKind::kPtx;
  const auto none = Compression::kNone, zstd = Compression::kZstd, lz4 = Compression::kLz4;
  const std::map<std::string, std::vector<Shape>> expected = {
      // nvcc 13 default: SASS as is, PTX zstd
      {"default.fatbin", {{P, 90, zstd}, {E, 90, none}}},
      {"uncompressed.fatbin", {{P, 90, none}, {E, 90, none}}},  // -no-compress
      {"zstd.fatbin", {{P, 90, zstd}, {E, 90, zstd}}},          // -Xfatbin -compress-all
      {"lz4.fatbin", {{P, 90, lz4}, {E, 90, lz4}}},             // ... -compress-mode=speed
      {"multi.fatbin", {{P, 80, zstd}, {P, 90, zstd}, {E, 80, none}, {E, 86, none}, {E, 90, none}}},
      {"tiny.fatbin", {{P, 90, zstd}, {E, 90, zstd}}},
  };
  for (const auto& [name, shape] : expected) {
    INFO(name);
    const auto bytes = load_fixture(name);
    auto c = parse_container(bytes);
    REQUIRE(c.is_ok());
    CHECK(c->bytes.size() == bytes.size());
    CHECK(shapes(*c) == shape);
    (void)images(*c);
  }
}

TEST_CASE("every compression variant holds the same images") {
  auto reference = parse_container(load_fixture("uncompressed.fatbin"));
  REQUIRE(reference.is_ok());
  const auto expected = images(*reference);
  for (const char* name : {"default.fatbin", "zstd.fatbin", "lz4.fatbin"}) {
    INFO(name);
    auto c = parse_container(load_fixture(name));
    REQUIRE(c.is_ok());
    auto got = images(*c);
    REQUIRE(got.size() == expected.size());
    for (const auto& [key, image] : expected) {
      // An uncompressed PTX payload keeps its NUL padding; compare the text.
      if (key.first == EntryKind::kPtx)
        CHECK(text_of(got.at(key)) == text_of(image));
      else
        CHECK(got.at(key) == image);
    }
  }
}

TEST_CASE("compressed payloads are padded to 8 bytes in the stored size") {
  for (const char* name : {"default.fatbin", "zstd.fatbin", "lz4.fatbin", "multi.fatbin"}) {
    INFO(name);
    const auto bytes = load_fixture(name);
    auto c = parse_container(bytes);
    REQUIRE(c.is_ok());
    for (const Entry& e : c->entries) {
      uint64_t stored = 0;
      std::memcpy(&stored, e.header.data() + 8, sizeof(stored));
      CHECK(stored % 8 == 0);
      CHECK(e.payload.size() <= stored);
      CHECK(stored - e.payload.size() < 8);
      CHECK((e.payload.data() - bytes.data()) % 8 == 0);  // entries start 8-aligned
    }
  }
}

TEST_CASE("select_for_arch on the multi-architecture fatbin") {
  const auto bytes = load_fixture("multi.fatbin");
  auto c = parse_container(bytes);
  REQUIRE(c.is_ok());
  const auto E = EntryKind::kElf;
  const auto P = EntryKind::kPtx;
  const auto none = Compression::kNone, zstd = Compression::kZstd;
  auto selected_shape = [&](uint32_t arch) {
    auto selected = select_for_arch(*c, arch);
    auto s = parse_container(selected);
    REQUIRE(s.is_ok());
    CHECK(s->bytes.size() == selected.size());
    (void)images(*s);
    return shapes(*s);
  };
  CHECK(selected_shape(90) == std::vector<Shape>{{P, 90, zstd}, {E, 90, none}});
  CHECK(selected_shape(89) == std::vector<Shape>{{P, 80, zstd}, {E, 86, none}});
  CHECK(selected_shape(80) == std::vector<Shape>{{P, 80, zstd}, {E, 80, none}});
  CHECK(selected_shape(120) == std::vector<Shape>{{P, 90, zstd}});  // JIT from the newest PTX
  CHECK(select_for_arch(*c, 75) == bytes);                          // nothing runs on 7.5

  // The selected images are the original ones, byte for byte.
  const auto selected90 = select_for_arch(*c, 90);
  auto s90 = parse_container(selected90);
  REQUIRE(s90.is_ok());
  CHECK(images(*s90) == [&] {
    auto all = images(*c);
    std::erase_if(all, [](const auto& kv) { return kv.first.second != 90; });
    return all;
  }());
}
