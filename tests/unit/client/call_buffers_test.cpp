// A call made while its thread exits, after the thread's own buffers are destroyed (a library's
// destructor at exit: PyTorch's cuFFT plan cache destroys its plans then), encodes into buffers of
// its own. Under ASan the old shared buffers were a use after free; here the bytes must be right.
#include <catch2/catch.hpp>

#include <cstring>
#include <thread>
#include <vector>

#include "client/runtime/call.h"

using rgpu::client::Call;
using rgpu::client::CallClass;

namespace {

std::vector<uint8_t> g_encoded;  // what the late call encoded

// Constructed before the thread's first call, so destroyed after the thread's call buffers.
struct LateCaller {
  bool armed = false;
  ~LateCaller() {
    if (!armed) return;
    Call late(7, CallClass::kAsync);
    late.args().put<uint32_t>(0xC0FFEEu);
    const auto payload = late.args().payload();
    g_encoded.assign(payload.begin(), payload.end());
  }
};

thread_local LateCaller t_late;

}  // namespace

TEST_CASE("a call in a thread's exit, after its buffers are destroyed, encodes into buffers of its own") {
  std::thread([] {
    t_late.armed = true;  // constructs t_late first
    Call early(7, CallClass::kAsync);  // then the thread's buffers
    early.args().put<uint32_t>(1);
    CHECK(early.args().payload().size() == sizeof(uint32_t));
  }).join();
  REQUIRE(g_encoded.size() == sizeof(uint32_t));
  uint32_t value = 0;
  std::memcpy(&value, g_encoded.data(), sizeof value);
  CHECK(value == 0xC0FFEEu);
}
