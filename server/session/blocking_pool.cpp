// The blocking-wait threads (see blocking_pool.h).
#include "server/session/blocking_pool.h"

#include <chrono>
#include <thread>

#include "common/spin.h"

namespace rgpu::server {
namespace {

// How long an idle thread polls for the next wait before it sleeps: about a network round trip,
// the usual gap between a launch's sync and the next.
constexpr auto kIdleSpin = std::chrono::microseconds(100);
// How long the session thread polls for the pool to drain before it sleeps: about a short kernel's
// synchronisation.
constexpr auto kDrainSpin = std::chrono::microseconds(200);

}  // namespace

BlockingPool::BlockingPool(Run run) : state_(std::make_shared<State>()) { state_->run = std::move(run); }

BlockingPool::~BlockingPool() {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->stopping = true;
  state_->cv.notify_all();
}

void BlockingPool::submit(const wire::FrameHeader& h, std::span<const uint8_t> payload) {
  std::lock_guard<std::mutex> lock(state_->mu);
  std::vector<uint8_t> buf;
  if (!state_->spare.empty()) {
    buf = std::move(state_->spare.back());
    state_->spare.pop_back();
  }
  buf.assign(payload.begin(), payload.end());
  state_->queue.push_back(Job{h, std::move(buf)});
  state_->unfinished.fetch_add(1, std::memory_order_relaxed);
  state_->queued.fetch_add(1, std::memory_order_release);
  if (state_->idle < state_->queue.size()) {
    // Every thread is busy with a wait of its own: this one needs a new thread.
    state_->idle++;
    std::thread(thread_main, state_).detach();
  } else if (state_->sleeping > 0) {
    state_->cv.notify_one();
  }
}

void BlockingPool::wait_for_submitted() {
  auto drained = [&] { return state_->unfinished.load(std::memory_order_acquire) == 0; };
  if (poll_for(kDrainSpin, drained)) return;
  std::unique_lock<std::mutex> lock(state_->mu);
  state_->drained.wait(lock, [&] { return state_->unfinished == 0 || state_->stopping; });
}

void BlockingPool::thread_main(std::shared_ptr<State> state) {
  std::unique_lock<std::mutex> lock(state->mu);
  while (!state->stopping) {
    if (!state->queue.empty()) {
      Job job = std::move(state->queue.front());
      state->queue.pop_front();
      state->queued.fetch_sub(1, std::memory_order_relaxed);
      state->idle--;
      lock.unlock();
      state->run(job.header, job.payload);
      lock.lock();
      if (state->unfinished.fetch_sub(1, std::memory_order_acq_rel) == 1) state->drained.notify_all();
      state->spare.push_back(std::move(job.payload));
      state->idle++;
      continue;
    }
    lock.unlock();
    poll_for(kIdleSpin, [&] { return state->queued.load(std::memory_order_acquire) > 0; });
    lock.lock();
    if (!state->queue.empty() || state->stopping) continue;
    state->sleeping++;
    state->cv.wait(lock, [&] { return !state->queue.empty() || state->stopping; });
    state->sleeping--;
  }
  state->idle--;
}

}  // namespace rgpu::server
