// The session's input, lent to waiting host functions (see session_input.h).
#include "server/session/session_input.h"

#include <cstring>
#include <string>
#include <utility>

namespace rgpu::server {

void SessionInput::lend() {
  // Only from kReading: nobody but the session thread changes the state then.
  state_.store((++lends_ << 2) | kLent, std::memory_order_release);
}

void SessionInput::reclaim() {
  const uint64_t lent = (lends_ << 2) | kLent;
  for (;;) {
    uint64_t seen = lent;
    if (state_.compare_exchange_strong(seen, lends_ << 2 | kReading, std::memory_order_acq_rel)) return;
    // A waiter is reading a frame (or the rest of a streamed call's bulk): it puts the input back,
    // as `lent`, when it is done with that one.
    state_.wait(seen, std::memory_order_acquire);
  }
}

bool SessionInput::take_stashed(Stashed* out) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stash_.empty()) return false;
  *out = std::move(stash_.front());
  stash_.pop_front();
  stashed_.fetch_sub(1, std::memory_order_relaxed);
  return true;
}

Status SessionInput::callback_returned(const wire::FrameHeader& h) {
  if (h.payload_len != 0 || h.bulk_len != 0)
    return RGPU_ERROR(kProtocol, "a host callback's acknowledgement with " + std::to_string(h.payload_len) +
                                     " bytes of payload and " + std::to_string(h.bulk_len) + " of bulk (it has none)");
  std::lock_guard<std::mutex> lock(mu_);
  return apply_return(h.seq);
}

Status SessionInput::apply_return(uint64_t number) {
  const uint64_t sent = sent_.load(std::memory_order_relaxed);
  if (number != returned_ + 1 || number > sent)
    return RGPU_ERROR(kProtocol, "the client acknowledged host callback " + std::to_string(number) + ", expected " +
                                     (returned_ < sent ? std::to_string(returned_ + 1)
                                                       : std::string("none (") + std::to_string(sent) + " sent)"));
  returned_ = number;
  returned_cv_.notify_all();
  return Status::ok();
}

void SessionInput::end() {
  std::lock_guard<std::mutex> lock(mu_);
  ended_ = true;
  returned_cv_.notify_all();
}

bool SessionInput::ended() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ended_;
}

bool SessionInput::wait_returned(uint64_t number) {
  const bool on_session_thread = std::this_thread::get_id() == session_thread_;
  uint64_t seen = kReading;  // the state at the last look (never equal to a lent state)
  std::unique_lock<std::mutex> lock(mu_);
  while (returned_ < number && !ended_) {
    lock.unlock();
    const uint64_t now = state_.load(std::memory_order_acquire);
    const bool lent = (now & kModeMask) == kLent;
    if (on_session_thread && !lent) {
      // A host function run by the session thread outside a call (no backend does that): nobody
      // could read the acknowledgement, so waiting would never end. The stream goes on at once.
      return false;
    }
    // The session thread is inside the same call as a look ago (it may be waiting for this very
    // host function), or this is the session thread: read for it. Otherwise it reads, or will
    // within its call; look again in a while.
    if (lent && (on_session_thread || now == seen)) {
      pump(now);
      lock.lock();
      continue;
    }
    seen = now;
    lock.lock();
    returned_cv_.wait_for(lock, kLook, [&] { return returned_ >= number || ended_; });
  }
  return returned_ >= number;
}

void SessionInput::pump(uint64_t lent) {
  uint64_t expected = lent;
  if (!state_.compare_exchange_strong(expected, (lent & ~uint64_t{kModeMask}) | kPumping, std::memory_order_acquire))
    return;  // the session thread took the input back meanwhile (or another waiter has it)
  if (!failed_.load(std::memory_order_relaxed)) {
    Status st = Status::ok();
    if (streamed_ && streamed_->left_ > 0 && !streamed_->spilled_all_) {
      st = streamed_->spill();
    } else {
      // One frame, if one comes within a look: a waiter must not keep the input from a session
      // thread that wants it back longer than that. A connection without a descriptor (the tests'
      // scripted ones, which never block) is simply read.
      if (conn_.wait_input(kLook)) st = read_one();
    }
    if (!st.is_ok()) fail(std::move(st));
  }
  state_.store(lent, std::memory_order_release);
  state_.notify_all();
}

Status SessionInput::read_one() {
  wire::FrameHeader h;
  RGPU_TRY(conn_.recv_header(h));
  if (h.kind == static_cast<uint16_t>(wire::FrameKind::kCallbackReturned)) return callback_returned(h);
  Stashed f;
  f.header = h;
  f.payload.resize(h.payload_len);
  RGPU_TRY(conn_.recv_exact(f.payload.data(), f.payload.size()));
  f.bulk.resize(h.bulk_len);
  RGPU_TRY(conn_.recv_exact(f.bulk.data(), f.bulk.size()));
  {
    std::lock_guard<std::mutex> lock(mu_);
    stash_.push_back(std::move(f));
  }
  stashed_.fetch_add(1, std::memory_order_release);
  return Status::ok();
}

void SessionInput::fail(Status why) {
  failed_.store(true, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mu_);
    Stashed s;
    s.failure = std::move(why);
    stash_.push_back(std::move(s));
    ended_ = true;  // no acknowledgement can come any more
    returned_cv_.notify_all();
  }
  stashed_.fetch_add(1, std::memory_order_release);
}

SessionInput::StreamedBulk::StreamedBulk(SessionInput& input, uint64_t n) : input_(input), left_(n) {
  input_.streamed_ = this;  // the session thread, holding the input
}

SessionInput::StreamedBulk::~StreamedBulk() { input_.streamed_ = nullptr; }

Status SessionInput::StreamedBulk::read(void* dst, size_t n) {
  if (n > left_) return RGPU_ERROR(kProtocol, "a handler read past its call's bulk data");
  return kept(take(dst, n));
}

Status SessionInput::StreamedBulk::skip(uint64_t n) {
  if (n > left_) return RGPU_ERROR(kProtocol, "a handler skipped past its call's bulk data");
  return kept(take(nullptr, n));
}

Status SessionInput::StreamedBulk::finish() {
  if (status_.is_ok() && left_ > 0) (void)skip(left_);
  return status_;
}

// The handler reads while the input is lent (inside its call's execution): it takes the input back
// for the read, and lends it again after, as a new lend (the call goes on: no waiter reads in its
// place before it stops for a look).
Status SessionInput::StreamedBulk::take(void* dst, uint64_t n) {
  const bool lent = (input_.state_.load(std::memory_order_relaxed) & kModeMask) != kReading;
  if (lent) input_.reclaim();
  Status st = status_;
  if (st.is_ok()) {
    if (spilled_all_) {
      if (dst) std::memcpy(dst, spilled_.data() + spilled_at_, n);
      spilled_at_ += n;
    } else {
      st = dst ? input_.conn_.recv_exact(dst, n) : input_.conn_.skip(n);
    }
  }
  left_ -= n;
  if (lent) input_.lend();
  return st;
}

Status SessionInput::StreamedBulk::kept(Status st) {
  if (!st.is_ok() && status_.is_ok()) status_ = st;
  return st;
}

Status SessionInput::StreamedBulk::spill() {
  spilled_.resize(left_);
  spilled_at_ = 0;
  spilled_all_ = true;
  Status st = input_.conn_.recv_exact(spilled_.data(), spilled_.size());
  if (!st.is_ok()) status_ = st;  // the handler's next read fails with it
  return st;
}

}  // namespace rgpu::server
