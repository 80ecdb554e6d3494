// Movable memory and its swap against the emulated backend, whose released ranges lose their
// contents and refuse access as an unmapped GPU range faults: small allocations are left to
// cudaMalloc, a swapped-out session holds no device memory and its addresses refuse copies, and
// each swap-in brings back exactly what was there, twice over, through the host copy made ahead;
// allocations freed while their copy is being made lose nothing; and the memory extension, host memory the device uses past the slice.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>
#include <vector>

#include "gen/cudart/cudart_api.h"
#include "server/backends/backend.h"
#include "server/session/host_extension.h"
#include "server/session/swap_space.h"

using rgpu::server::SwapSpace;

namespace {
constexpr uint64_t kMiB = 1u << 20;

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 131 + seed);
  return v;
}
}  // namespace

TEST_CASE("swap space: movable memory swaps out and back with its data and address unchanged") {
  auto backend = rgpu::server::make_emulated_backend();
  REQUIRE(backend->init().is_ok());
  const auto& rt = backend->cudart();
  SwapSpace swap(*backend);
  void* small = nullptr;
  int32_t status = -1;
  CHECK_FALSE(swap.allocate(SwapSpace::kMovableFrom - 1, &small, &status));  // left to cudaMalloc

  // Not a whole number of granules; small enough for the 64 MiB device another test of this binary
  // may have configured (RGPU_EMULATED_MEMORY_MB) when the cases run in one process.
  const size_t bytes = 20 * kMiB + 12345;
  void* p = nullptr;
  REQUIRE(swap.allocate(bytes, &p, &status));
  REQUIRE(status == cudaSuccess);
  CHECK(swap.movable_bytes() == 22 * kMiB);  // whole 2 MiB granules
  const uint64_t resident = backend->memory_in_use();
  // Its host copy is made ahead, by the swap space's own thread, not by the first swap-out.
  for (int i = 0; i < 400 && swap.pinned_bytes() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(swap.pinned_bytes() == 22 * kMiB);

  for (uint8_t round = 1; round <= 2; ++round) {
    const std::vector<uint8_t> want = pattern(bytes, round);
    REQUIRE(rt.cudaMemcpy(p, want.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    auto moved = swap.swap_out();
    REQUIRE(moved.is_ok());
    CHECK(*moved == 22 * kMiB);
    CHECK(swap.swapped());
    CHECK(swap.host_bytes() == 22 * kMiB);
    CHECK(swap.movable_bytes() == 0);
    CHECK(backend->memory_in_use() == resident - 22 * kMiB);
    std::vector<uint8_t> got(bytes);
    CHECK(rt.cudaMemcpy(got.data(), p, 4096, cudaMemcpyDeviceToHost) != cudaSuccess);  // not backed

    REQUIRE(swap.swap_in().is_ok());
    CHECK_FALSE(swap.swapped());
    CHECK(swap.host_bytes() == 0);
    CHECK(backend->memory_in_use() == resident);
    REQUIRE(rt.cudaMemcpy(got.data(), p, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(got == want);
  }
  CHECK(swap.pinned_bytes() == 22 * kMiB);  // one copy, kept across both rounds
  REQUIRE(swap.free(p, &status));
  CHECK(status == cudaSuccess);
  CHECK(swap.movable_bytes() == 0);
  CHECK(swap.pinned_bytes() == 0);
  CHECK_FALSE(swap.free(p, &status));  // gone: not one of its allocations any more
}

TEST_CASE("memory extension: allocations up to its size come from device-mapped host memory") {
  auto backend = rgpu::server::make_emulated_backend();
  REQUIRE(backend->init().is_ok());
  const auto& rt = backend->cudart();
  rgpu::server::HostExtension ext(*backend, 10 * kMiB);
  void* a = nullptr;
  void* b = nullptr;
  int32_t status = -1;
  REQUIRE(ext.allocate(6 * kMiB, &a, &status));
  REQUIRE(status == cudaSuccess);
  CHECK(ext.used() == 6 * kMiB);
  CHECK(backend->memory_in_use() == 0);  // host memory: not the device's
  CHECK_FALSE(ext.allocate(5 * kMiB, &b, &status));  // 11 MiB would pass the extension
  // It is used as device memory: copies to and from it work.
  const std::vector<uint8_t> want = pattern(6 * kMiB, 9);
  REQUIRE(rt.cudaMemcpy(a, want.data(), want.size(), cudaMemcpyHostToDevice) == cudaSuccess);
  std::vector<uint8_t> got(want.size());
  REQUIRE(rt.cudaMemcpy(got.data(), a, got.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(got == want);
  REQUIRE(ext.free(a, &status));
  CHECK(status == cudaSuccess);
  CHECK(ext.used() == 0);
  CHECK_FALSE(ext.free(a, &status));
  rgpu::server::HostExtension none(*backend, 0);
  CHECK_FALSE(none.allocate(1, &b, &status));  // no extension: nothing is taken
}

TEST_CASE("swap space: allocations freed while their host copies are made, and a swap-out that comes first") {
  auto backend = rgpu::server::make_emulated_backend();
  REQUIRE(backend->init().is_ok());
  const auto& rt = backend->cudart();
  SwapSpace swap(*backend);
  int32_t status = -1;
  // Freed at once, again and again: the preparer finds each range gone (or a new one at its address).
  for (int i = 0; i < 20; ++i) {
    void* p = nullptr;
    REQUIRE(swap.allocate(4 * kMiB, &p, &status));
    REQUIRE(status == cudaSuccess);
    REQUIRE(swap.free(p, &status));
    CHECK(status == cudaSuccess);
  }
  // A swap-out right after the allocation waits for the copy being made, or makes it.
  void* p = nullptr;
  REQUIRE(swap.allocate(8 * kMiB, &p, &status));
  const std::vector<uint8_t> want = pattern(8 * kMiB, 7);
  REQUIRE(rt.cudaMemcpy(p, want.data(), want.size(), cudaMemcpyHostToDevice) == cudaSuccess);
  auto moved = swap.swap_out();
  REQUIRE(moved.is_ok());
  CHECK(*moved == 8 * kMiB);
  REQUIRE(swap.swap_in().is_ok());
  std::vector<uint8_t> got(want.size());
  REQUIRE(rt.cudaMemcpy(got.data(), p, got.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(got == want);
  CHECK(swap.pinned_bytes() == 8 * kMiB);
  REQUIRE(swap.free(p, &status));
  for (int i = 0; i < 400 && swap.pinned_bytes() != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(swap.pinned_bytes() == 0);
}
