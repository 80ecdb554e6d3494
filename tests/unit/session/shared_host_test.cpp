// The registry of host memory a same-host client shares with its session (server/session/
// shared_host.h): what it accepts as shared memory, where it maps it, the bounds of every lookup,
// and its releases.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <memory>

#include <cuda_runtime_api.h>

#include "server/backends/backend.h"
#include "server/backends/emulated/runtime.h"
#include "server/session/shared_host.h"

namespace emu = rgpu::server::emulated;
using rgpu::server::SharedHost;

namespace {

// A memfd of `size` bytes, sealed against shrinking when `sealed` (what the client sends).
int memfd(size_t size, bool sealed) {
  const int fd = ::memfd_create("shared_host_test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, static_cast<off_t>(size)) == 0);
  if (sealed) REQUIRE(::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == 0);
  return fd;
}

bool closed(int fd) { return ::fcntl(fd, F_GETFD) < 0 && errno == EBADF; }

// The emulated backend, started: its device memory is where shared memory is recorded for kernels.
std::unique_ptr<rgpu::server::Backend> started_backend() {
  auto backend = rgpu::server::make_emulated_backend();
  REQUIRE(backend->init().is_ok());
  return backend;
}

}  // namespace

TEST_CASE("shared host memory: the worker's mapping is the client's pages") {
  auto backend = started_backend();
  SharedHost shared(*backend);
  uint64_t address = 0;
  const size_t size = 3 * 4096;
  const int fd = memfd(size, true);
  const int keep = ::dup(fd);  // the client's own view
  REQUIRE(shared.add(7, fd, size, 0, &address) == cudaSuccess);
  CHECK(closed(fd));  // taken
  auto* client = static_cast<uint8_t*>(::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, keep, 0));
  REQUIRE(client != MAP_FAILED);
  client[5000] = 42;
  auto* worker = static_cast<uint8_t*>(shared.find(7, 5000, 1, 0));
  REQUIRE(worker != nullptr);
  CHECK(*worker == 42);
  *worker = 43;
  CHECK(client[5000] == 43);
  CHECK(shared.devices(7) == 1);
  CHECK(shared.find(7, 0, size, 2) != nullptr);
  CHECK(shared.devices(7) == 0b101);
  CHECK(shared.count() == 1);
  REQUIRE(shared.remove(7) == cudaSuccess);
  CHECK(shared.count() == 0);
  CHECK(shared.find(7, 0, 1, 0) == nullptr);
  CHECK(shared.remove(7) == cudaErrorInvalidValue);
  ::munmap(client, size);
  ::close(keep);
}

TEST_CASE("shared host memory: mapped at the client's address when it is free here, and the GPU uses it there") {
  auto backend = started_backend();
  SharedHost shared(*backend);
  const size_t size = 2 * 4096;
  const int fd = memfd(size, true);
  auto* client = static_cast<uint8_t*>(::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  REQUIRE(client != MAP_FAILED);
  // An address free in this process: the client's, as a worker (another process) would see it.
  void* hole = ::mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(hole != MAP_FAILED);
  REQUIRE(::munmap(hole, size) == 0);
  const auto want = reinterpret_cast<uint64_t>(hole);
  uint64_t address = 0;
  REQUIRE(shared.add(1, fd, size, want, &address) == cudaSuccess);
  CHECK(address == want);
  CHECK(shared.find(1, 0, size, 0) == hole);
  // The GPU's address reaches the client's pages both ways, as a kernel would (device copies here).
  void* scratch = nullptr;
  REQUIRE(emu::cudaMalloc(&scratch, 16) == cudaSuccess);
  client[10] = 42;
  uint8_t seen = 0;
  auto* gpu = reinterpret_cast<uint8_t*>(address);
  CHECK(emu::cudaMemcpy(scratch, gpu + 10, 1, cudaMemcpyDeviceToDevice) == cudaSuccess);
  CHECK(emu::cudaMemcpy(&seen, scratch, 1, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(seen == 42);
  CHECK(emu::cudaMemcpy(gpu + 20, scratch, 1, cudaMemcpyDeviceToDevice) == cudaSuccess);
  CHECK(client[20] == 42);
  CHECK(emu::cudaFree(scratch) == cudaSuccess);
  ::munmap(client, size);
  // Taken here (by allocation 1): allocation 2 goes elsewhere, and says where.
  uint64_t elsewhere = 0;
  REQUIRE(shared.add(2, memfd(size, true), size, want, &elsewhere) == cudaSuccess);
  CHECK(elsewhere != want);
  CHECK(reinterpret_cast<uint64_t>(shared.find(2, 0, 1, 0)) == elsewhere);
  CHECK(shared.remove(1) == cudaSuccess);
  CHECK(shared.remove(2) == cudaSuccess);
  // Unmapped: the address is free again.
  void* again = ::mmap(hole, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  CHECK(again == hole);
  if (again != MAP_FAILED) ::munmap(again, size);
}

TEST_CASE("shared host memory: a lookup outside an allocation finds nothing") {
  auto backend = started_backend();
  SharedHost shared(*backend);
  uint64_t address = 0;
  REQUIRE(shared.add(1, memfd(8192, true), 8192, 0, &address) == cudaSuccess);
  CHECK(shared.find(1, 0, 8192, 0) != nullptr);
  CHECK(shared.find(1, 8191, 1, 0) != nullptr);
  CHECK(shared.find(1, 8192, 0, 0) != nullptr);  // an empty range at the end
  CHECK(shared.find(1, 8191, 2, 0) == nullptr);
  CHECK(shared.find(1, 8193, 0, 0) == nullptr);
  CHECK(shared.find(1, 1, UINT64_MAX, 0) == nullptr);  // no wrap-around
  CHECK(shared.find(1, UINT64_MAX, 1, 0) == nullptr);
  CHECK(shared.find(2, 0, 1, 0) == nullptr);  // no such allocation
}

TEST_CASE("shared host memory: what is refused, with the descriptor closed") {
  auto backend = started_backend();
  SharedHost shared(*backend);
  uint64_t address = 0;
  SECTION("a file not sealed against shrinking (the client could take the pages away)") {
    const int fd = memfd(4096, false);
    CHECK(shared.add(1, fd, 4096, 0, &address) == cudaErrorInvalidValue);
    CHECK(closed(fd));
  }
  SECTION("a file smaller than the size claimed") {
    const int fd = memfd(4096, true);
    CHECK(shared.add(1, fd, 8192, 0, &address) == cudaErrorInvalidValue);
    CHECK(closed(fd));
  }
  SECTION("something that is not a file") {
    int ends[2];
    REQUIRE(::pipe(ends) == 0);
    CHECK(shared.add(1, ends[0], 4096, 0, &address) == cudaErrorInvalidValue);
    CHECK(closed(ends[0]));
    ::close(ends[1]);
  }
  SECTION("no descriptor, or no size") {
    CHECK(shared.add(1, -1, 4096, 0, &address) == cudaErrorInvalidValue);
    const int fd = memfd(4096, true);
    CHECK(shared.add(1, fd, 0, 0, &address) == cudaErrorInvalidValue);
    CHECK(closed(fd));
  }
  SECTION("an id in use") {
    REQUIRE(shared.add(1, memfd(4096, true), 4096, 0, &address) == cudaSuccess);
    const int fd = memfd(4096, true);
    CHECK(shared.add(1, fd, 4096, 0, &address) == cudaErrorInvalidValue);
    CHECK(closed(fd));
    CHECK(shared.count() == 1);
  }
}
