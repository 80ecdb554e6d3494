// The process's one ordered call pipe to rgpud: connects lazily on first use, numbers and queues
// frames in one order for all threads (the Outbox writes them, batched), and runs a receiver thread
// that hands replies to waiting callers, lands asynchronous D2H data in user memory, runs host
// callbacks and copies the server's device printf output to stdout.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/status.h"
#include "common/wire/codec.h"
#include "common/wire/frame.h"
#include "client/runtime/host_rows.h"
#include "client/runtime/outbox.h"
#include "transports/handshake.h"
#include "transports/transport.h"

namespace rgpu::wire {
struct StripedLanding;
}

namespace rgpu::client {

// A caller blocked on one reply. Lives on the caller's stack; registered by seq before sending.
struct Waiter {
  std::vector<uint8_t>* payload = nullptr;  // receives the reply payload
  void* bulk_dst = nullptr;                 // receives the reply bulk (exactly bulk_len bytes)
  size_t bulk_len = 0;
  std::atomic<bool> done{false};
  bool lost = false;  // the connection went away before the reply came
  bool read_back_follows = false;  // the call's frame says so (wire::kFlagReadBackFollows)
};

// What the pipe carried, for RGPU_STATS=1 and the round-trip tests.
struct PipeStats {
  std::atomic<uint64_t> async_calls{0};  // sent without waiting
  std::atomic<uint64_t> round_trips{0};  // waited for a reply (sync calls, module loads)
  std::atomic<uint64_t> waited_ns{0};    // the time callers spent waiting for those (RGPU_STATS=1 only)
  std::atomic<uint64_t> signalled{0};    // of the round trips, waits answered by a stream signal (stream_signals.h)
};

class Pipe {
 public:
  // The pipe, connected on first use. Never destroyed (it must outlive every static destructor
  // that might still call CUDA).
  static Pipe& get();

  // False when no session could be made; the reason was printed once.
  bool available() const { return conn_ != nullptr && !broken_.load(std::memory_order_acquire); }
  // The session was made and then lost (the server went away, or stopped answering).
  bool lost() const { return conn_ != nullptr && broken_.load(std::memory_order_acquire) && !forked_child_; }
  // This process is a fork() child of the one that made the session. The session stays the
  // parent's: here every call fails, as CUDA's do in a child forked after initialisation
  // (cudaErrorInitializationError), and nothing is sent, shut down or waited for on its
  // connection, which the parent still uses.
  bool forked_child() const { return forked_child_; }
  const transport::Welcome& welcome() const { return welcome_; }
  const std::string& server_address() const { return server_address_; }
  // Whether the call pipe runs over TLS (transports/tls/tls_session.h).
  bool encrypted() const { return conn_ && conn_->encrypted(); }
  // Who this process is, for a handshake with rgpud (the pipe's, or a stripe's).
  transport::ClientIdentity identity() const;

  // Sends one call frame. With a waiter, registers it first so the reply finds it.
  // landing/landing_len: an async D2H destination, filled by a later kData frame with this seq.
  // `device` is the calling thread's current device: the pipe switches the server to it first.
  // `descriptor`: one the server receives with the call (Outbox::write_locked), or -1.
  // `now`: a call without a reply that its caller waits behind all the same (a stream signal) is
  // written at once, as a call with a reply is.
  bool send_call(uint32_t id, const wire::Encoder& args, int device, Waiter* waiter, void* landing = nullptr,
                 size_t landing_len = 0, int descriptor = -1, bool now = false);
  // Whether send_call can carry a descriptor: the pipe runs over a Unix socket.
  bool carries_descriptors() const { return carries_descriptors_; }
  // Sends a control message (module upload) for `device` and waits for the control reply with the
  // same seq.
  bool control_round_trip(uint32_t type, std::span<const uint8_t> payload, int device, std::vector<uint8_t>* reply);
  // Blocks until the waiter's reply (or the loss of the connection) arrives.
  void wait(Waiter& waiter);
  // The same for a call sent right behind one the caller has already waited for: its reply was
  // on the way meanwhile, so it counts as no round trip of its own.
  void wait_behind(Waiter& waiter);
  // Waits until no async D2H still in flight lands in [p, p+n): a host range must not be read
  // for an H2D copy while an earlier D2H is still writing it.
  void wait_landings(const void* p, size_t n);
  // Whether bytes may still come on the pipe that a synchronisation must wait for: an async D2H
  // in flight, or a graph's D2H mirror that lands at each launch. A read, no lock.
  bool deliveries_pending() const {
    return landings_count_.load(std::memory_order_acquire) != 0 || has_mirrors_.load(std::memory_order_acquire);
  }
  // How long a caller polls for its reply (or a stream signal's word) before it sleeps
  // (RGPU_REPLY_POLL_US).
  static std::chrono::microseconds reply_poll();

