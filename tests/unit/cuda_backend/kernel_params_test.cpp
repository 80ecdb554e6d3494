// The kernelParams pointer array built from a layout and the packed argument buffer.
#include <catch2/catch.hpp>

#include <vector>

#include "server/backends/cuda/kernel_params.h"

using rgpu::server::KernelParam;
using rgpu::server::cuda::build_kernel_params;

TEST_CASE("each pointer addresses its parameter's offset in the buffer", "[cuda_backend]") {
  std::vector<uint8_t> args(40);
  std::vector<KernelParam> layout = {{0, 8}, {8, 4}, {16, 24}};
  std::vector<void*> pointers;
  REQUIRE(build_kernel_params(layout, args, pointers) == cudaSuccess);
  REQUIRE(pointers.size() == 3);
  CHECK(pointers[0] == args.data());
  CHECK(pointers[1] == args.data() + 8);
  CHECK(pointers[2] == args.data() + 16);
}

TEST_CASE("a kernel without parameters needs no buffer", "[cuda_backend]") {
  std::vector<void*> pointers = {nullptr};
  REQUIRE(build_kernel_params({}, {}, pointers) == cudaSuccess);
  CHECK(pointers.empty());
}

TEST_CASE("a parameter reaching past the buffer is rejected", "[cuda_backend]") {
  std::vector<uint8_t> args(39);
  std::vector<KernelParam> layout = {{0, 8}, {8, 4}, {16, 24}};
  std::vector<void*> pointers;
  CHECK(build_kernel_params(layout, args, pointers) == cudaErrorInvalidValue);
  CHECK(pointers.empty());
}

TEST_CASE("an offset near 2^32 does not wrap around the bounds check", "[cuda_backend]") {
  std::vector<uint8_t> args(16);
  std::vector<KernelParam> layout = {{0xFFFFFFF8u, 16}};
  std::vector<void*> pointers;
  CHECK(build_kernel_params(layout, args, pointers) == cudaErrorInvalidValue);
  layout = {{8, 0xFFFFFFFFu}};
  CHECK(build_kernel_params(layout, args, pointers) == cudaErrorInvalidValue);
}

TEST_CASE("a buffer larger than the layout is accepted", "[cuda_backend]") {
  std::vector<uint8_t> args(64);
  std::vector<KernelParam> layout = {{0, 4}};
  std::vector<void*> pointers;
  REQUIRE(build_kernel_params(layout, args, pointers) == cudaSuccess);
  CHECK(pointers.size() == 1);
}
