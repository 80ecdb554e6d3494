// The module image checks on what nvcc 13 really emits for test_kernels.cu: every image is
// accepted as the right kind, and every truncation of a fatbin or cubin is refused.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "server/backends/cuda/module_image.h"

using rgpu::server::cuda::ModuleImageKind;
using rgpu::server::cuda::prepare_module_image;
using rgpu::server::cuda::PreparedImage;

namespace {

std::vector<uint8_t> image(const std::string& name) {
  std::ifstream in(std::string(RGPU_CUDA_BACKEND_IMAGES) + "/" + name, std::ios::binary);
  std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  REQUIRE_FALSE(bytes.empty());
  return bytes;
}

}  // namespace

TEST_CASE("nvcc's images are accepted as what they are", "[cuda_backend]") {
  struct Case {
    const char* name;
    ModuleImageKind kind;
  };
  const Case cases[] = {{"sm90.cubin", ModuleImageKind::kElf},
                        {"sm90.ptx", ModuleImageKind::kPtx},
                        {"sm90.fatbin", ModuleImageKind::kFatbin},
                        {"zstd.fatbin", ModuleImageKind::kFatbin},
                        {"multi.fatbin", ModuleImageKind::kFatbin}};
  for (const Case& c : cases) {
    INFO(c.name);
    std::vector<uint8_t> bytes = image(c.name);
    std::vector<uint8_t> storage;
    PreparedImage prepared;
    REQUIRE(prepare_module_image(bytes, storage, &prepared) == cudaSuccess);
    CHECK(prepared.kind == c.kind);
  }
}

TEST_CASE("every truncation of a fatbin or cubin is refused", "[cuda_backend]") {
  for (const char* name : {"sm90.cubin", "sm90.fatbin", "zstd.fatbin", "multi.fatbin"}) {
    std::vector<uint8_t> bytes = image(name);
    std::vector<uint8_t> storage;
    PreparedImage prepared;
    size_t accepted = 0;
    for (size_t length = 1; length < bytes.size(); ++length)
      if (prepare_module_image(std::span<const uint8_t>(bytes).first(length), storage, &prepared) != cudaErrorInvalidKernelImage &&
          prepared.kind != ModuleImageKind::kPtx)
        ++accepted;
    INFO(name << ": " << accepted << " truncations accepted as a binary image");
    CHECK(accepted == 0);
  }
}
