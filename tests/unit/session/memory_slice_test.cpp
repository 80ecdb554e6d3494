// The memory slice against the emulated backend's device memory: admitted allocations count in
// its bound, the real figure is read only when the bound would cross the slice, pieces round
// against the tenant, a live change applies at once, and every reading is reported.
#include <catch2/catch.hpp>

#include <vector>

#include "gen/cudart/cudart_api.h"
#include "server/backends/backend.h"
#include "server/session/memory_slice.h"

using rgpu::server::MemorySlice;

namespace {
constexpr uint64_t kMiB = 1u << 20;
}

TEST_CASE("memory slice: allocations are admitted up to the slice, counting what the device holds") {
  auto backend = rgpu::server::make_emulated_backend();
  REQUIRE(backend->init().is_ok());
  MemorySlice slice(*backend, 8 * kMiB);
  std::vector<uint64_t> reports;
  slice.on_change([&](uint64_t used) { reports.push_back(used); });
  REQUIRE(slice.enforced());

  REQUIRE(slice.admit(7 * kMiB));  // counted as 8 MiB: rounded up to whole 2 MiB pieces
  void* p = nullptr;
  REQUIRE(backend->cudart().cudaMalloc(&p, 7 * kMiB) == cudaSuccess);
  REQUIRE_FALSE(reports.empty());
  CHECK(reports.back() == 8 * kMiB);  // the bound, heard at once
  // 1 MiB more: the bound says no, the device's figure (7 MiB) plus a 2 MiB piece says no too.
  CHECK_FALSE(slice.admit(1 * kMiB));
  CHECK(slice.used() == 7 * kMiB);
  CHECK(reports.back() == 7 * kMiB);  // the reading, reported

  // An allocation larger than the slice never fits; a grown slice takes the 1 MiB at once.
  CHECK_FALSE(slice.admit(9 * kMiB));
  slice.set_limit(16 * kMiB);
  CHECK(slice.admit(1 * kMiB));
  REQUIRE(backend->cudart().cudaFree(p) == cudaSuccess);
  slice.refresh();
  CHECK(slice.used() == 0);
}

TEST_CASE("memory slice: a refusal tells how far past the slice the allocation would have gone") {
  auto backend = rgpu::server::make_emulated_backend();
  REQUIRE(backend->init().is_ok());
  MemorySlice slice(*backend, 8 * kMiB);
  std::vector<uint64_t> over;
  slice.on_over_budget([&](uint64_t bytes) { over.push_back(bytes); });
  void* p = nullptr;
  REQUIRE(slice.admit(4 * kMiB));
  REQUIRE(backend->cudart().cudaMalloc(&p, 4 * kMiB) == cudaSuccess);
  CHECK(over.empty());                // admitted: nothing to tell
  CHECK_FALSE(slice.admit(5 * kMiB));  // 4 held + 6 (three pieces) = 2 MiB past
  CHECK_FALSE(slice.admit(9 * kMiB));  // larger than the slice: 1 MiB past by itself, plus the 4 held
  CHECK(over == std::vector<uint64_t>{2 * kMiB, 5 * kMiB});
  REQUIRE(backend->cudart().cudaFree(p) == cudaSuccess);
}

TEST_CASE("memory slice: a whole-GPU session checks nothing") {
  auto backend = rgpu::server::make_emulated_backend();
  REQUIRE(backend->init().is_ok());
  MemorySlice none(*backend, 0);
  CHECK_FALSE(none.enforced());
  CHECK(none.admit(uint64_t{1} << 40));
}
