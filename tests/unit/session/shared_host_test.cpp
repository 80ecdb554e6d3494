// The registry of host memory a same-host client shares with its session (server/session/
// shared_host.h): what it accepts as shared memory, the bounds of every lookup, and its releases.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include <cuda_runtime_api.h>

#include "server/backends/backend.h"
#include "server/session/shared_host.h"

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

}  // namespace

TEST_CASE("shared host memory: the worker's mapping is the client's pages") {
  auto backend = rgpu::server::make_emulated_backend();
  SharedHost shared(*backend);
  const size_t size = 3 * 4096;
  const int fd = memfd(size, true);
  const int keep = ::dup(fd);  // the client's own view
  REQUIRE(shared.add(7, fd, size) == cudaSuccess);
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

TEST_CASE("shared host memory: a lookup outside an allocation finds nothing") {
  auto backend = rgpu::server::make_emulated_backend();
  SharedHost shared(*backend);
  REQUIRE(shared.add(1, memfd(8192, true), 8192) == cudaSuccess);
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
  auto backend = rgpu::server::make_emulated_backend();
  SharedHost shared(*backend);
  SECTION("a file not sealed against shrinking (the client could take the pages away)") {
    const int fd = memfd(4096, false);
    CHECK(shared.add(1, fd, 4096) == cudaErrorInvalidValue);
    CHECK(closed(fd));
  }
  SECTION("a file smaller than the size claimed") {
    const int fd = memfd(4096, true);
    CHECK(shared.add(1, fd, 8192) == cudaErrorInvalidValue);
    CHECK(closed(fd));
  }
  SECTION("something that is not a file") {
    int ends[2];
    REQUIRE(::pipe(ends) == 0);
    CHECK(shared.add(1, ends[0], 4096) == cudaErrorInvalidValue);
    CHECK(closed(ends[0]));
    ::close(ends[1]);
  }
  SECTION("no descriptor, or no size") {
    CHECK(shared.add(1, -1, 4096) == cudaErrorInvalidValue);
    const int fd = memfd(4096, true);
    CHECK(shared.add(1, fd, 0) == cudaErrorInvalidValue);
    CHECK(closed(fd));
  }
  SECTION("an id in use") {
    REQUIRE(shared.add(1, memfd(4096, true), 4096) == cudaSuccess);
    const int fd = memfd(4096, true);
    CHECK(shared.add(1, fd, 4096) == cudaErrorInvalidValue);
    CHECK(closed(fd));
    CHECK(shared.count() == 1);
  }
}
