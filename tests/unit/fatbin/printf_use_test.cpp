// may_print on hand-built images: vprintf named in an ELF, in PTX, in a compressed entry; images
// that cannot be read count as printing.
#include <zstd.h>

#include <catch2/catch.hpp>
#include <string>

#include "common/fatbin/fatbin.h"
#include "container_builder.h"

using namespace rgpu::fatbin;
using namespace rgpu::fatbin::testing;

namespace {

const char* kPrintingPtx = ".version 9.0\n.target sm_90\n.extern .func (.param .b32 r) vprintf (.param .b64 f, .param .b64 a);\n";
const char* kQuietPtx = ".version 9.0\n.target sm_90\n.visible .entry k(.param .u64 p) { ret; }\n";

EntrySpec ptx_of(const char* text) {
  EntrySpec e;
  e.kind = 1;
  e.payload = bytes_of(text);
  return e;
}

EntrySpec zstd_ptx_of(const char* text) {
  const std::vector<uint8_t> in = bytes_of(text);
  std::vector<uint8_t> out(ZSTD_compressBound(in.size()));
  const size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3);
  REQUIRE_FALSE(ZSTD_isError(n));
  out.resize(n);
  EntrySpec e = ptx_of("");
  e.flags |= 0x8000;
  e.payload = out;
  e.compressed_size = static_cast<uint32_t>(n);
  e.uncompressed_size = in.size();
  return e;
}

}  // namespace

TEST_CASE("an image that names vprintf may print, one that does not, does not") {
  CHECK(may_print(bytes_of(kPrintingPtx)));
  CHECK_FALSE(may_print(bytes_of(kQuietPtx)));
  // An ELF's string table: names separated by NULs.
  const std::string elf("\x7f" "ELF....strings\0says\0vprintf\0", 30);
  CHECK(may_print(std::vector<uint8_t>(elf.begin(), elf.end())));
  CHECK_FALSE(may_print(std::vector<uint8_t>(elf.begin(), elf.begin() + 20)));
}

TEST_CASE("a container may print when any entry names vprintf, compressed or not") {
  CHECK_FALSE(may_print(build_container({ptx_of(kQuietPtx)})));
  CHECK(may_print(build_container({ptx_of(kQuietPtx), ptx_of(kPrintingPtx)})));
  CHECK_FALSE(may_print(build_container({zstd_ptx_of(kQuietPtx)})));
  CHECK(may_print(build_container({zstd_ptx_of(kPrintingPtx)})));
}

TEST_CASE("a container that cannot be read is assumed to print") {
  EntrySpec corrupt = zstd_ptx_of(kQuietPtx);
  corrupt.uncompressed_size += 1;  // its content no longer matches the size the header claims
  CHECK(may_print(build_container({corrupt})));
  std::vector<uint8_t> truncated = build_container({ptx_of(kQuietPtx)});
  truncated.resize(truncated.size() - 20);
  CHECK(may_print(truncated));
}
