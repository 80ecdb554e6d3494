// kernel_params_from_ptx on PTX text: offsets with alignment, arrays, .ptr, comments, errors.
#include <catch2/catch.hpp>

#include "common/fatbin/fatbin.h"

using namespace rgpu::fatbin;
using Layout = std::vector<std::pair<uint32_t, uint32_t>>;  // (offset, size) per parameter

namespace {

Layout layout_of(const KernelParams& k) {
  Layout out;
  for (const auto& p : k.params) out.emplace_back(p.offset, p.size);
  return out;
}

}  // namespace

TEST_CASE("PTX parameters are laid out at their alignment") {
  const char* ptx = R"(
.version 9.0
.target sm_90
.address_size 64
.file 1 "/tmp/odd // path /* with comment marks.cu"
// .entry commented_out(.param .u8 x)
/* .entry also_commented(.param .u8 x) */
.visible .entry mixed(
	.param .u8 mixed_param_0,
	.param .f64 mixed_param_1,   // a double after a char: aligned to 8
	.param .align 4 .b8 mixed_param_2[12],
	.param .u16 mixed_param_3,
	.param .align 16 .b8 mixed_param_4[16],
	.param .u64 .ptr .global .align 16 mixed_param_5,
	.param .b128 mixed_param_6
)
.maxntid 128, 1, 1
{
	ret;
}
.entry empty_list()
{
	ret;
}
.weak .entry no_list
{
	ret;
}
)";
  auto kernels = kernel_params_from_ptx(ptx);
  REQUIRE(kernels.is_ok());
  REQUIRE(kernels->size() == 3);
  CHECK((*kernels)[0].name == "mixed");
  // .align after .ptr is the pointee's alignment: the pointer itself stays 8-aligned.
  CHECK(layout_of((*kernels)[0]) ==
        Layout{{0, 1}, {8, 8}, {16, 12}, {28, 2}, {32, 16}, {48, 8}, {64, 16}});
  CHECK((*kernels)[1].name == "empty_list");
  CHECK((*kernels)[1].params.empty());
  CHECK((*kernels)[2].name == "no_list");
  CHECK((*kernels)[2].params.empty());
}

TEST_CASE("a kernel declared and then defined is reported once") {
  auto kernels = kernel_params_from_ptx(
      ".extern .entry twice(.param .u32 a);\n.visible .entry twice(.param .u32 a)\n{ ret; }\n");
  REQUIRE(kernels.is_ok());
  REQUIRE(kernels->size() == 1);
  CHECK(layout_of((*kernels)[0]) == Layout{{0, 4}});
}

TEST_CASE("malformed PTX parameter lists give errors") {
  for (const char* bad : {
           ".entry k(.param .u32)",                      // no name
           ".entry k(.param a)",                         // no type
           ".entry k(.param .u32 a .param .u32 b)",      // no comma
           ".entry k(.param .u32 a,",                    // cut short
           ".entry k(.param .align 3 .b8 a[4])",         // alignment not a power of two
           ".entry k(.param .align 4 .b8 a[0])",         // empty array
           ".entry k(.param .align 4 .b8 a[99999999])",  // larger than any parameter space
           ".entry k(.param .texref t)",                 // unsupported parameter kind
           ".entry k(.reg .u32 a)",
           ".entry (",
       }) {
    INFO(bad);
    CHECK_FALSE(kernel_params_from_ptx(bad).is_ok());
  }
  auto none = kernel_params_from_ptx("// no kernels here\n.func f(.param .u32 a) { ret; }");
  REQUIRE(none.is_ok());
  CHECK(none->empty());
}
