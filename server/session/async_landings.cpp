// Async and striped D2H copies (see async_landings.h).
#include "server/session/async_landings.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "common/config.h"
#include "common/wire/codec.h"
#include "common/wire/copy_args.h"
#include "common/wire/frame.h"
#include "gen/cudart/cudart_api.h"
#include "server/session/bulk_copy.h"
#include "server/session/session.h"

namespace rgpu::server {
namespace {

// A piece is copied off the device, and its event recorded, before it can be sent: small enough
// that the first goes out soon, large enough that its event costs nothing against its bytes.
constexpr uint64_t kPiece = 2u << 20;
// The landing thread looks at the pending copies this often at first, backing off to the longest
// while none is done (each look is an event query per pending copy).
constexpr auto kFirstLook = std::chrono::microseconds(20);
constexpr auto kLongestLook = std::chrono::milliseconds(1);

const Tunable kIdleStagingMb{"RGPU_LANDING_STAGING_MB", "1024",
                             "pinned staging (MiB) a session keeps for async device-to-host copies between them"};

size_t staging_size(uint64_t n) {
  size_t size = 64u << 10;
  while (size < n) size <<= 1;
  return size;
}

}  // namespace

AsyncLandings::AsyncLandings(Session& session) : session_(session) {}

AsyncLandings::~AsyncLandings() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  work_.notify_all();
  moved_.notify_all();
  if (thread_.joinable()) thread_.join();
  const auto& rt = session_.backend().cudart();
  // Copies still on their streams write into their staging until they are done.
  for (auto& l : queue_) {
    if (!l->pieces.empty() && rt.cudaEventSynchronize) rt.cudaEventSynchronize(l->pieces.back().done);
    for (const Piece& p : l->pieces) idle_events_.emplace_back(l->device, p.done);
    l->pieces.clear();
    give_buffer(l->buffer);
  }
  for (auto& [device, e] : idle_events_)
    if (rt.cudaEventDestroy) rt.cudaEventDestroy(e);
  for (const Buffer& b : idle_buffers_) b.pinned ? (void)rt.cudaFreeHost(b.data) : std::free(b.data);
}

AsyncLandings::Buffer AsyncLandings::take_buffer(uint64_t n, int device) {
  {
    std::lock_guard lock(mu_);
    auto best = idle_buffers_.end();
    for (auto it = idle_buffers_.begin(); it != idle_buffers_.end(); ++it)
      if (it->device == device && it->size >= n && (best == idle_buffers_.end() || it->size < best->size)) best = it;
    if (best != idle_buffers_.end()) {
      Buffer b = *best;
      idle_bytes_ -= b.size;
      *best = idle_buffers_.back();
      idle_buffers_.pop_back();
      return b;
    }
  }
  // Pinned, so that the device copies into it are asynchronous; without pinned memory (the emulated
  // backend, or none left) a pageable buffer makes the copy complete before its call returns.
  const auto& rt = session_.backend().cudart();
  Buffer b{nullptr, staging_size(n), device, false};
  void* p = nullptr;
  if (rt.cudaMallocHost && rt.cudaFreeHost && rt.cudaMallocHost(&p, b.size) == cudaSuccess && p) {
    b.data = static_cast<uint8_t*>(p);
    b.pinned = true;
  } else {
    b.data = static_cast<uint8_t*>(std::malloc(b.size));
  }
  return b;
}

void AsyncLandings::give_buffer(Buffer b) {
  if (!b.data) return;
  static const size_t cap = static_cast<size_t>(std::max<int64_t>(kIdleStagingMb.get_int(), 0)) << 20;
  {
    std::lock_guard lock(mu_);
    if (idle_bytes_ + b.size <= cap) {
      idle_bytes_ += b.size;
      idle_buffers_.push_back(b);
      return;
    }
  }
  const auto& rt = session_.backend().cudart();
  b.pinned ? (void)rt.cudaFreeHost(b.data) : std::free(b.data);
}

cudaEvent_t AsyncLandings::take_event(int device) {
  {
    std::lock_guard lock(mu_);
    for (auto it = idle_events_.begin(); it != idle_events_.end(); ++it) {
      if (it->first != device) continue;
      cudaEvent_t e = it->second;
      *it = idle_events_.back();
      idle_events_.pop_back();
      return e;
    }
  }
  const auto& rt = session_.backend().cudart();
  cudaEvent_t e = nullptr;
  if (rt.cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess) return nullptr;
  return e;
}

