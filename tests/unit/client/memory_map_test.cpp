// The client's memory map: which ranges are device allocations or pinned host memory.
#include <catch2/catch.hpp>

#include "client/runtime/memory_map.h"

using rgpu::client::MemoryMap;

TEST_CASE("device ranges are found by any address inside them, and only inside") {
  MemoryMap m;
  auto* base = reinterpret_cast<const char*>(0x7f0000001000);
  m.add_device(base, 4096, 1);
  REQUIRE(m.find_device(base));
  CHECK(m.find_device(base + 4095)->device == 1);
  CHECK_FALSE(m.find_device(base + 4096));
  CHECK_FALSE(m.find_device(base - 1));
  CHECK(m.remove_device(base));
  CHECK_FALSE(m.find_device(base + 10));
  CHECK_FALSE(m.remove_device(base));
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
