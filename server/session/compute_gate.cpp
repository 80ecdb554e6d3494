// The compute gate (see compute_gate.h).
#include "server/session/compute_gate.h"

#include <algorithm>

#include "common/config.h"
#include "common/log_event.h"
#include "gen/cudart/cudart_api.h"
#include "server/backends/backend.h"
#include "server/session/handle_table.h"
#include "server/session/swap_space.h"

namespace rgpu::server {

namespace {

// The pauses after which a holder others wait for gives its turn back. Among equals a turn given
// back goes round the others before it returns, so the pause must outlast the client's own round
// trip between a sync and its next launches, jitter included: on the H200 machine, four equal
// tenants syncing every eight 10 us kernels lost 9-10 % of the GPU to turns given back at 100 us,
// 7 % at 300 us and 6 % at 1 ms (docs/pool-results.md). A turn left to lower priorities is taken
// back at the holder's next call, so there the pause is short: the gaps between a high-priority
// tenant's requests go to the ones below it (at 300 us a time-sliced low tenant kept 62 % of its
// solo rate beside 200 us requests 2 ms apart, at 100 us 77-78 %).
const Tunable kHandbackIdle{"RGPU_HANDBACK_IDLE_US", "100",
                            "a sliced session whose turn only lower priorities wait for gives it back once its client "
                            "has sent nothing for this many microseconds (rgpud's workers; 10..1000000)"};
const Tunable kHandbackIdlePeer{"RGPU_HANDBACK_IDLE_PEER_US", "300",
                                "a sliced session whose turn a session of its own priority (or above) waits for gives "
                                "it back once its client has sent nothing for this many microseconds (10..1000000)"};

std::chrono::microseconds microseconds_of(const Tunable& t) {
  return std::chrono::microseconds(std::clamp<int64_t>(t.get_int(), 10, 1000000));
}

}  // namespace

// Waits until everything the session submitted has completed, in the relaxed capture mode, so that
// the wait is not itself an unsafe call during the session thread's capture. CUDA forbids
// synchronizing a device while one of its streams captures (the capture is invalidated), so while
// one does, each stream that is not capturing is synchronized instead. Not the legacy stream: its
// implicit synchronization with the other blocking streams may count as touching the capture (work
// left on it then completes beside the next holder's). A capture on the session thread's per-thread
// default stream cannot be seen from the gate's thread.
void ComputeGate::drain() const {
  const gen::cudart::Api& rt = backend_.cudart();
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  const bool exchanged =
      rt.cudaThreadExchangeStreamCaptureMode && rt.cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess;
  auto capturing = [&rt](void* stream) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    return rt.cudaStreamIsCapturing(static_cast<cudaStream_t>(stream), &status) == cudaSuccess &&
           status != cudaStreamCaptureStatusNone;
  };
  bool any_capturing = false;
  if (handles_ && rt.cudaStreamIsCapturing && rt.cudaStreamSynchronize)
    handles_->for_each(HandleKind::kStream, [&](void* stream) { any_capturing = any_capturing || capturing(stream); });
  if (!any_capturing) {
    if (rt.cudaDeviceSynchronize) (void)rt.cudaDeviceSynchronize();
  } else {
    handles_->for_each(HandleKind::kStream, [&](void* stream) {
      if (!capturing(stream)) (void)rt.cudaStreamSynchronize(static_cast<cudaStream_t>(stream));
    });
  }
  if (exchanged) rt.cudaThreadExchangeStreamCaptureMode(&mode);
}

ComputeGate::ComputeGate(const PoolLink& link, Backend& backend, std::chrono::milliseconds idle_release)
    : link_(link),
      backend_(backend),
      idle_release_(idle_release),
      handback_idle_(microseconds_of(kHandbackIdle)),
      handback_idle_peer_(microseconds_of(kHandbackIdlePeer)) {}

