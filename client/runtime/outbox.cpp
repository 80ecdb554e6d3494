// The call pipe's send side (see outbox.h).
#include "client/runtime/outbox.h"

#include <chrono>

#include "common/spin.h"

namespace rgpu::client {
namespace {

// A queue this large makes appenders wait for the writer: a client cannot run unboundedly ahead
// of what the connection carries.
constexpr size_t kMaxQueued = 8 << 20;
// After a write the writer polls for new work this long before it sleeps, so that a caller issuing
// calls back to back does not pay a wake-up system call per call.
constexpr auto kWriterSpin = std::chrono::microseconds(50);

}  // namespace

Outbox::Outbox(transport::Connection& conn, std::function<void(const std::string&)> on_failure)
    : conn_(conn), callers_write_(conn.sends_are_copies()), on_failure_(std::move(on_failure)) {
  queue_.reserve(64 << 10);
  batch_.reserve(64 << 10);
  writer_ = std::thread([this] { writer_loop(); });
}

Outbox::~Outbox() {
  stop();
  if (writer_.joinable()) writer_.join();
}

void Outbox::stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  token_cv_.notify_all();
  writer_cv_.notify_all();
}

void Outbox::wake_writer_locked() {
  if (writer_asleep_ && !writing_) writer_cv_.notify_one();
}

bool Outbox::append_locked(std::unique_lock<std::mutex>& lk, const wire::FrameHeader& h,
                           std::span<const uint8_t> payload, std::span<const iovec> bulk, bool wake_writer) {
  while (queue_.size() > kMaxQueued && !stopped_) {
    wake_writer_locked();
    token_cv_.wait(lk);
  }
  if (stopped_) return false;
  auto put = [&](const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    queue_.insert(queue_.end(), b, b + n);
  };
  put(&h, sizeof h);
  put(payload.data(), payload.size());
  for (const iovec& v : bulk) put(v.iov_base, v.iov_len);
  work_.store(true, std::memory_order_release);
  if (wake_writer) wake_writer_locked();
  return true;
}

bool Outbox::append_now_locked(std::unique_lock<std::mutex>& lk, const wire::FrameHeader& h) {
  (void)lk;
  if (stopped_) return false;
  const auto* b = reinterpret_cast<const uint8_t*>(&h);
  queue_.insert(queue_.end(), b, b + sizeof h);
  work_.store(true, std::memory_order_release);
  wake_writer_locked();
  return true;
}

bool Outbox::flush_locked(std::unique_lock<std::mutex>& lk) {
  if (stopped_) return false;
  // A running write hands over to the writer thread when it ends, and the writer takes the queue.
  if (writing_ || queue_.empty()) return true;
  return write_queue_and(lk, nullptr);
}

bool Outbox::write_locked(std::unique_lock<std::mutex>& lk, const wire::FrameHeader& h,
                          std::span<const uint8_t> payload, std::span<const iovec> bulk, int descriptor) {
  const DirectFrame frame{h, payload, bulk, descriptor};
  return write_queue_and(lk, &frame);
}

// The frame's segments go into segments_ (under the token), not a buffer of the calling thread's:
// a library's static destructor may still call after the thread's own objects are gone.
bool Outbox::write_queue_and(std::unique_lock<std::mutex>& lk, const DirectFrame* frame) {
  while (writing_ && !stopped_) token_cv_.wait(lk);
  if (stopped_) return false;
  writing_ = true;
  batch_.swap(queue_);
  work_.store(false, std::memory_order_relaxed);
  token_cv_.notify_all();  // appenders waiting for room: the queue is empty again
  segments_.clear();
  if (!batch_.empty()) segments_.push_back(iovec{batch_.data(), batch_.size()});
  if (frame) {
    segments_.push_back(iovec{const_cast<wire::FrameHeader*>(&frame->header), sizeof frame->header});
    if (!frame->payload.empty())
      segments_.push_back(iovec{const_cast<uint8_t*>(frame->payload.data()), frame->payload.size()});
    for (const iovec& v : frame->bulk)
      if (v.iov_len) segments_.push_back(v);
  }
  lk.unlock();
  Status st = segments_.empty()                    ? Status::ok()
              : frame && frame->descriptor >= 0 ? conn_.send_bytes_with_descriptor(segments_, frame->descriptor)
                                                : conn_.send_bytes(segments_);
  lk.lock();
  batch_.clear();
  writing_ = false;
  token_cv_.notify_all();
  if (!queue_.empty()) wake_writer_locked();
  if (st.is_ok()) return true;
  stopped_ = true;
  writer_cv_.notify_all();
  lk.unlock();
  on_failure_(st.message());
  lk.lock();
  return false;
}

void Outbox::writer_loop() {
  auto lk = lock();
  while (!stopped_) {
    if (!queue_.empty() && !writing_) {
      write_queue_and(lk, nullptr);
      continue;
    }
    lk.unlock();
    poll_for(kWriterSpin, [&] { return work_.load(std::memory_order_acquire); });
    lk.lock();
    if (stopped_ || (!queue_.empty() && !writing_)) continue;
    writer_asleep_ = true;
    writer_cv_.wait(lk, [&] { return stopped_ || (!queue_.empty() && !writing_); });
    writer_asleep_ = false;
  }
}

}  // namespace rgpu::client