void AsyncLandings::forget_device(int device) {
  std::lock_guard lock(mu_);
  std::erase_if(idle_events_, [&](const auto& e) { return e.first == device; });
  std::erase_if(idle_buffers_, [&](const Buffer& b) {
    if (b.device != device || !b.pinned) return false;
    idle_bytes_ -= b.size;
    return true;
  });
}

int32_t AsyncLandings::issue(uint64_t seq, uint32_t method, const void* src, uint64_t n, cudaStream_t stream,
                             Route route, bool sync) {
  const auto& rt = session_.backend().cudart();
  if (!rt.cudaMemcpyAsync || !rt.cudaEventRecord || !rt.cudaEventQuery || !rt.cudaEventSynchronize ||
      !rt.cudaEventCreateWithFlags)
    return cudaErrorNotSupported;
  std::unique_ptr<Landing> lp;
  {
    std::lock_guard lock(mu_);
    if (!spare_.empty()) {
      lp = std::move(spare_.back());
      spare_.pop_back();
    }
  }
  if (!lp) lp = std::make_unique<Landing>();
  Landing& l = *lp;
  l.seq = seq;
  l.method = method;
  l.device = 0;
  if (rt.cudaGetDevice) rt.cudaGetDevice(&l.device);
  l.count = n;
  l.route = route;
  l.sync = sync;
  l.state = Landing::State::kQueued;
  l.pieces.clear();
  l.buffer = take_buffer(n, l.device);
  int32_t status = l.buffer.data ? cudaSuccess : cudaErrorMemoryAllocation;
  // Pieces in the order the device copies them. Striped, the slices' pieces take turns, so that
  // every stripe has its first piece early.
  const uint32_t stripes = std::max<uint32_t>(route.stripes, 1);
  const uint64_t slice = route.stripes ? ((n + stripes - 1) / stripes + 4095) & ~uint64_t{4095} : n;
  for (uint64_t within = 0; status == cudaSuccess && within < slice; within += kPiece) {
    for (uint32_t k = 0; k < stripes && status == cudaSuccess; ++k) {
      const uint64_t start = std::min<uint64_t>(uint64_t{k} * slice + within, n);
      const uint64_t end = std::min<uint64_t>(uint64_t{k} * slice + std::min(within + kPiece, slice), n);
      if (start >= end) continue;
      Piece p{start, end - start, k, take_event(l.device)};
      status = p.done ? rt.cudaMemcpyAsync(l.buffer.data + start, static_cast<const uint8_t*>(src) + start, p.length,
                                           cudaMemcpyDeviceToHost, stream)
                      : cudaErrorMemoryAllocation;
      if (status == cudaSuccess) status = rt.cudaEventRecord(p.done, stream);
      if (status == cudaSuccess) {
        l.pieces.push_back(p);
      } else if (p.done) {
        std::lock_guard lock(mu_);
        idle_events_.emplace_back(l.device, p.done);
      }
    }
  }
  if (status == cudaSuccess && l.pieces.empty()) status = cudaErrorInvalidValue;  // nothing to copy
  if (status != cudaSuccess) {
    // Nothing of it is sent: the caller fails the call. What was issued is waited for, since it
    // writes into the staging.
    if (!l.pieces.empty()) rt.cudaEventSynchronize(l.pieces.back().done);
    Buffer b = l.buffer;
    {
      std::lock_guard lock(mu_);
      for (const Piece& p : l.pieces) idle_events_.emplace_back(l.device, p.done);
      l.pieces.clear();
      l.buffer = {};
      spare_.push_back(std::move(lp));
    }
    give_buffer(b);
    return status;
  }
  const cudaEvent_t first = l.pieces.front().done;  // l may be sent and retired once queued
  {
    std::lock_guard lock(mu_);
    if (sync) sync_failure_ = cudaSuccess;
    queue_.push_back(std::move(lp));
    pending_.store(queue_.size(), std::memory_order_release);
    if (!thread_.joinable()) thread_ = std::thread([this] { landing_thread(); });
  }
  work_.notify_one();
  // A copy on an idle stream is usually done by now: sent from here, it spares the hand-over.
  if (!sync && rt.cudaEventQuery(first) != cudaErrorNotReady) settle_here(seq + 1);
  return cudaSuccess;
}

int32_t AsyncLandings::finish_sync(uint64_t seq) {
  const auto& rt = session_.backend().cudart();
  cudaEvent_t first = nullptr;
  {
    std::lock_guard lock(mu_);
    for (auto& l : queue_)
      if (l->seq == seq && l->sync) first = l->pieces.front().done;
  }
  if (first) rt.cudaEventSynchronize(first);
  settle_here(seq + 1);
  std::lock_guard lock(mu_);
  return sync_failure_;
}

