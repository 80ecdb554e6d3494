// A fixed team of threads (see worker_team.h).
#include "common/worker_team.h"

#include <algorithm>
#include <system_error>

namespace rgpu {

WorkerTeam::WorkerTeam(size_t size) {
  threads_.reserve(size);
  for (size_t k = 0; k < size; ++k) {
    // Where no thread can be had (an address-space or thread cap on rgpud's workers), the team has
    // fewer members, each running several jobs: a copy goes slower rather than the process ending.
    try {
      threads_.emplace_back([this, k] { member(k); });
    } catch (const std::system_error&) {
      break;
    }
  }
}

WorkerTeam::~WorkerTeam() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  work_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void WorkerTeam::start_erased(size_t n, void* job, void (*call)(void*, size_t)) {
  if (threads_.empty()) {  // no member: the caller runs every job, and wait() has nothing to wait for
    for (size_t k = 0; k < n; ++k) call(job, k);
    return;
  }
  {
    std::lock_guard lock(mu_);
    job_ = job;
    call_ = call;
    jobs_ = n;
    active_ = running_ = std::min(n, threads_.size());
    ++generation_;
  }
  work_.notify_all();
}

void WorkerTeam::wait() {
  std::unique_lock lock(mu_);
  done_.wait(lock, [this] { return running_ == 0; });
}

void WorkerTeam::member(size_t k) {
  uint64_t seen = 0;
  std::unique_lock lock(mu_);
  for (;;) {
    work_.wait(lock, [&] { return stopping_ || generation_ != seen; });
    if (stopping_) return;
    seen = generation_;
    if (k >= active_) continue;
    void* job = job_;
    void (*call)(void*, size_t) = call_;
    const size_t jobs = jobs_, stride = threads_.size();
    lock.unlock();
    for (size_t j = k; j < jobs; j += stride) call(job, j);
    lock.lock();
    if (--running_ == 0) done_.notify_all();
  }
}

}  // namespace rgpu
