// rgpud's module cache: verified entries by SHA-256, damaged entries read as misses.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "server/session/module_cache.h"

using rgpu::fatbin::content_hash;
using rgpu::server::ModuleCache;

TEST_CASE("the module cache returns what was stored, verified by its key") {
  auto dir = std::filesystem::temp_directory_path() / ("rgpu-module-cache-test-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  const ModuleCache cache(dir.string());
  std::vector<uint8_t> image(1000, 0xAB);
  auto key = content_hash(image);
  CHECK_FALSE(cache.find(key));
  cache.store(key, image);
  auto found = cache.find(key);
  REQUIRE(found);
  CHECK(*found == image);

  SECTION("a damaged entry is a miss, never a wrong module") {
    std::ofstream(dir / (rgpu::fatbin::to_hex(key) + ".bin"), std::ios::binary | std::ios::trunc) << "tampered";
    CHECK_FALSE(cache.find(key));
  }
  std::filesystem::remove_all(dir);
}
