// The mirrors of a client's mapped host memory against the emulated backend: placed at the wanted
// address when it is free, elsewhere when it is taken, usable as device memory, their host ranges
// checked, released once.
#include <catch2/catch.hpp>

#include <sys/mman.h>

#include <cstring>

#include "gen/cudart/cudart_api.h"
#include "server/backends/backend.h"
#include "server/session/mapped_mirrors.h"

using rgpu::server::MappedMirrors;

namespace {

// An address nothing of this process is mapped at (mapped, then given back).
uint64_t free_address(size_t size) {
  void* p = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  munmap(p, size);
  return reinterpret_cast<uint64_t>(p);
}

}  // namespace

TEST_CASE("mapped mirrors: at the wanted address when free, elsewhere when taken, host ranges checked") {
  auto backend = rgpu::server::make_emulated_backend();
  REQUIRE(backend->init().is_ok());
  MappedMirrors mirrors(*backend);

  const uint64_t want = free_address(3 * 4096);
  uint64_t at = 0;
  REQUIRE(mirrors.expose(want, 3 * 4096, &at) == cudaSuccess);
  CHECK(at == want);
  uint8_t* host = mirrors.host_range(at, 4096, 4096);
  REQUIRE(host == reinterpret_cast<uint8_t*>(want + 4096));
  std::memset(host, 0x42, 4096);
  CHECK(mirrors.host_range(at, 2 * 4096, 4096) != nullptr);
  CHECK(mirrors.host_range(at, 2 * 4096, 4097) == nullptr);  // leaves the mirror
  CHECK(mirrors.host_range(at, ~uint64_t{0}, 2) == nullptr);  // an offset that wraps
  CHECK(mirrors.host_range(at + 4096, 0, 1) == nullptr);      // not a mirror's start

  // Device work sees it: a copy from the mirror into device memory.
  void* dev = nullptr;
  REQUIRE(backend->cudart().cudaMalloc(&dev, 4096) == cudaSuccess);
  REQUIRE(backend->cudart().cudaMemcpy(dev, host, 4096, cudaMemcpyDeviceToDevice) == cudaSuccess);
  uint8_t back[4096];
  REQUIRE(backend->cudart().cudaMemcpy(back, dev, 4096, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(back[0] == 0x42);
  CHECK(back[4095] == 0x42);

  // The same address again is taken now: the second mirror goes elsewhere.
  uint64_t other = 0;
  REQUIRE(mirrors.expose(want, 4096, &other) == cudaSuccess);
  CHECK(other != want);
  CHECK(mirrors.expose(want, 0, &other) == cudaErrorInvalidValue);

  CHECK(mirrors.release(at) == cudaSuccess);
  CHECK(mirrors.release(at) == cudaErrorInvalidValue);
  CHECK(mirrors.host_range(at, 0, 1) == nullptr);
  REQUIRE(backend->cudart().cudaFree(dev) == cudaSuccess);
}