void AsyncLandings::drain() {
  if (pending_.load(std::memory_order_acquire) == 0) return;
  const auto& rt = session_.backend().cudart();
  std::vector<cudaEvent_t> last;
  {
    std::lock_guard lock(mu_);
    for (auto& l : queue_) last.push_back(l->pieces.back().done);
  }
  for (cudaEvent_t e : last) rt.cudaEventSynchronize(e);
  settle_here(UINT64_MAX);
}

AsyncLandings::Landing* AsyncLandings::claim_ready_locked(uint64_t bound) {
  const auto& rt = session_.backend().cudart();
  for (auto& l : queue_) {
    if (l->seq >= bound || l->state != Landing::State::kQueued) continue;
    if (rt.cudaEventQuery(l->pieces.front().done) == cudaErrorNotReady) continue;
    l->state = Landing::State::kClaimed;
    l->ticket = next_ticket_++;
    return l.get();
  }
  return nullptr;
}

bool AsyncLandings::others_pending_locked(uint64_t bound) const {
  return std::any_of(queue_.begin(), queue_.end(),
                     [&](const auto& l) { return l->seq < bound && l->state == Landing::State::kClaimed; });
}

void AsyncLandings::settle(uint64_t seq) {
  if (pending_.load(std::memory_order_acquire) == 0) return;
  settle_here(seq);
}

void AsyncLandings::settle_here(uint64_t bound) {
  std::unique_lock lock(mu_);
  for (;;) {
    if (Landing* l = claim_ready_locked(bound)) {
      lock.unlock();
      send(*l);
      lock.lock();
      continue;
    }
    if (!others_pending_locked(bound)) return;
    moved_.wait(lock);
  }
}

void AsyncLandings::settle_from_host_function() {
  if (pending_.load(std::memory_order_acquire) == 0) return;
  std::unique_lock lock(mu_);
  // A request of its own, whatever was issued meanwhile: the copies ahead of this host function are
  // done now, and only a pass of the landing thread that begins after this request is sure to see
  // them so (an earlier pass may have found them still on their stream). Counting issued copies
  // instead let a later host function take an earlier pass for its own (the H100's 16_host_callbacks).
  const uint64_t mine = ++settle_asked_;
  work_.notify_one();
  moved_.wait(lock, [&] { return settle_done_ >= mine || stopping_; });
}

void AsyncLandings::landing_thread() {
  auto look = kFirstLook;
  std::unique_lock lock(mu_);
  while (!stopping_) {
    if (settle_asked_ > settle_done_) {
      // Every copy that is done goes now: by the time a host function runs, the copies before it on
      // its stream (and any its stream waited for) are done, and this pass began after its request.
      const uint64_t upto = settle_asked_;
      lock.unlock();
      settle_here(UINT64_MAX);
      lock.lock();
      settle_done_ = std::max(settle_done_, upto);
      moved_.notify_all();
      continue;
    }
    if (Landing* l = claim_ready_locked(UINT64_MAX)) {
      lock.unlock();
      send(*l);
      lock.lock();
      look = kFirstLook;
      continue;
    }
    if (queue_.empty()) {
      work_.wait(lock);
      // A new copy is usually settled by the reply behind it (a synchronisation) within
      // microseconds of its issue: looking at once would race that reply for it, and the reply
      // would then sleep until this thread had sent it. So the thread looks only after a while,
      // for copies nobody settled (a host function's request is served at once).
      work_.wait_for(lock, kFirstLook, [&] { return stopping_ || settle_asked_ > settle_done_; });
      look = kFirstLook;
    } else {
      work_.wait_for(lock, look);
      look = std::min<std::chrono::microseconds>(look * 2, kLongestLook);
    }
  }
}

void AsyncLandings::send(Landing& l) {
  {
    std::unique_lock lock(mu_);
    moved_.wait(lock, [&] { return serving_ == l.ticket; });
  }
  const auto& rt = session_.backend().cudart();
  if (rt.cudaSetDevice) rt.cudaSetDevice(l.device);
  const int32_t first = rt.cudaEventSynchronize(l.pieces.front().done);
  int32_t late = cudaSuccess;
  if (first != cudaSuccess) {
    // Nothing of it went: a synchronous copy's reply says so, an async one's landing ends empty
    // and its error surfaces at the next synchronisation.
    if (l.sync) {
      std::lock_guard lock(mu_);
      sync_failure_ = first;
    } else {
      (void)session_.send(wire::FrameKind::kData, 0, l.seq, {});
      late = first;
    }
  } else {
    late = send_bytes(l);
  }
  if (late != cudaSuccess) {
    wire::Encoder e;
    e.put<int32_t>(late);
    e.put<uint32_t>(l.method);
    (void)session_.send(wire::FrameKind::kAsyncError, l.method, l.seq, e.payload());
  }
  retire(l);
}

