// The client's memory map: which ranges are device allocations or pinned host memory.
#include <sys/mman.h>

#include <catch2/catch.hpp>
#include <cerrno>

#include "client/runtime/memory_map.h"

using rgpu::client::MemoryMap;

namespace {

constexpr size_t kPage = 4096;

// `pages` pages of address space nothing holds (mapped, then given back).
char* free_range(size_t pages) {
  void* p = mmap(nullptr, pages * kPage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  munmap(p, pages * kPage);
  return static_cast<char*>(p);
}

// Whether something is mapped at page `a` of this process.
bool taken(const char* a) {
  void* p = mmap(const_cast<char*>(a), kPage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == a) {
    munmap(p, kPage);
    return false;
  }
  REQUIRE(p == MAP_FAILED);
  return errno == EEXIST;
}

}  // namespace

TEST_CASE("device ranges are found by any address inside them, and only inside") {
  MemoryMap m;
  const char* base = free_range(1);
  REQUIRE(m.add_device(base, 4096, 1));
  REQUIRE(m.find_device(base));
  CHECK(m.find_device(base + 4095)->device == 1);
  CHECK_FALSE(m.find_device(base + 4096));
  CHECK_FALSE(m.find_device(base - 1));
  CHECK(m.remove_device(base));
  CHECK_FALSE(m.find_device(base + 10));
  CHECK_FALSE(m.remove_device(base));
}

TEST_CASE("a device range's pages are reserved in the process while it is recorded, and only then") {
  MemoryMap m;
  char* base = free_range(4);
  REQUIRE(m.add_device(base, 3 * kPage + 1, 0));
  CHECK(taken(base));
  CHECK(taken(base + 3 * kPage));  // the partial last page too
  CHECK(m.remove_device(base));
  CHECK_FALSE(taken(base));
  CHECK_FALSE(taken(base + 3 * kPage));
}

TEST_CASE("a device range over memory the program has is refused and not recorded") {
  MemoryMap m;
  void* own = mmap(nullptr, 2 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(own != MAP_FAILED);
  char* mine = static_cast<char*>(own);
  mine[kPage] = 7;
  CHECK_FALSE(m.add_device(mine + kPage + 256, 512, 0));
  CHECK_FALSE(m.find_device(mine + kPage + 256));
  CHECK(mine[kPage] == 7);  // the program's memory is as it was
  // A range that only ends on the program's memory is refused too.
  char* before = free_range(3);
  munmap(own, 2 * kPage);
  own = mmap(before + 2 * kPage, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  REQUIRE(own == before + 2 * kPage);
  CHECK_FALSE(m.add_device(before, 2 * kPage + 8, 0));
  CHECK_FALSE(taken(before));  // nothing half-reserved is left
  munmap(own, kPage);
}

TEST_CASE("a device range over the program's memory can be recorded unreserved, and forgetting it leaves that memory") {
  MemoryMap m;
  void* own = mmap(nullptr, 2 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(own != MAP_FAILED);
  char* mine = static_cast<char*>(own);
  REQUIRE(m.add_device(mine, 2 * kPage, 0, true));
  CHECK(m.find_device(mine + kPage)->device == 0);
  CHECK(m.remove_device(mine));
  mine[kPage] = 3;  // still the program's, and writable
  CHECK(mine[kPage] == 3);
  munmap(own, 2 * kPage);
}

TEST_CASE("a shared page passes to the neighbour that outlives its holder, whatever the order") {
  MemoryMap m;
  char* base = free_range(2);
  REQUIRE(m.add_device(base + 1024, kPage, 0));  // holds pages 0 and 1
  REQUIRE(m.add_device(base + 256, 512, 0));     // lies on page 0, holds nothing
  CHECK(m.remove_device(base + 1024));
  CHECK(taken(base));  // passed to the small one
  CHECK_FALSE(taken(base + kPage));
  CHECK(m.remove_device(base + 256));
  CHECK_FALSE(taken(base));
}

TEST_CASE("a page two device allocations share stays reserved while either lives") {
  MemoryMap m;
  char* base = free_range(3);
  REQUIRE(m.add_device(base + 256, kPage, 0));        // pages 0 and 1
  REQUIRE(m.add_device(base + kPage + 512, 100, 0));  // inside page 1
  REQUIRE(m.add_device(base + kPage + 1024, kPage, 0));  // pages 1 and 2
  CHECK(m.remove_device(base + 256));
  CHECK_FALSE(taken(base));
  CHECK(taken(base + kPage));
  CHECK(m.remove_device(base + kPage + 1024));
  CHECK(taken(base + kPage));  // the small one still lives there
  CHECK_FALSE(taken(base + 2 * kPage));
  CHECK(m.remove_device(base + kPage + 512));
  CHECK_FALSE(taken(base + kPage));
}

TEST_CASE("forgetting a device's allocations gives back their pages") {
  MemoryMap m;
  char* base = free_range(2);
  REQUIRE(m.add_device(base, kPage, 0));
  REQUIRE(m.add_device(base + kPage, kPage, 1));
  m.remove_device_all(0);
  CHECK_FALSE(taken(base));
  CHECK(taken(base + kPage));
  CHECK(m.find_device(base + kPage));
  CHECK(m.remove_device(base + kPage));
}

TEST_CASE("pinned host ranges keep their flags and ownership") {
  MemoryMap m;
  auto* base = reinterpret_cast<const char*>(0x600000);
  m.add_host(base, 100, 2u, true);
  auto r = m.find_host(base + 50);
  REQUIRE(r);
  CHECK(r->host_flags == 2u);
  CHECK(r->owned_host);
  CHECK_FALSE(m.find_device(base));
  auto removed = m.remove_host(base);
  REQUIRE(removed);
  CHECK(removed->size == 100);
  CHECK_FALSE(m.find_host(base));
}

TEST_CASE("the bounds of pinned host ranges hold every range ever added, and nothing before the first") {
  MemoryMap m;
  CHECK_FALSE(m.may_be_host(0x600000));
  m.add_host(reinterpret_cast<const void*>(0x600000), 0x1000, 0, true);
  m.add_host(reinterpret_cast<const void*>(0x900000), 0x10, 0, false);
  CHECK(m.may_be_host(0x600000));
  CHECK(m.may_be_host(0x90000f));
  CHECK_FALSE(m.may_be_host(0x5fffff));
  CHECK_FALSE(m.may_be_host(0x900010));
  m.remove_host(reinterpret_cast<const void*>(0x900000));
  CHECK(m.may_be_host(0x900000));  // a filter only: a removed range may still pass it
}
