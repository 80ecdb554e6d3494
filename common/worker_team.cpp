// A fixed team of threads (see worker_team.h).
#include "common/worker_team.h"

namespace rgpu {

WorkerTeam::WorkerTeam(size_t size) {
  threads_.reserve(size);
  for (size_t k = 0; k < size; ++k) threads_.emplace_back([this, k] { member(k); });
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
  {
    std::lock_guard lock(mu_);
    job_ = job;
    call_ = call;
    active_ = running_ = n < threads_.size() ? n : threads_.size();
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
    lock.unlock();
    call(job, k);
    lock.lock();
    if (--running_ == 0) done_.notify_all();
  }
}

}  // namespace rgpu
