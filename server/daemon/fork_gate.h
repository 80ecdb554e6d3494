// The gate rgpud's parent forks its session workers through. The main thread forks one per
// session while the parent's other threads run: the pool service's (parked for the fork,
// pool_service.h) and the helpers main.cpp starts, which reap workers, reload on SIGHUP, probe the
// GPUs' health and end rgpud on SIGINT/SIGTERM. A lock any of them holds at fork() stays locked for
// good in the child: glibc's malloc guards fork itself, GCC 12's ASan allocator does not, and a CI
// run under ASan met a worker hung for good right after "session 1 start", forked just as those
// threads started.
//
// So each helper holds the gate (shared) from its first statement on, whenever it does anything
// that may allocate or lock, and lets it go while it blocks in the kernel (sigwait, waitpid, poll, a
// sleep); fork() takes it whole, so the child is made while every helper is outside, holding none
// of the allocator's locks. A thread's start-up, before its first statement, is outside the gate:
// main.cpp's start_helper returns only once the new thread holds it. Holding it, a helper must wait
// on nothing the main thread does (that thread may be waiting at the gate), nor on the pool
// service's thread (parked meanwhile): it waits only on the kernel, and posting to the pool
// service's queue does not wait for its thread.
#pragma once

#include <sys/types.h>

#include <cerrno>
#include <shared_mutex>
#include <utility>

namespace rgpu::server {

class ForkGate {
 public:
  // A helper thread's hold, taken when made; one per thread (a thread must not hold it twice).
  class Hold {
   public:
    explicit Hold(ForkGate& gate) : lock_(gate.mu_) {}

    // Runs `blocking` (a call that waits on the kernel: sigwait, waitpid, poll, a sleep) with the
    // hold let go, and takes it back after; errno stays as the call left it.
    template <class Blocking>
    decltype(auto) released(Blocking&& blocking) {
      lock_.unlock();
      Retake retake{lock_};
      return std::forward<Blocking>(blocking)();
    }

   private:
    struct Retake {
      std::shared_lock<std::shared_mutex>& lock;
      ~Retake() {
        const int saved = errno;
        lock.lock();
        errno = saved;
      }
    };
    std::shared_lock<std::shared_mutex> lock_;
  };

  // fork() once no helper holds the gate; the parent's errno is fork's. The child returns at once
  // and must never touch the gate again: its copy stays shut as the fork found it, and the helpers
  // it would wait for do not exist there.
  pid_t fork();

 private:
  std::shared_mutex mu_;
};

// rgpud's parent's gate. Never destroyed: detached helpers hold it until the process ends.
ForkGate& parent_fork_gate();

}  // namespace rgpu::server
