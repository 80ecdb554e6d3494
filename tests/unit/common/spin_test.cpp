// spin_for: the one spin loop that poll_for and the shared-memory rings share (common/spin.h).
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include "common/spin.h"

using namespace std::chrono_literals;
using rgpu::spin_for;
using rgpu::SpinRules;

TEST_CASE("spin_for returns true once ready holds, after as many looks as it took") {
  for (bool yield : {false, true}) {
    int looks = 0;
    CHECK(spin_for(1s, SpinRules{.yield = yield}, [&] { return ++looks == 5; }));
    CHECK(looks == 5);
  }
}

TEST_CASE("spin_for gives up at its budget when ready never holds") {
  const auto began = std::chrono::steady_clock::now();
  CHECK_FALSE(spin_for(2ms, SpinRules{}, [] { return false; }));
  CHECK(std::chrono::steady_clock::now() - began >= 2ms);
}

TEST_CASE("spin_for stops when its stop is set, whatever budget is left") {
  std::atomic<bool> stop{false};
  int looks = 0;
  CHECK_FALSE(spin_for(1h, SpinRules{.stop = &stop}, [&] {
    if (++looks == 3) stop = true;
    return false;
  }));
  CHECK(looks == 3);
}

TEST_CASE("spin_for spins past its budget while keep_while is nonzero, then gives up") {
  std::atomic<uint32_t> polling{1};
  int looks = 0;
  // A zero budget: only keep_while keeps it looking, until the tenth look clears it.
  CHECK_FALSE(spin_for(0ns, SpinRules{.keep_while = &polling}, [&] {
    if (++looks == 10) polling = 0;
    return false;
  }));
  CHECK(looks == 10);
}