bool ComputeGate::enter() {
  std::unique_lock<std::mutex> lock(mu_);
  if (stopped_) return false;
  // A loop, not one wait: a turn granted while this thread was not scheduled can be taken back
  // (idle release, revoke) before it wakes, and the grant cleared wanted_; it must want again.
  // While the gate thread is taking the turn back (yielding_), the next call waits for it rather
  // than re-taking the mutex first: std::mutex is not fair, and a session thread running call after
  // call (each a bounded drain long) kept a revoke waiting for milliseconds on the H200.
  while (!unscheduled_ && (!held_ || yielding_.load())) {
    // A sovereign takes the turn now; the parent grants it at once anyway. Not while a turn is
    // being given back (its Released must reach the parent first), nor on an over-committed GPU
    // (swap_), where the parent grants a turn only once the session's whole slice has room.
    if (sovereign_ && !held_ && !wanted_ && !releasing_ && !yielding_ && !swap_) {
      held_ = true;
      granted_at_ = Clock::now();
      hurried_ = true;  // until the grant's hint: give the GPU back as soon as the client pauses
      bounded_ = peer_ = false;
      (void)link_.send(LinkMessage(LinkKind::kWant));
      break;
    }
    if (!wanted_) {
      wanted_ = true;
      // A holder's Want goes out after its Released (release() sends it).
      if (!releasing_ && !held_) (void)link_.send(LinkMessage(LinkKind::kWant));
    }
    cv_.wait(lock);
    if (stopped_) return false;
  }
  // Written only here, under mu_; the gate thread only reads it: no locked increment per call.
  calls_.store(calls_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  session_lock_ = std::move(lock);
  return true;
}

void ComputeGate::leave() {
  // Bounded: the call's work completes inside the call, so at most one call's kernels are ever on
  // the GPU when a higher priority takes the turn.
  if (bounded_) drain();
  session_lock_.unlock();
}

void ComputeGate::release(bool revoked) {
  Clock::time_point granted;
  {
    yielding_.store(true);
    std::lock_guard<std::mutex> lock(mu_);  // waits for the call in progress
    yielding_.store(false);
    if (!held_) {
      cv_.notify_all();
      return;
    }
    held_ = false;
    releasing_ = true;
    granted = granted_at_;
  }
  // Outside the lock: the session thread may queue a Want meanwhile (sent below, after Released,
  // so the parent never sees a Want from its holder).
  drain();
  auto held = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - granted);
  LinkMessage done(LinkKind::kReleased);
  done.value = static_cast<uint64_t>(held.count());
  done.ok = revoked;
  (void)link_.send(done);
  std::lock_guard<std::mutex> lock(mu_);
  releasing_ = false;
  if (wanted_) (void)link_.send(LinkMessage(LinkKind::kWant));
}

void ComputeGate::set_swap(SwapSpace* swap, std::function<void()> report, std::function<void(const Status&)> lost) {
  swap_ = swap;
  report_ = std::move(report);
  lost_ = std::move(lost);
}

void ComputeGate::swap_out() {
  LinkMessage reply(LinkKind::kSwapped);
  {
    std::lock_guard<std::mutex> lock(mu_);  // no call starts meanwhile
    // Busy again since the parent decided (a call waits for a turn): it stays.
    if (swap_ && !held_ && !wanted_ && !releasing_ && !stopped_) {
      const auto start = Clock::now();
      Result<uint64_t> moved = swap_->swap_out();
      reply.ok = moved.is_ok();
      if (moved.is_ok()) {
        reply.value = *moved;
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        log_event(LogLevel::kInfo, "swap_out", 0, {{"bytes", *moved}, {"ms", ms}},
                  "swapped %.1f MiB out to host memory in %.1f ms", static_cast<double>(*moved) / (1 << 20), ms);
      } else {
        log_event(LogLevel::kWarn, "swap_out_failed", 0, {{"reason", moved.status().message()}},
                  "swap-out failed, the session stays on the GPU: %s", moved.status().message().c_str());
      }
    }
  }
  if (report_) report_();
  (void)link_.send(reply);
}

