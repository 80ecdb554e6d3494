// The shared-memory rings and their futex wake-ups (see shm_ring.h).
//
// Waking costs a system call only when needed. A waiting end first spins (the reply to a call
// usually comes within microseconds), then announces that it sleeps (`*_sleeps` = 1), checks the
// ring once more and sleeps on its futex word. The other end, after it publishes (or frees room),
// looks at that flag and only then bumps the word and calls FUTEX_WAKE. The announce-then-check
// and the publish-then-look are each a sequentially consistent store followed by a load (Dekker's
// pattern): one of the two ends always sees the other's store, so no wake-up is lost, and an end
// whose peer is awake makes no system call at all.
#include "transports/shm/shm_ring.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>

namespace rgpu::transport::shm {
namespace {

using Clock = std::chrono::steady_clock;

// A sleep's slice: a wake-up the peer forgot (or a futex word it scribbled on) costs at most this.
constexpr std::chrono::milliseconds kSleepSlice{100};

// Spins until `ready()` (true) or the policy's spin time is over or its stop is set (false).
template <typename Ready>
bool spin(const WaitPolicy& policy, Ready&& ready) {
  if (policy.spin.count() <= 0) return false;
  return spin_for(policy.spin, policy, ready);
}

}  // namespace

void futex_wake_all(std::atomic<uint32_t>& word) {
  (void)::syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

void futex_wait(std::atomic<uint32_t>& word, uint32_t expected, std::chrono::milliseconds timeout) {
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  ts.tv_nsec = static_cast<long>((timeout.count() % 1000) * 1'000'000);
  // EAGAIN (the word changed), EINTR and ETIMEDOUT all send the caller back to look.
  (void)::syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT, expected, &ts, nullptr, 0);
}

// ---- producer ----

bool RingProducer::refresh_head() {
  const uint64_t h = control_->head.load(std::memory_order_acquire);
  // The consumer's head may only move forward, and never past what was written.
  if (h - head_ > tail_ - head_) return false;
  head_ = h;
  return true;
}

bool RingProducer::write_some(const uint8_t* src, size_t n, size_t* copied) {
  *copied = 0;
  if (n == 0) return true;
  uint64_t room = capacity_ - (tail_ - head_);
  if (room < n) {
    if (!refresh_head()) return false;
    room = capacity_ - (tail_ - head_);
  }
  const size_t k = static_cast<size_t>(std::min<uint64_t>(room, n));
  if (k == 0) return true;
  const size_t offset = static_cast<size_t>(tail_ & (capacity_ - 1));
  const size_t first = std::min(k, capacity_ - offset);
  std::memcpy(data_ + offset, src, first);
  if (k > first) std::memcpy(data_, src + first, k - first);
  tail_ += k;
  *copied = k;
  return true;
}

void RingProducer::publish() {
  if (tail_ == published_) return;
  published_ = tail_;
  control_->tail.store(tail_, std::memory_order_seq_cst);
  if (control_->consumer_sleeps.load(std::memory_order_seq_cst) != 0) {
    control_->data_seq.fetch_add(1, std::memory_order_release);
    futex_wake_all(control_->data_seq);
  }
}

WaitResult RingProducer::wait_for_room(const WaitPolicy& policy) {
  bool corrupt = false;
  auto has_room = [&] {
    if (!refresh_head()) return corrupt = true;
    return tail_ - head_ < capacity_;
  };
  if (has_room()) return corrupt ? WaitResult::kCorrupt : WaitResult::kReady;
  if (spin(policy, has_room)) return corrupt ? WaitResult::kCorrupt : WaitResult::kReady;
  for (;;) {
    if (policy.stop && policy.stop->load(std::memory_order_acquire)) return WaitResult::kStopped;
    const uint32_t seq = control_->space_seq.load(std::memory_order_acquire);
    control_->producer_sleeps.store(1, std::memory_order_seq_cst);
    const uint64_t h = control_->head.load(std::memory_order_seq_cst);
    if (h == head_ && !(policy.stop && policy.stop->load(std::memory_order_acquire)))
      futex_wait(control_->space_seq, seq, kSleepSlice);
    control_->producer_sleeps.store(0, std::memory_order_relaxed);
    if (has_room()) return corrupt ? WaitResult::kCorrupt : WaitResult::kReady;
  }
}

void RingProducer::wake_self() {
  control_->space_seq.fetch_add(1, std::memory_order_release);
  futex_wake_all(control_->space_seq);
}

// ---- consumer ----

int64_t RingConsumer::available() {
  const uint64_t t = control_->tail.load(std::memory_order_acquire);
  // The producer's tail may only be ahead of what was read, by at most the ring.
  if (t - head_ > capacity_) return -1;
  tail_ = t;
  return static_cast<int64_t>(t - head_);
}

size_t RingConsumer::read_some(uint8_t* dst, size_t n) {
  const size_t k = static_cast<size_t>(std::min<uint64_t>(tail_ - head_, n));
  if (k == 0) return 0;
  if (dst) {
    const size_t offset = static_cast<size_t>(head_ & (capacity_ - 1));
    const size_t first = std::min(k, capacity_ - offset);
    std::memcpy(dst, data_ + offset, first);
    if (k > first) std::memcpy(dst + first, data_, k - first);
  }
  head_ += k;
  control_->head.store(head_, std::memory_order_seq_cst);
  if (control_->producer_sleeps.load(std::memory_order_seq_cst) != 0) {
    control_->space_seq.fetch_add(1, std::memory_order_release);
    futex_wake_all(control_->space_seq);
  }
  return k;
}

WaitResult RingConsumer::wait_for_data(const WaitPolicy& policy, std::chrono::milliseconds timeout) {
  int64_t got = 0;
  auto ready = [&] { return (got = available()) != 0; };
  auto result = [&] { return got < 0 ? WaitResult::kCorrupt : WaitResult::kReady; };
  if (ready()) return result();
  if (spin(policy, ready)) return result();
  const bool limited = timeout.count() >= 0;
  const auto until = Clock::now() + timeout;
  for (;;) {
    if (policy.stop && policy.stop->load(std::memory_order_acquire)) return WaitResult::kStopped;
    auto slice = kSleepSlice;
    if (limited) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
      if (left.count() <= 0) return WaitResult::kTimedOut;
      slice = std::min(slice, left);
    }
    const uint32_t seq = control_->data_seq.load(std::memory_order_acquire);
    control_->consumer_sleeps.store(1, std::memory_order_seq_cst);
    const uint64_t t = control_->tail.load(std::memory_order_seq_cst);
    if (t == head_ && !(policy.stop && policy.stop->load(std::memory_order_acquire)))
      futex_wait(control_->data_seq, seq, slice);
    control_->consumer_sleeps.store(0, std::memory_order_relaxed);
    if (ready()) return result();
  }
}

void RingConsumer::wake_self() {
  control_->data_seq.fetch_add(1, std::memory_order_release);
  futex_wake_all(control_->data_seq);
}

}  // namespace rgpu::transport::shm
