// may_print on fatbins that nvcc built: a kernel that calls printf, compressed and not (with its
// PTX), against the fixtures whose kernels do not print.
#include <catch2/catch.hpp>

#include "common/fatbin/fatbin.h"
#include "fixtures.h"

using namespace rgpu::fatbin;
using namespace rgpu::fatbin::testing;

TEST_CASE("nvcc's fatbin of a printing kernel may print, those of the other fixtures do not") {
  CHECK(may_print(load_fixture("printing.fatbin")));
  CHECK(may_print(load_fixture("printing_plain.fatbin")));
  for (const char* quiet : {"default.fatbin", "uncompressed.fatbin", "zstd.fatbin", "lz4.fatbin", "multi.fatbin",
                            "tiny.fatbin"}) {
    INFO(quiet);
    CHECK_FALSE(may_print(load_fixture(quiet)));
  }
}
