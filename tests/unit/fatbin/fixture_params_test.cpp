// Kernel parameter layouts read from the nvcc-built images, ELF and PTX alike, against the
// layouts that the kernels' C++ signatures give.
#include <catch2/catch.hpp>
#include <string>

#include "fixtures.h"

using namespace rgpu::fatbin;
using namespace rgpu::fatbin::testing;

TEST_CASE("kernel_params gives each fixture kernel's exact layout in every variant") {
  for (const char* name :
       {"default.fatbin", "uncompressed.fatbin", "zstd.fatbin", "lz4.fatbin", "multi.fatbin"}) {
    INFO(name);
    auto c = parse_container(load_fixture(name));
    REQUIRE(c.is_ok());
    auto kernels = kernel_params(*c);
    REQUIRE(kernels.is_ok());
    CHECK(layouts_by_name(*kernels) == expected_kernels_cu_layouts());
  }
}

TEST_CASE("every ELF and every PTX entry gives the same layouts on its own") {
  auto c = parse_container(load_fixture("multi.fatbin"));
  REQUIRE(c.is_ok());
  for (const Entry& e : c->entries) {
    INFO((e.kind == EntryKind::kElf ? "ELF sm_" : "PTX compute_") << e.arch);
    auto image = decompress(e);
    REQUIRE(image.is_ok());
    auto kernels = e.kind == EntryKind::kElf
                       ? kernel_params_from_elf(*image)
                       : kernel_params_from_ptx(std::string(image->begin(), image->end()).c_str());
    REQUIRE(kernels.is_ok());
    CHECK(layouts_by_name(*kernels) == expected_kernels_cu_layouts());
  }
}

TEST_CASE("a container with only PTX takes its layouts from the PTX") {
  auto c = parse_container(load_fixture("multi.fatbin"));
  REQUIRE(c.is_ok());
  const auto selected = select_for_arch(*c, 120);
  auto ptx_only = parse_container(selected);
  REQUIRE(ptx_only.is_ok());
  REQUIRE(ptx_only->entries.size() == 1);
  REQUIRE(ptx_only->entries[0].kind == EntryKind::kPtx);
  auto kernels = kernel_params(*ptx_only);
  REQUIRE(kernels.is_ok());
  CHECK(layouts_by_name(*kernels) == expected_kernels_cu_layouts());
}
