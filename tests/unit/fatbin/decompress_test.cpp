// decompress on hand-built zstd and LZ4 entries: exact sizes, padding ignored, corruption refused.
#include <lz4.h>
#include <zstd.h>

#include <catch2/catch.hpp>
#include <string>

#include "common/fatbin/fatbin.h"
#include "container_builder.h"

using namespace rgpu::fatbin;
using namespace rgpu::fatbin::testing;

namespace {

std::vector<uint8_t> sample_text() {
  std::string text;
  for (int i = 0; i < 200; ++i) text += ".param .u64 kernel_param_" + std::to_string(i) + ",\n";
  return {text.begin(), text.end()};
}

std::vector<uint8_t> zstd_of(const std::vector<uint8_t>& in) {
  std::vector<uint8_t> out(ZSTD_compressBound(in.size()));
  size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3);
  REQUIRE_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

std::vector<uint8_t> lz4_of(const std::vector<uint8_t>& in) {
  std::vector<uint8_t> out(LZ4_compressBound(static_cast<int>(in.size())));
  int n = LZ4_compress_default(reinterpret_cast<const char*>(in.data()),
                               reinterpret_cast<char*>(out.data()), static_cast<int>(in.size()),
                               static_cast<int>(out.size()));
  REQUIRE(n > 0);
  out.resize(n);
  return out;
}

// A container of one entry holding `compressed`, flagged with `flag`, padded to 8 as nvcc does.
std::vector<uint8_t> compressed_container(const std::vector<uint8_t>& compressed, uint64_t flag,
                                          uint64_t uncompressed_size) {
  EntrySpec e;
  e.flags = 0x11 | flag;
  e.payload = compressed;
  e.compressed_size = static_cast<uint32_t>(compressed.size());
  e.uncompressed_size = uncompressed_size;
  return build_container({e});
}

rgpu::Result<std::vector<uint8_t>> decompress_only_entry(const std::vector<uint8_t>& bytes) {
  auto c = parse_container(bytes);
  REQUIRE(c.is_ok());
  REQUIRE(c->entries.size() == 1);
  return decompress(c->entries[0]);
}

}  // namespace

TEST_CASE("zstd and LZ4 entries decompress to their exact content") {
  const auto text = sample_text();
  for (auto [flag, compressed] :
       {std::pair{uint64_t{0x8000}, zstd_of(text)}, std::pair{uint64_t{0x2000}, lz4_of(text)}}) {
    INFO("flag " << flag << ", " << compressed.size() << " compressed bytes");
    CHECK(compressed.size() % 8 != 0);  // so the padding is really exercised
    auto out = decompress_only_entry(compressed_container(compressed, flag, text.size()));
    REQUIRE(out.is_ok());
    CHECK(*out == text);
  }
}

TEST_CASE("an uncompressed entry decompresses to its stored payload") {
  EntrySpec e;
  e.payload = bytes_of(
      "\x7f"
      "ELF....");
  auto out = decompress_only_entry(build_container({e}));
  REQUIRE(out.is_ok());
  CHECK(*out == e.payload);
}

TEST_CASE("decompress refuses a wrong uncompressed size or corrupt data") {
  const auto text = sample_text();
  for (auto [flag, compressed] :
       {std::pair{uint64_t{0x8000}, zstd_of(text)}, std::pair{uint64_t{0x2000}, lz4_of(text)}}) {
    INFO("flag " << flag);
    CHECK_FALSE(
        decompress_only_entry(compressed_container(compressed, flag, text.size() - 1)).is_ok());
    CHECK_FALSE(
        decompress_only_entry(compressed_container(compressed, flag, text.size() + 1)).is_ok());
    CHECK_FALSE(decompress_only_entry(compressed_container(compressed, flag, 0)).is_ok());
    CHECK_FALSE(
        decompress_only_entry(compressed_container(compressed, flag, uint64_t{1} << 40)).is_ok());
    auto cut = compressed;
    cut.resize(cut.size() / 2);
    CHECK_FALSE(decompress_only_entry(compressed_container(cut, flag, text.size())).is_ok());
    auto garbage = compressed;
    for (size_t i = 0; i < garbage.size(); i += 3) garbage[i] ^= 0x5a;
    CHECK_FALSE(decompress_only_entry(compressed_container(garbage, flag, text.size())).is_ok());
  }
}
