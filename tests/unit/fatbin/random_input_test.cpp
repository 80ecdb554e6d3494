// Random bytes fed to every reader: errors, never a crash or an over-read (run under ASan too).
#include <catch2/catch.hpp>
#include <random>
#include <string_view>

#include "common/fatbin/fatbin.h"

using namespace rgpu::fatbin;

namespace {

std::vector<uint8_t> random_bytes(std::mt19937& rng, size_t n) {
  std::vector<uint8_t> out(n);
  for (auto& b : out) b = static_cast<uint8_t>(rng());
  return out;
}

}  // namespace

TEST_CASE("random bytes are not a container, even behind a valid magic") {
  std::mt19937 rng(1234);
  int parsed = 0;
  for (int i = 0; i < 2000; ++i) {
    auto bytes = random_bytes(rng, rng() % 512);
    if (i % 2 && bytes.size() >= 8) {  // valid magic and version, random sizes and entries
      const uint8_t head[] = {0x50, 0xed, 0x55, 0xba, 0x01, 0x00};
      std::copy(std::begin(head), std::end(head), bytes.begin());
    }
    auto c = parse_container(bytes);
    if (!c.is_ok()) continue;
    ++parsed;
    for (const Entry& e : c->entries) (void)decompress(e);
    (void)kernel_params(*c);
    (void)select_for_arch(*c, 90);
  }
  CHECK(parsed < 20);  // a random header almost never describes a consistent container
}

TEST_CASE("random bytes behind an ELF64 header give ELF errors") {
  std::mt19937 rng(99);
  for (int i = 0; i < 2000; ++i) {
    auto bytes = random_bytes(rng, 64 + rng() % 2048);
    const uint8_t ident[] = {0x7f, 'E', 'L', 'F', 2, 1};
    std::copy(std::begin(ident), std::end(ident), bytes.begin());
    if (i % 2) {  // a section table inside the image, so the readers go past the header
      bytes[0x28] = 64;
      for (int b = 0x29; b < 0x30; ++b) bytes[b] = 0;
      bytes[0x3a] = 64;
      bytes[0x3b] = 0;
      bytes[0x3c] = static_cast<uint8_t>((bytes.size() - 64) / 64);
      bytes[0x3d] = 0;
    }
    (void)kernel_params_from_elf(bytes);
  }
  CHECK_FALSE(kernel_params_from_elf(std::vector<uint8_t>{0x7f, 'E', 'L'}).is_ok());
}

TEST_CASE("random text is handled by the PTX reader") {
  std::mt19937 rng(7);
  const std::string_view alphabet =
      ".entry param align u32 b8 ptr ( ) [ ] , 12 0x10 // /* */ \" \n";
  for (int i = 0; i < 2000; ++i) {
    std::string text = ".entry k(";
    const size_t n = rng() % 300;
    for (size_t j = 0; j < n; ++j) text += alphabet[rng() % alphabet.size()];
    (void)kernel_params_from_ptx(text);
  }
  CHECK_FALSE(kernel_params_from_ptx(".entry k(.param").is_ok());
}
