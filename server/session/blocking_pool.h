// Threads that run a session's blocking waits (stream, event and device synchronisation) beside
// the session thread, so one client thread's wait never holds up another's calls. The threads
// persist: an idle one polls briefly for the next wait before it sleeps, so handing a wait over
// costs well under a microsecond instead of a thread start. The pool grows when every thread is
// busy (each concurrent wait needs its own) and never runs out.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "common/wire/frame.h"

namespace rgpu::server {

class BlockingPool {
 public:
  using Run = std::function<void(const wire::FrameHeader&, std::span<const uint8_t> payload)>;
  explicit BlockingPool(Run run);
  // Idle threads end; a thread still inside a wait ends after it (the pool's state outlives it).
  ~BlockingPool();
  BlockingPool(const BlockingPool&) = delete;
  BlockingPool& operator=(const BlockingPool&) = delete;

  // Queues one call; its payload is copied.
  void submit(const wire::FrameHeader& h, std::span<const uint8_t> payload);
  // Blocks until every call submitted so far has returned. Called from the thread that submits
  // (the session's), so no call is submitted meanwhile. It polls before it sleeps: it runs right
  // behind a synchronisation whose read-back of mapped memory waits for it, and a wake-up from a
  // condition variable costs several microseconds on a virtual machine, per synchronisation.
  void wait_for_submitted();

 private:
  struct Job {
    wire::FrameHeader header;
    std::vector<uint8_t> payload;
  };
  struct State {
    Run run;
    std::mutex mu;
    std::condition_variable cv;
    std::condition_variable drained;  // unfinished reached 0
    std::atomic<size_t> unfinished{0};  // submitted and not yet returned; changed under mu, polled without
    std::deque<Job> queue;
    std::vector<std::vector<uint8_t>> spare;  // payload buffers kept for reuse
    std::atomic<size_t> queued{0};            // polled by idle threads
    size_t idle = 0;
    size_t sleeping = 0;
    bool stopping = false;
  };
  static void thread_main(std::shared_ptr<State> state);

  std::shared_ptr<State> state_;
};

}  // namespace rgpu::server
