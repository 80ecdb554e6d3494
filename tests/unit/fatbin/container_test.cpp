// parse_container on hand-built containers: fields, spans, skipped kinds, and each header check.
#include <catch2/catch.hpp>

#include "common/fatbin/fatbin.h"
#include "container_builder.h"

using namespace rgpu::fatbin;
using namespace rgpu::fatbin::testing;

namespace {

EntrySpec elf_entry(uint32_t arch) {
  EntrySpec e;
  e.kind = 2;
  e.arch = arch;
  e.payload = bytes_of(
      "\x7f"
      "ELF image");  // 10 bytes, stored padded to 16
  return e;
}

EntrySpec ptx_entry(uint32_t arch) {
  EntrySpec e;
  e.kind = 1;
  e.arch = arch;
  e.header_size = 80;
  e.payload = bytes_of(".entry k()");
  return e;
}

}  // namespace

TEST_CASE("parse_container reads entry kinds, arches, sizes and payload spans") {
  auto bytes = build_container({elf_entry(90), ptx_entry(80)});
  bytes.resize(bytes.size() + 32, 0xee);  // trailing bytes beyond the payload are not part of it
  auto c = parse_container(bytes);
  REQUIRE(c.is_ok());
  CHECK(c->bytes.size() == bytes.size() - 32);
  REQUIRE(c->entries.size() == 2);
  const Entry& elf = c->entries[0];
  CHECK(elf.kind == EntryKind::kElf);
  CHECK(elf.arch == 90);
  CHECK(elf.compression == Compression::kNone);
  CHECK(elf.header.size() == 64);
  CHECK(elf.header.data() == bytes.data() + 16);
  CHECK(elf.payload.size() == 16);  // the stored size, padding included
  CHECK(elf.uncompressed_size == 16);
  CHECK(elf.payload.data() == bytes.data() + 16 + 64);
  const Entry& ptx = c->entries[1];
  CHECK(ptx.kind == EntryKind::kPtx);
  CHECK(ptx.arch == 80);
  CHECK(ptx.header.size() == 80);
  CHECK(std::string(ptx.payload.begin(), ptx.payload.begin() + 10) == ".entry k()");
}

TEST_CASE("a compressed entry's payload is exactly its compressed bytes, without the padding") {
  EntrySpec e = elf_entry(90);
  e.flags |= 0x8000;
  e.payload = bytes_of("thirteen byte");
  e.compressed_size = 13;
  e.uncompressed_size = 100;
  auto bytes = build_container({e});
  auto c = parse_container(bytes);
  REQUIRE(c.is_ok());
  REQUIRE(c->entries.size() == 1);
  CHECK(c->entries[0].compression == Compression::kZstd);
  CHECK(c->entries[0].payload.size() == 13);
  CHECK(c->entries[0].uncompressed_size == 100);
  e.flags = 0x2011;
  c = parse_container(build_container({e}));
  REQUIRE(c.is_ok());
  CHECK(c->entries[0].compression == Compression::kLz4);
}

TEST_CASE("an empty container has no entries, other entry kinds are walked over") {
  auto empty = build_container({});
  auto c = parse_container(empty);
  REQUIRE(c.is_ok());
  CHECK(c->entries.empty());

  EntrySpec lto = elf_entry(90);
  lto.kind = 8;  // LTO IR (-dlto)
  auto c2 = parse_container(build_container({lto, ptx_entry(90)}));
  REQUIRE(c2.is_ok());
  REQUIRE(c2->entries.size() == 1);
  CHECK(c2->entries[0].kind == EntryKind::kPtx);
}

TEST_CASE("parse_container rejects each kind of bad header with a clear error") {
  const auto good = build_container({elf_entry(90), ptx_entry(90)});
  auto expect_error = [](std::vector<uint8_t> bytes, rgpu::Code code, const char* words) {
    auto c = parse_container(bytes);
    REQUIRE_FALSE(c.is_ok());
    CHECK(c.status().code() == code);
    CHECK_THAT(c.status().message(), Catch::Contains(words));
  };
  SECTION("short") {
    expect_error({good.begin(), good.begin() + 15}, rgpu::Code::kInvalidArgument, "16-byte header");
  }
  SECTION("magic") {
    auto b = good;
    b[0] ^= 1;
    expect_error(b, rgpu::Code::kInvalidArgument, "magic");
  }
  SECTION("version") {
    auto b = good;
    put<uint16_t>(&b, 4, 2);
    expect_error(b, rgpu::Code::kNotSupported, "version 2");
  }
  SECTION("header size below 16") {
    auto b = good;
    put<uint16_t>(&b, 6, 8);
    expect_error(b, rgpu::Code::kInvalidArgument, "header size");
  }
  SECTION("payload size past the bound") {
    auto b = good;
    put<uint64_t>(&b, 8, b.size() - 15);
    expect_error(b, rgpu::Code::kInvalidArgument, "exceed");
    put<uint64_t>(&b, 8, ~uint64_t{0});  // would overflow a naive sum
    expect_error(b, rgpu::Code::kInvalidArgument, "exceed");
  }
  SECTION("entry header size below 64 or past the end") {
    auto b = good;
    put<uint32_t>(&b, 16 + 4, 32);
    expect_error(b, rgpu::Code::kInvalidArgument, "entry header size");
    put<uint32_t>(&b, 16 + 4, 0xfffffff0);
    expect_error(b, rgpu::Code::kInvalidArgument, "entry header size");
  }
  SECTION("entry payload past the end") {
    auto b = good;
    put<uint64_t>(&b, 16 + 8, 1u << 20);
    expect_error(b, rgpu::Code::kInvalidArgument, "payload size");
    put<uint64_t>(&b, 16 + 8, ~uint64_t{0} - 8);
    expect_error(b, rgpu::Code::kInvalidArgument, "payload size");
  }
  SECTION("entry cut short by the container's payload size") {
    auto b = good;
    put<uint64_t>(&b, 8, 64 + 16 + 40);  // ends inside the second entry's header
    expect_error({b.begin(), b.begin() + 16 + 64 + 16 + 40}, rgpu::Code::kInvalidArgument, "entry");
  }
  SECTION("both compressions flagged") {
    auto b = good;
    put<uint64_t>(&b, 16 + 40, 0xa011);
    expect_error(b, rgpu::Code::kInvalidArgument, "both");
  }
  SECTION("compressed without a compressed size, or with one past the stored bytes") {
    auto b = good;
    put<uint64_t>(&b, 16 + 40, 0x8011);
    expect_error(b, rgpu::Code::kInvalidArgument, "compressed size 0");
    put<uint32_t>(&b, 16 + 16, 17);
    expect_error(b, rgpu::Code::kInvalidArgument, "compressed size 17");
  }
}

TEST_CASE("content_hash is SHA-256") {
  CHECK(to_hex(content_hash({})) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  const std::string abc = "abc";
  CHECK(to_hex(content_hash({reinterpret_cast<const uint8_t*>(abc.data()), abc.size()})) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