void ComputeGate::serve(const std::function<void(const LinkMessage&)>& on_reslice,
                        const std::function<void()>& every_second) {
  uint64_t calls_seen = 0;
  Clock::time_point last_call = Clock::now();
  Clock::time_point next_second = last_call + std::chrono::seconds(1);
  const std::chrono::microseconds tick = std::max(std::chrono::milliseconds(1), idle_release_ / 2);
  for (;;) {
    if (stopped_ || unscheduled_) return;
    const bool held = held_, hurried = hurried_;
    const std::chrono::microseconds handback = peer_ ? handback_idle_peer_ : handback_idle_;
    Result<LinkMessage> m = link_.receive(!held ? std::chrono::microseconds(std::chrono::seconds(1))
                                                : hurried ? handback / 2 : tick);
    const Clock::time_point now = Clock::now();
    if (now >= next_second) {
      every_second();
      next_second = now + std::chrono::seconds(1);
    }
    if (!m.is_ok()) {
      if (m.status().code() != Code::kUnavailable) {
        std::lock_guard<std::mutex> lock(mu_);
        if (!stopped_) RGPU_LOG_WARN("compute gate: %s; the session runs unscheduled from now on", m.status().message().c_str());
        unscheduled_ = true;
        cv_.notify_all();
        return;
      }
      // No message: a holder whose client sent nothing for idle_release, and waits for nothing
      // on the GPU, gives its turn back.
      if (held) {
        const uint64_t activity = calls_ + waits_ended_;
        if (activity != calls_seen) {
          calls_seen = activity;
          last_call = now;
        } else if (waits_ == 0 && now - last_call >= (hurried ? handback : std::chrono::microseconds(idle_release_))) {
          release(false);
        }
      }
      continue;
    }
    switch (m->kind) {
      case LinkKind::kGrant: {
        bool idle = false, restored = false;
        {
          std::lock_guard<std::mutex> lock(mu_);
          if (held_) break;  // a sovereign's, which took its turn already
          // A swapped-out session's memory comes back before its first call (the parent made room).
          if (swap_ && swap_->swapped()) {
            const auto start = Clock::now();
            const uint64_t bytes = swap_->host_bytes();
            Status st = swap_->swap_in();
            if (!st.is_ok()) {
              log_event(LogLevel::kError, "swap_in_failed", 0, {{"reason", st.message()}}, "swap-in failed: %s",
                        st.message().c_str());
              stopped_ = true;
              cv_.notify_all();
              if (lost_) lost_(RGPU_ERROR(kUnavailable, "the session's device memory could not be brought back from host memory: " +
                                                            st.message()));
              break;
            }
            // `rgpu bench pool --overcommit` reads this line and the swap-out's (pool_report.h).
            const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
            log_event(LogLevel::kInfo, "swap_in", 0, {{"bytes", bytes}, {"ms", ms}},
                      "swapped %.1f MiB back in from host memory in %.1f ms", static_cast<double>(bytes) / (1 << 20), ms);
            restored = true;
          }
          held_ = true;
          hurried_ = bounded_ = peer_ = false;  // until this turn's hint
          idle = !wanted_;
          wanted_ = false;
          granted_at_ = now;
          calls_seen = calls_ + waits_ended_;
          last_call = now;
          cv_.notify_all();
        }
        if (restored && report_) report_();
        // The arbiter queues a revoked session again by itself; granted with nothing to run, the
        // turn goes straight back rather than idling for idle_release.
        if (idle) release(false);
        break;
      }
      case LinkKind::kRevoke:
        release(true);
        break;
      case LinkKind::kSwapOut:
        swap_out();
        break;
      case LinkKind::kHint:
        // Without the lock (a call may be draining): a bound set mid-call applies from its end on.
        hurried_ = m->ok;
        bounded_ = (m->value & kHintBounded) != 0;
        peer_ = (m->value & kHintPeer) != 0;
        break;
      case LinkKind::kSovereign:
        sovereign_ = m->ok;
        break;
      case LinkKind::kReslice:
        on_reslice(*m);
        break;
      default:
        RGPU_LOG_WARN("compute gate: unexpected %s from rgpud", link_kind_name(m->kind));
    }
  }
}

void ComputeGate::stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  cv_.notify_all();
}

}  // namespace rgpu::server
