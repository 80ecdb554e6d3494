// Corrupt images never crash the emulated backend: every truncation and many random byte flips
// of real nvcc output (fatbin, cubin, PTX) either load or fail with an error (run under ASan).
#include <catch2/catch.hpp>

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "server/backends/emulated/emulated_module.h"

#ifdef RGPU_EMULATED_FIXTURES

namespace {

std::vector<uint8_t> fixture(const char* name) {
  std::ifstream in(std::string(RGPU_EMULATED_FIXTURES) + "/" + name, std::ios::binary);
  REQUIRE(in.good());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Reads the image; returns whether it loaded (the point is that it returns at all).
bool reads(const std::vector<uint8_t>& image) {
  rgpu::server::emulated::ModuleImage out;
  return rgpu::server::emulated::read_module_image(image, 90, &out) == cudaSuccess;
}

}  // namespace

TEST_CASE("truncated and corrupted module images are refused, never read past their end", "[emulated]") {
  for (const char* name : {"kernels.fatbin", "kernels.cubin", "kernels.ptx"}) {
    INFO(name);
    const std::vector<uint8_t> image = fixture(name);
    REQUIRE(reads(image));
    // A fatbin cut short is refused, and so is a cubin cut before the end of its section header
    // table (program headers may follow; nothing here reads them). PTX cut after a complete entry
    // is still PTX.
    size_t must_refuse_below = 0;
    if (std::string(name) == "kernels.fatbin") must_refuse_below = image.size();
    if (std::string(name) == "kernels.cubin") {
      Elf64_Ehdr eh;
      std::memcpy(&eh, image.data(), sizeof eh);
      must_refuse_below = eh.e_shoff + uint64_t{eh.e_shnum} * eh.e_shentsize;
    }
    size_t step = std::max<size_t>(1, image.size() / 400);
    for (size_t n = 0; n < image.size(); n += step) {
      std::vector<uint8_t> cut(image.begin(), image.begin() + static_cast<long>(n));
      cut.shrink_to_fit();  // so that ASan sees a read past the cut
      bool loaded = reads(cut);
      if (n < must_refuse_below) CHECK_FALSE(loaded);
    }
    // Random bit flips: any mix of loads and refusals is fine; a crash or an ASan report is not.
    std::mt19937 random(1234);
    for (int round = 0; round < 300; ++round) {
      std::vector<uint8_t> flipped = image;
      for (int k = 0; k < 4; ++k) flipped[random() % flipped.size()] ^= static_cast<uint8_t>(1u << (random() % 8));
      reads(flipped);
    }
  }
}

#endif  // RGPU_EMULATED_FIXTURES
