// readable_bytes_at against mappings this test makes, unmaps and protects.
#include "common/fatbin/mapped_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <vector>

using rgpu::fatbin::readable_bytes_at;

namespace {

uint8_t* map_pages(size_t pages, int protection = PROT_READ | PROT_WRITE) {
  void* p = mmap(nullptr, pages * getpagesize(), protection, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  return static_cast<uint8_t*>(p);
}

}  // namespace

TEST_CASE("readable_bytes_at bounds heap and stack memory") {
  std::vector<uint8_t> heap(1000);
  CHECK(readable_bytes_at(heap.data()) >= heap.size());
  int on_stack = 0;
  CHECK(readable_bytes_at(&on_stack) >= sizeof(on_stack));
  CHECK(readable_bytes_at(nullptr) == 0);
}

TEST_CASE("readable_bytes_at stops at an unmapped or unreadable page and sees new mappings") {
  const size_t page = getpagesize();
  uint8_t* pages = map_pages(4);
  REQUIRE(munmap(pages + 2 * page, page) == 0);
  REQUIRE(mprotect(pages + 3 * page, page, PROT_NONE) == 0);
  CHECK(readable_bytes_at(pages) == 2 * page);
  CHECK(readable_bytes_at(pages + page + 5) == page - 5);
  CHECK(readable_bytes_at(pages + 2 * page) == 0);
  CHECK(readable_bytes_at(pages + 3 * page) == 0);

  // Mapped after the lookups above filled the cache: found by re-reading the maps.
  uint8_t* fresh = map_pages(1);
  CHECK(readable_bytes_at(fresh + 10) >= page - 10);

  munmap(pages, 2 * page);
  munmap(pages + 3 * page, page);
  munmap(fresh, page);
}