  // The first error reported by an asynchronous call since the last take, or 0.
  int32_t take_async_error() { return async_error_.exchange(0); }
  int32_t peek_async_error() const { return async_error_.load(); }

  const PipeStats& stats() const { return stats_; }
  // A stream wait through a stream signal counts as a round trip, as on the server; `answered`: its
  // word said the work is done.
  void count_signal_wait(bool answered) {
    stats_.round_trips.fetch_add(1, std::memory_order_relaxed);
    if (answered) stats_.signalled.fetch_add(1, std::memory_order_relaxed);
  }

  // Whether a call has run on `device` for this process: the server's context there is in use
  // (what cuDevicePrimaryCtxGetState reports as active). Device snapshots and error texts need no
  // context and do not count.
  bool device_used(int device) const {
    return device >= 0 && device < 64 && (used_devices_.load(std::memory_order_relaxed) >> device & 1);
  }

  // Host callbacks (cudaLaunchHostFunc, cudaStreamAddCallback) run on the receiver thread when the
  // server reaches them in stream order, and the stream goes on when the receiver says they
  // returned; the id travels, never the function pointer.
  // A persistent callback stays registered: it was captured into a graph and runs at each launch.
  uint64_t register_callback(std::function<void()> fn, bool persistent = false);
  // Where the bytes of a captured (or added) D2H copy's mirror land each time its graph runs: rows
  // apart from one another take the packed bytes row by row.
  void register_mirror(uint64_t mirror, const HostRows& dst);

 private:
  Pipe();
  void connect();
  void receive_loop();
  // Ends the session once the server has sent nothing, not even a heartbeat, for
  // RGPU_PEER_TIMEOUT_S (transports/liveness.h): every waiting and later call then fails.
  void watch_server();
  // Puts the server on `device` ahead of the next frame (the outbox lock held).
  bool switch_device_locked(std::unique_lock<std::mutex>& lk, int device);
  void fail_all(const std::string& why);
  // Removes and returns the waiter of reply `seq` (null if none waits for it).
  Waiter* take_waiter(uint64_t seq);
  using Landing = HostRows;
  void land(std::unordered_map<uint64_t, Landing>& table, uint64_t key, uint64_t bulk_len, bool once);
  // A striped D2H copy of call `seq` announced itself: its slices land from the stripes now.
  bool land_striped(uint64_t seq, const wire::StripedLanding& marker);
  // Runs the callback of a kCallback frame, then acknowledges it (kCallbackReturned, same number).
  void run_callback(uint64_t number, std::span<const uint8_t> payload);

  std::unique_ptr<transport::Connection> conn_;
  bool carries_descriptors_ = false;
  transport::Welcome welcome_;
  std::string server_address_;
  std::atomic<bool> broken_{false};
  std::atomic<uint32_t> polling_{0};  // callers polling for a reply now (Connection::spin_while)
  // Set in a fork() child (pthread_atfork), with broken_: its only writer runs before any thread.
  bool forked_child_ = false;
  static void after_fork_in_child();
  std::atomic<int32_t> async_error_{0};
  PipeStats stats_;

  std::unique_ptr<Outbox> outbox_;  // its lock orders the calls of all threads
  uint64_t next_seq_ = 1;
  int pipe_device_ = 0;  // the device the server executes this pipe's calls on
  // An asynchronous call went since the last call that waits (under the outbox's lock; send_call).
  bool in_async_run_ = false;
  std::atomic<uint64_t> used_devices_{0};  // bit d: device_used(d)
  void mark_used(int device) {  // a plain load first: the hot path writes nothing once the bit is set
    if (device >= 0 && device < 64 && !device_used(device))
      used_devices_.fetch_or(uint64_t{1} << device, std::memory_order_relaxed);
  }

  std::mutex wait_mu_;
  std::condition_variable wait_cv_;
  // Callers waiting for a reply, by seq: one per waiting thread at most, so a flat list that keeps
  // its capacity serves without an allocation per call.
  std::vector<std::pair<uint64_t, Waiter*>> waiters_;
  std::unordered_map<uint64_t, Landing> landings_;
  std::atomic<size_t> landings_count_{0};  // landings_.size(), for wait_landings' look without the lock
  // After any change to landings_ (wait_mu_ held): keeps landings_count_ its size.
  void landings_changed_locked() { landings_count_.store(landings_.size(), std::memory_order_release); }
  struct Callback {
    std::function<void()> fn;
    bool persistent;
  };
  std::unordered_map<uint64_t, Callback> callbacks_;
  std::unordered_map<uint64_t, Landing> mirrors_;
  std::atomic<bool> has_mirrors_{false};  // !mirrors_.empty(): registered once, kept for good
  uint64_t next_callback_ = 1;
};

}  // namespace rgpu::client
