// Polling before sleeping. A thread that expects its event within a few microseconds (a reply, the
// next call of a burst) polls for it first: a sleep and its wake-up system call cost more than the
// wait. Polling only pays when the poller has a core to itself, so on small machines (fewer than
// four CPUs: CI runners, small VMs) poll_for skips it and the caller goes straight to sleep; the
// shared-memory rings spin there too, yielding the CPU between looks (transports/shm).
#pragma once

#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace rgpu {

inline bool polling_pays() {
  static const bool pays = std::thread::hardware_concurrency() >= 4;
  return pays;
}

// How a spin waits between looks and when it gives up besides its budget.
struct SpinRules {
  bool yield = false;                                  // sched_yield instead of pauses: few cores
  const std::atomic<bool>* stop = nullptr;             // gives up once this is set
  const std::atomic<uint32_t>* keep_while = nullptr;   // spins past the budget while this is nonzero
};

// Looks at `ready` until it is true (returns true), the budget is spent or the rules' stop is set
// (false).
template <typename Ready>
bool spin_for(std::chrono::nanoseconds budget, const SpinRules& rules, Ready&& ready) {
  const auto until = std::chrono::steady_clock::now() + budget;
  for (;;) {
    if (rules.yield) {
      ::sched_yield();
    } else {
      // A few pauses between looks: one pause takes up to 140 cycles, and every look the event
      // waits for is latency on a round trip that several such polls lie on (the caller's, the
      // reader's, the server's).
      for (int i = 0; i < 4; ++i) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        asm volatile("yield");
#endif
      }
    }
    if (ready()) return true;
    if (rules.stop && rules.stop->load(std::memory_order_acquire)) return false;
    if (std::chrono::steady_clock::now() >= until &&
        !(rules.keep_while && rules.keep_while->load(std::memory_order_relaxed) != 0))
      return false;
  }
}

// Polls `ready` for up to `budget` where polling pays; returns its last value.
template <typename Ready>
bool poll_for(std::chrono::microseconds budget, Ready&& ready) {
  if (ready()) return true;
  if (!polling_pays()) return false;
  return spin_for(budget, SpinRules{}, ready);
}

}  // namespace rgpu
