// A process that cannot load the UCX transport: a ucx:// address fails with what to install, and
// nothing else is touched (ctest runs this with RGPU_UCX_PLUGIN naming no file).
#include <catch2/catch.hpp>

#include "transports/transport.h"

using namespace rgpu;

TEST_CASE("ucx: without the UCX library a ucx:// address fails saying what to install", "[.][ucx_missing]") {
  auto listener = transport::listen("ucx://127.0.0.1:0");  // a socket listener: UCX loads on accept
  REQUIRE(listener.is_ok());
  auto connected = transport::connect(listener.value()->address());
  REQUIRE_FALSE(connected.is_ok());
  CHECK(connected.status().code() == Code::kUnavailable);
  CHECK_THAT(connected.status().message(), Catch::Contains("apt-get install libucx0"));
  CHECK_THAT(connected.status().message(), Catch::Contains("no-such-plugin.so"));
  // Plain TCP still works in the same process.
  CHECK(transport::connect(listener.value()->address().substr(6)).is_ok());
}
