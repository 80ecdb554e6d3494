// The small nvcc-built fatbin cut at every length and with corrupted headers and bytes: every
// reader answers with a Status, never a crash or an over-read (this suite also runs under ASan).
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <set>
#include <string>

#include "fixtures.h"

using namespace rgpu::fatbin;
using namespace rgpu::fatbin::testing;

namespace {

// Runs every reader over what parses; returns whether the container parsed.
bool exercise(std::span<const uint8_t> bytes) {
  auto c = parse_container(bytes);
  if (!c.is_ok()) return false;
  for (const Entry& e : c->entries) (void)decompress(e);
  (void)kernel_params(*c);
  auto selected = select_for_arch(*c, 90);
  CHECK(parse_container(selected).is_ok());  // a selection of a valid container is valid
  return true;
}

template <typename T>
void put(std::vector<uint8_t>* bytes, size_t offset, T value) {
  std::memcpy(bytes->data() + offset, &value, sizeof(value));
}

// Each prefix copied into a buffer of exactly its length, so ASan sees any over-read.
std::vector<uint8_t> prefix(const std::vector<uint8_t>& bytes, size_t length) {
  return {bytes.begin(), bytes.begin() + length};
}

}  // namespace

TEST_CASE("every proper prefix of a fatbin is refused") {
  const auto bytes = load_fixture("tiny.fatbin");
  REQUIRE(exercise(bytes));
  for (size_t length = 0; length < bytes.size(); ++length) {
    INFO("length " << length);
    CHECK_FALSE(parse_container(prefix(bytes, length)).is_ok());
  }
}

TEST_CASE("a container whose payload size is cut to each length never crashes the readers") {
  const auto bytes = load_fixture("tiny.fatbin");
  auto c = parse_container(bytes);
  REQUIRE(c.is_ok());
  // The lengths at which an entry ends exactly: only there is the cut container valid.
  std::set<size_t> entry_ends = {16};
  for (const Entry& e : c->entries) {
    uint64_t stored = 0;
    std::memcpy(&stored, e.header.data() + 8, sizeof(stored));
    entry_ends.insert(e.header.data() - bytes.data() + e.header.size() + stored);
  }
  for (size_t length = 16; length <= bytes.size(); ++length) {
    INFO("length " << length);
    auto cut = prefix(bytes, length);
    put<uint64_t>(&cut, 8, length - 16);
    CHECK(exercise(cut) == (entry_ends.count(length) == 1));
  }
}

TEST_CASE("corrupting header fields gives errors") {
  const auto good = load_fixture("tiny.fatbin");
  auto c = parse_container(good);
  REQUIRE(c.is_ok());
  REQUIRE(c->entries.size() == 2);
  const size_t first = c->entries[0].header.data() - good.data();
  auto fails_with = [](std::vector<uint8_t> bytes) {
    auto parsed = parse_container(bytes);
    if (!parsed.is_ok()) return true;
    for (const Entry& e : parsed->entries)
      if (!decompress(e).is_ok()) return true;
    return false;
  };
  auto with = [&](size_t offset, auto value) {
    auto b = good;
    put(&b, offset, value);
    return b;
  };
  CHECK(fails_with(with(0, uint32_t{0xBA55ED51})));       // magic
  CHECK(fails_with(with(4, uint16_t{7})));                // version
  CHECK(fails_with(with(6, uint16_t{4})));                // header size
  CHECK(fails_with(with(8, uint64_t{good.size()})));      // payload size
  CHECK(fails_with(with(first + 4, uint32_t{0})));        // entry header size
  CHECK(fails_with(with(first + 8, uint64_t{1} << 62)));  // entry payload size
  CHECK(fails_with(with(first + 16, uint32_t{0})));       // compressed size
  CHECK(fails_with(with(first + 16, uint32_t{0xffffff})));
  CHECK(fails_with(with(first + 40, uint64_t{0xa011})));  // both compressions
  CHECK(fails_with(with(first + 40, uint64_t{0x2011})));  // zstd data flagged LZ4
  CHECK(fails_with(with(first + 56, uint64_t{c->entries[0].uncompressed_size + 1})));
  CHECK(fails_with(with(first + 56, ~uint64_t{0})));
}

TEST_CASE("every header byte set to extreme values never crashes the readers") {
  const auto good = load_fixture("tiny.fatbin");
  auto c = parse_container(good);
  REQUIRE(c.is_ok());
  std::vector<size_t> header_bytes;
  for (size_t i = 0; i < 16; ++i) header_bytes.push_back(i);
  for (const Entry& e : c->entries)
    for (size_t i = 0; i < e.header.size(); ++i)
      header_bytes.push_back(e.header.data() - good.data() + i);
  int parsed = 0;
  for (size_t offset : header_bytes) {
    for (uint8_t value : {uint8_t{0}, uint8_t{1}, uint8_t{0x7f}, uint8_t{0x80}, uint8_t{0xff},
                          static_cast<uint8_t>(good[offset] ^ 0x10)}) {
      auto b = good;
      b[offset] = value;
      parsed += exercise(b);
    }
  }
  CHECK(parsed > 0);  // bytes that no reader uses (reserved fields) leave the container valid
}

TEST_CASE("random byte corruption anywhere never crashes the readers") {
  const auto good = load_fixture("tiny.fatbin");
  std::mt19937 rng(42);
  for (int round = 0; round < 3000; ++round) {
    auto b = good;
    const int flips = 1 + rng() % 8;
    for (int i = 0; i < flips; ++i) b[rng() % b.size()] = static_cast<uint8_t>(rng());
    (void)exercise(b);
  }
  SUCCEED("3000 corrupted containers read without a crash");
}

TEST_CASE("the decompressed ELF and PTX cut or corrupted never crash the parameter readers") {
  auto c = parse_container(load_fixture("tiny.fatbin"));
  REQUIRE(c.is_ok());
  for (const Entry& e : c->entries) {
    auto image = decompress(e);
    REQUIRE(image.is_ok());
    const bool elf = e.kind == EntryKind::kElf;
    auto read = [&](const std::vector<uint8_t>& bytes) {
      return elf ? kernel_params_from_elf(bytes)
                 : kernel_params_from_ptx(
                       std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    };
    auto whole = read(*image);
    REQUIRE(whole.is_ok());
    REQUIRE(whole->size() == 1);
    CHECK(whole->at(0).name == "tiny");
    CHECK(layout_of(whole->at(0)) == Layout{{0, 8}, {8, 4}});
    for (size_t length = 0; length < image->size(); ++length) (void)read(prefix(*image, length));
    std::mt19937 rng(5);
    for (int round = 0; round < 2000; ++round) {
      auto b = *image;
      for (int i = 0; i < 4; ++i) b[rng() % b.size()] = static_cast<uint8_t>(rng());
      (void)read(b);
    }
  }
  CHECK_FALSE(kernel_params_from_elf(std::vector<uint8_t>(64, 0)).is_ok());
}
