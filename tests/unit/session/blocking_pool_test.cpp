// The blocking pool: waits run beside the submitting thread, and wait_for_submitted returns only
// once every wait submitted before it has returned (a mapped-memory read sent behind a
// synchronisation relies on it).
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include "server/session/blocking_pool.h"

using namespace rgpu;

TEST_CASE("wait_for_submitted returns after every wait submitted before it", "[blocking_pool]") {
  std::atomic<int> released{0}, returned{0};
  server::BlockingPool pool([&](const wire::FrameHeader& h, std::span<const uint8_t>) {
    while (released.load() < static_cast<int>(h.seq)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    returned.fetch_add(1);
  });
  wire::FrameHeader h{};
  for (uint32_t seq = 1; seq <= 3; ++seq) {
    h.seq = seq;
    pool.submit(h, {});
  }
  CHECK(returned.load() == 0);  // each waits for its release: submit did not run them inline
  std::thread releaser([&] {
    for (int i = 1; i <= 3; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      released.store(i);
    }
  });
  pool.wait_for_submitted();
  CHECK(returned.load() == 3);
  releaser.join();
  pool.wait_for_submitted();  // nothing outstanding: returns at once
  CHECK(returned.load() == 3);
}
