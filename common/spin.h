// Polling before sleeping. A thread that expects its event within a few microseconds (a reply, the
// next call of a burst) polls for it first: a sleep and its wake-up system call cost more than the
// wait. Polling only pays when the poller has a core to itself, so on small machines (fewer than
// four CPUs: CI runners, small VMs) it is skipped and the caller goes straight to sleep.
#pragma once

#include <chrono>
#include <thread>

namespace rgpu {

inline bool polling_pays() {
  static const bool pays = std::thread::hardware_concurrency() >= 4;
  return pays;
}

// Polls `ready` for up to `budget`; returns its last value.
template <typename Ready>
bool poll_for(std::chrono::microseconds budget, Ready&& ready) {
  if (ready()) return true;
  if (!polling_pays()) return false;
  const auto until = std::chrono::steady_clock::now() + budget;
  while (std::chrono::steady_clock::now() < until) {
    // A few pauses between looks: one pause takes up to 140 cycles, and every look the event
    // waits for is latency on a round trip that several such polls lie on (the caller's, the
    // reader's, the server's).
    for (int i = 0; i < 4; ++i) __builtin_ia32_pause();
    if (ready()) return true;
  }
  return false;
}

}  // namespace rgpu
