// The client's reading of a module image given by pointer (client/runtime/module_image.*):
// the extent and kernel names of PTX, a cubin, a fatbin container and a registration wrapper built
// by nvcc from tests/fixtures/fatbin/kernels.cu; junk and lying headers are refused.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "client/runtime/module_image.h"

using rgpu::client::GivenImage;
using rgpu::client::read_given_image;

namespace {

std::vector<uint8_t> fixture(const std::string& name) {
  std::ifstream in(std::string(RGPU_CLIENT_FIXTURES) + "/" + name, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::set<std::string> names(const GivenImage& g) { return {g.kernels.begin(), g.kernels.end()}; }

}  // namespace

TEST_CASE("a module image's extent and kernels, read from the image itself") {
  std::vector<uint8_t> cubin = fixture("kernels.cubin");
  GivenImage from_cubin;
  REQUIRE(read_given_image(cubin.data(), &from_cubin) == cudaSuccess);
  CHECK(from_cubin.bytes == cubin);  // the ELF's headers say where it ends: the whole file
  REQUIRE_FALSE(from_cubin.kernels.empty());

  std::vector<uint8_t> ptx = fixture("kernels.ptx");
  ptx.push_back(0);
  GivenImage from_ptx;
  REQUIRE(read_given_image(ptx.data(), &from_ptx) == cudaSuccess);
  CHECK(from_ptx.bytes == ptx);  // the text and its NUL
  CHECK(names(from_ptx) == names(from_cubin));

  std::vector<uint8_t> fatbin = fixture("kernels.fatbin");
  GivenImage from_fatbin;
  REQUIRE(read_given_image(fatbin.data(), &from_fatbin) == cudaSuccess);
  CHECK(from_fatbin.bytes == fatbin);
  CHECK(names(from_fatbin) == names(from_cubin));

  // What nvcc registers: a wrapper pointing at the container.
  struct {
    uint32_t magic = 0x466243B1;
    uint32_t version = 1;
    const void* data;
    const void* unused = nullptr;
  } wrapper{.data = fatbin.data()};
  GivenImage from_wrapper;
  REQUIRE(read_given_image(&wrapper, &from_wrapper) == cudaSuccess);
  CHECK(from_wrapper.bytes == fatbin);
}

TEST_CASE("junk and lying module headers are refused, never read past") {
  GivenImage g;
  CHECK(read_given_image("neither PTX nor a binary", &g) == cudaErrorInvalidKernelImage);
  CHECK(read_given_image(nullptr, &g) == cudaErrorInvalidValue);

  std::vector<uint8_t> cubin = fixture("kernels.cubin");
  std::vector<uint8_t> lying = cubin;
  uint64_t far = uint64_t{1} << 40;
  std::memcpy(lying.data() + 0x28, &far, sizeof far);  // the section header table, far away
  CHECK(read_given_image(lying.data(), &g) == cudaErrorInvalidKernelImage);

  std::vector<uint8_t> fatbin = fixture("kernels.fatbin");
  std::memcpy(fatbin.data() + 8, &far, sizeof far);  // a payload larger than memory
  CHECK(read_given_image(fatbin.data(), &g) == cudaErrorInvalidKernelImage);
}
