// A sliced session's compute gate, in its worker: the client's calls reach the GPU only while the
// session holds its GPU's turn, which rgpud's parent grants and revokes (server/pool/
// compute_arbiter.h). Because the worker executes every call of its client in order on the session
// thread, gating that thread gates everything the client can do (launches, copies, graphs, library
// calls), however many streams or threads the client uses, and nothing the client sets or links
// can avoid it.
//
// The session thread brackets each call with enter()/leave(): one uncontended mutex while the turn
// is held, so a lone tenant pays next to nothing. serve() runs on the gate's own thread: it takes
// the parent's messages, and when the turn is revoked, or the client has sent nothing for
// `idle_release`, it waits for the call in progress, stops the session thread at its next call,
// waits until the session's work on the GPU has completed (Backend::drain) and reports how long the
// turn held the GPU: the grant to that completion, exactly the GPU time no other session could use.
//
// The parent's hints shape a turn (compute_arbiter.h): hurried (another session waits), the holder
// gives the turn back once its client has sent nothing for a short pause (longer when the one
// waiting is of its own priority) instead of idle_release;
// bounded (a higher priority is active on the GPU), each call's work completes before the next call
// runs, so a preempting session waits for at most one call's kernels, not for a backlog. A
// sovereign session (the GPU's one top priority under MPS, compute_arbiter.h) takes its turn at
// its first call and tells the parent, instead of waiting for a grant: a grant that finds it
// holding is ignored. Not on an over-committed GPU, where a turn also waits for memory room.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

#include "common/status.h"
#include "server/session/pool_link.h"

namespace rgpu::server {

class Backend;
class HandleTable;
class SwapSpace;

class ComputeGate {
 public:
  using Clock = std::chrono::steady_clock;

  ComputeGate(const PoolLink& link, Backend& backend, std::chrono::milliseconds idle_release);

  // Session thread: waits for the turn, then holds the gate until leave(). False (and nothing
  // held) once the gate is stopped: the session is ending, the call is not to run.
  bool enter();
  void leave();
  // A wait of the client's on its own GPU work (a stream, event or device synchronisation) begins
  // and ends; any thread. While one is in progress the client is not idle, only waiting for its
  // turn's work, so neither idle release takes the turn back; its end counts as the client's
  // activity. (A hurried turn released in every sync of a loop of short kernels spent more time
  // handing over than computing: 10 us kernels synced every 8 lost 17 % of the GPU on the H200.)
  void wait_begins() { waits_.fetch_add(1, std::memory_order_relaxed); }
  void wait_ends() {
    waits_ended_.fetch_add(1, std::memory_order_relaxed);
    waits_.fetch_sub(1, std::memory_order_relaxed);
  }

  // Gate thread: serves the parent's messages until the link closes or stop(). `on_reslice` gets
  // each live change of the slice; `every_second` runs about once a second (memory reports).
  void serve(const std::function<void(const LinkMessage&)>& on_reslice, const std::function<void()>& every_second);
  // Ends serve() and lets a session thread waiting in enter() go: the session is ending.
  void stop();

  // Memory over-commit: the parent's SwapOut moves the session's movable memory to the host while
  // it holds no turn and no call waits (answered by Swapped, after `report` has sent the new memory
  // figures); the next grant brings it back before any call runs. `lost` ends the session when its
  // memory cannot come back. Set before serve().
  void set_swap(SwapSpace* swap, std::function<void()> report, std::function<void(const Status&)> lost);
  // The session's streams, which a drain synchronizes one by one while one of them captures (a
  // device-wide synchronization would invalidate that capture). Set before the first call.
  void set_streams(const HandleTable* handles) { handles_ = handles; }

 private:
  void release(bool revoked);
  void swap_out();
  void drain() const;

  const PoolLink& link_;
  Backend& backend_;
  const std::chrono::milliseconds idle_release_;
  // A hurried holder's idle release (its gate thread looks twice as often): when only lower
  // priorities wait, and when a peer does (compute_gate.cpp says why they differ).
  const std::chrono::microseconds handback_idle_;
  const std::chrono::microseconds handback_idle_peer_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::unique_lock<std::mutex> session_lock_;  // the session thread's, between enter() and leave()
  // Written under mu_; the gate thread's loop reads the atomic ones without it, since the session
  // thread holds mu_ through a whole call (a bounded call's drain included): a loop that took mu_ to
  // look would wait for the call in progress before it could read the parent's next message.
  std::atomic<bool> held_{false};
  bool wanted_ = false;     // the session thread waits for a turn
  bool releasing_ = false;  // the gate thread is draining: it sends the Want after its Released
  std::atomic<bool> stopped_{false};      // the session is ending: no call runs any more
  std::atomic<bool> unscheduled_{false};  // the parent is gone: calls run without turns
  std::atomic<bool> yielding_{false};  // the gate thread waits for the mutex to end the turn
  std::atomic<bool> hurried_{false};  // the turn's hints (reset by each grant)
  std::atomic<bool> bounded_{false};
  std::atomic<bool> peer_{false};
  std::atomic<bool> sovereign_{false};  // as the parent last said (kept across turns)
  Clock::time_point granted_at_{};
  std::atomic<uint64_t> calls_{0};  // calls entered, to tell an idle holder
  std::atomic<int> waits_{0};                // the client's waits in progress
  std::atomic<uint64_t> waits_ended_{0};     // waits ended, activity as calls are
  const HandleTable* handles_ = nullptr;
  SwapSpace* swap_ = nullptr;
  std::function<void()> report_;
  std::function<void(const Status&)> lost_;
};

}  // namespace rgpu::server