int32_t AsyncLandings::send_bytes(Landing& l) {
  const auto& rt = session_.backend().cudart();
  // The bytes of one slice (or of the whole copy), piece by piece as the device finishes them; a
  // piece whose copy failed (a device fault meanwhile) goes as zeros.
  struct Cursor {
    Landing& l;
    uint32_t slice;
    size_t next = 0;
    int32_t status = cudaSuccess;
  };
  auto next_piece = [&rt](Cursor& c) -> std::span<const uint8_t> {
    while (c.next < c.l.pieces.size() && (c.l.pieces[c.next].slice != c.slice || !c.l.pieces[c.next].length)) ++c.next;
    if (c.next == c.l.pieces.size()) return {};
    const Piece& p = c.l.pieces[c.next++];
    int32_t st = rt.cudaEventSynchronize(p.done);
    if (c.status == cudaSuccess) c.status = st;
    if (c.status != cudaSuccess) std::memset(c.l.buffer.data + p.offset, 0, p.length);
    return {c.l.buffer.data + p.offset, p.length};
  };
  if (l.route.stripes == 0) {
    Cursor c{l, 0};
    const auto h = wire::make_header(wire::FrameKind::kData, 0, l.seq, 0, l.count);
    std::function<std::span<const uint8_t>()> next = [&] { return next_piece(c); };
    (void)session_.send_streamed(h, {}, next);
    std::lock_guard lock(mu_);
    l.state = Landing::State::kBegun;
    moved_.notify_all();
    return c.status;
  }
  // Striped: the announcement on the pipe first, then one slice per stripe, all at once.
  wire::StripedLanding marker{l.route.transfer, l.count, l.route.stripes, 0};
  Status io = session_.send(wire::FrameKind::kData, 0, l.seq, {reinterpret_cast<const uint8_t*>(&marker), sizeof marker});
  {
    std::lock_guard lock(mu_);
    l.state = Landing::State::kBegun;
  }
  moved_.notify_all();
  std::vector<transport::Connection*> conns = session_.stripes().first(l.route.stripes);
  if (!io.is_ok() || conns.size() != l.route.stripes) {
    session_.abort(io.is_ok() ? RGPU_ERROR(kProtocol, "a striped copy names more stripes than the session has") : io);
    return cudaSuccess;
  }
  const uint64_t slice = ((l.count + l.route.stripes - 1) / l.route.stripes + 4095) & ~uint64_t{4095};
  std::vector<Cursor> cursors;
  cursors.reserve(l.route.stripes);
  for (uint32_t k = 0; k < l.route.stripes; ++k) cursors.push_back(Cursor{l, k});
  std::vector<Status> results(l.route.stripes, Status::ok());
  auto move_slice = [&](size_t k) {
    if (rt.cudaSetDevice) rt.cudaSetDevice(l.device);
    const uint64_t offset = std::min<uint64_t>(k * slice, l.count);
    const uint64_t length = std::min<uint64_t>(slice, l.count - offset);
    const auto h = wire::make_header(wire::FrameKind::kData, 0, l.route.transfer, sizeof offset, length);
    std::function<std::span<const uint8_t>()> next = [&] { return next_piece(cursors[k]); };
    results[k] = send_pieces(*conns[k], h, {reinterpret_cast<const uint8_t*>(&offset), sizeof offset}, next);
  };
  if (!team_ || team_->size() < l.route.stripes) team_ = std::make_unique<WorkerTeam>(l.route.stripes);
  team_->run(l.route.stripes, move_slice);
  int32_t status = cudaSuccess;
  for (uint32_t k = 0; k < l.route.stripes; ++k) {
    if (!results[k].is_ok()) {
      session_.abort(results[k]);
      return cudaSuccess;
    }
    if (status == cudaSuccess) status = cursors[k].status;
  }
  session_.count_striped(0, l.count);
  return status;
}

void AsyncLandings::retire(Landing& l) {
  Buffer b = l.buffer;
  {
    std::lock_guard lock(mu_);
    for (const Piece& p : l.pieces) idle_events_.emplace_back(l.device, p.done);
    l.pieces.clear();
    l.buffer = {};
    auto it = std::find_if(queue_.begin(), queue_.end(), [&](const auto& q) { return q.get() == &l; });
    spare_.push_back(std::move(*it));
    queue_.erase(it);
    pending_.store(queue_.size(), std::memory_order_release);
    ++serving_;
  }
  moved_.notify_all();
  give_buffer(b);
}

}  // namespace rgpu::server
