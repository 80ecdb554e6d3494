// One client's session, run inside its own worker process: reads the client's frames in order,
// executes each call against the backend (blocking waits on helper threads, so other client
// threads are not held up), and sends replies, data, callbacks and device printf output back.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
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
#include "server/backends/backend.h"
#include "server/session/async_landings.h"
#include "server/session/blocking_pool.h"
#include "server/session/call_context.h"
#include "server/session/call_profile.h"
#include "server/session/compute_gate.h"
#include "server/session/error_log.h"
#include "server/session/memory_slice.h"
#include "common/worker_team.h"
#include "server/session/staging_ring.h"
#include "server/session/pool_shares.h"
#include "server/session/stripe_set.h"
#include "server/session/swap_space.h"
#include "server/session/handle_table.h"
#include "server/session/host_extension.h"
#include "server/session/mapped_mirrors.h"
#include "server/session/output_capture.h"
#include "server/session/session_input.h"
#include "server/session/shared_host.h"
#include "transports/transport.h"

namespace rgpu::server {

// A count that one thread at a time adds to and any thread reads (the worker reports the traffic
// counts to rgpud's parent from another thread: server/daemon/worker.cpp). A relaxed load and store
// are plain moves: no locked instruction, no system call on a call's path, and no data race.
class TrafficCounter {
 public:
  void add(uint64_t n) { v_.store(v_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed); }
  uint64_t get() const { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> v_{0};
};

struct SessionStats {
  TrafficCounter calls;        // session thread
  TrafficCounter round_trips;  // session thread: calls and module loads the client waits for
  TrafficCounter bytes_in;     // session thread
  TrafficCounter bytes_out;    // under the send lock
  uint64_t live_allocations = 0;
  uint64_t live_bytes = 0;
  uint64_t peak_bytes = 0;
};

// A sliced session's limits (a whole-GPU session has none): its memory slice in bytes and the gate
// of its GPU turns.
struct SessionLimits {
  uint64_t memory = 0;
  ComputeGate* gate = nullptr;
  SwapSpace* swap = nullptr;  // its GPU is over-committed: large allocations are movable
  uint64_t memory_host = 0;   // the memory extension past the slice (host_extension.h)
};

class Session {
 public:
  Session(uint64_t id, transport::Connection& conn, Backend& backend, OutputCapture* output,
          SessionLimits limits = {});

  // Serves the client until it goes away; returns why the session ended (ok = orderly close).
  Status run();

  Backend& backend() { return backend_; }
  // Whether work done without error is all a wait has to learn here: no synchronising call has
  // more to do in this session (keeps_sync_calls_), so a stream mark may answer it (inline_wait.h).
  bool answers_waits_from_marks() const { return !keeps_sync_calls_; }
  // What a stream signal (wire::kCallStreamSignal) may say of a wait: that its work is done
  // (kWrite), when that is all the wait has to learn. kAsk: an asynchronous error was told since the
  // last signal (the client must read that frame before its wait returns). kNever: no wait of this
  // session will be answered so: a module may print (answers_waits_from_marks), or a compute gate
  // must see each wait. Session thread.
  enum class SignalAnswer { kWrite, kAsk, kNever };
  SignalAnswer signal_answer();
  // The session's own stream on `device` (the current one), on which a signal waits for an event
  // (stream_signal.cpp): non-blocking, so that the program's legacy default stream never waits for
  // it. Null when the backend cannot make one. Session thread.
  cudaStream_t event_signal_stream(int device);
  // The memory slice every allocation is checked against (not enforced for a whole-GPU session).
  MemorySlice& memory() { return memory_; }
  ErrorLog& error_log() { return error_log_; }
  // Movable memory (null unless the session's GPU is over-committed).
  SwapSpace* swap() { return swap_; }
  // Host memory past the slice (the tenant's memory_host; takes nothing when it has none).
  HostExtension& host_extension() { return host_extension_; }
  // The mirrors of the client's mapped host memory.
  MappedMirrors& mapped_mirrors() { return mapped_mirrors_; }
  const SessionStats& stats() const { return stats_; }
  // The session's call profile (null unless RGPU_CALL_PROFILE=1).
  const CallProfile* call_profile() const { return profile_.get(); }
  // Runs `report` about once a second on the session's watcher thread while the session runs (the
  // worker's traffic report to rgpud's parent: a message a second at most, none per call). Set
  // before run().
  void report_every_second(std::function<void()> report) { report_ = std::move(report); }
  // A striped copy's bytes, which travel on the stripes, not the pipe (session thread).
  void count_striped(uint64_t in, uint64_t out);

  // Bookkeeping of device memory the client allocated, for the end-of-session report.
  void note_alloc(const void* p, uint64_t size);
  void note_free(const void* p);

  // Kernels of loaded modules, by the id the client was given.
  const LoadedFunction* function(uint64_t id) const;
  // A loaded module's backend handle by the client's module id (null if none), and its removal
  // with its kernels (after the backend unloaded it).
  void* module(uint64_t id) const;
  void forget_module(uint64_t id);

  // Sends a frame (thread-safe). Used for replies, async D2H data and callbacks.
  Status send(wire::FrameKind kind, uint32_t method, uint64_t seq, std::span<const uint8_t> payload,
              std::span<const iovec> bulk = {});

  // Sends a frame whose bulk is produced piece by piece (a streamed D2H copy; see send_pieces in
  // bulk_copy.h). The send lock is held throughout.
  Status send_streamed(const wire::FrameHeader& h, std::span<const uint8_t> payload,
                       const std::function<std::span<const uint8_t>()>& next_piece);

  // Ends the session with `why` (a stripe connection failed mid-copy, the client went away): the
  // session loop stops before its next frame, and no host function waits for the client any more.
  void abort(const Status& why);

  // Host callbacks (callbacks.cpp). On the thread that runs host functions: sends the client the
  // callback frame for its callback `id`, then waits until the client says its function returned
  // (session_input.h), so the stream's later work starts only after that; or until the session ends.
  void run_client_callback(uint64_t id);
  // What the server's host function for a client callback points at.
  struct HostCallback {
    Session* session = nullptr;
    uint64_t id = 0;
  };
  // One that lives as long as the session: its host function was captured into a graph, which may
  // run it at every launch.
  HostCallback* keep_host_callback(uint64_t id);

  // A reusable buffer for reply bulk data of calls executed on the session thread.
  std::vector<uint8_t>& staging(size_t n);
  // The pinned staging ring of the session thread's current device (bulk_copy.h); stripe k's
  // rings are separate, so that the stripes of one copy work in parallel.
  StagingRing& staging_ring(int stripe = -1);
  StripeSet& stripes() { return stripes_; }
  // The memory pools this session exported to other sessions, and its way to import theirs.
  PoolShares& pool_shares() { return pool_shares_; }
  // Async and striped D2H copies whose bytes leave after their call returned.
  AsyncLandings& landings() { return landings_; }
  // Host memory the client shares with the session (a client on this host, over a Unix socket).
  SharedHost& shared_host() { return shared_host_; }
  // The oldest descriptor the client sent with its frames (kCallShareHost's memfd), or -1.
  int take_descriptor() { return conn_.take_descriptor(); }
  // The threads that receive a striped H2D copy's slices, at least n of them, made on the first such
  // copy and kept for the session's life (session thread only).
  WorkerTeam& stripe_team(size_t n);

  // A pinned mirror buffer behind a host copy captured into a graph (common/wire/graph_args.h).
  // Mirrors live as long as the session: a graph may use them at any later launch.
  struct Mirror {
    uint64_t id = 0;
    void* ptr = nullptr;
    size_t size = 0;
    Session* session = nullptr;
  };
  // Creates mirror `id` (null if it exists already or cannot be allocated).
  Mirror* new_mirror(uint64_t id, size_t size);
  Mirror* mirror(uint64_t id);

 private:
  Status handle_call(const wire::FrameHeader& h, std::span<const uint8_t> payload, std::span<const uint8_t> bulk,
                     BulkReader* reader);
  Status serve_call(const wire::FrameHeader& h, std::span<const uint8_t> payload, std::span<const uint8_t> bulk,
                    BulkReader* reader);
  void execute(const wire::FrameHeader& h, std::span<const uint8_t> payload, std::span<const uint8_t> bulk,
               BulkReader* reader, bool* malformed);
  void send_async_error(const wire::FrameHeader& h, int32_t status);
  // The success of a wait whose work is done (inline_wait.h), without the synchronising call.
  void reply_done_wait(const wire::FrameHeader& h);
  // From now on, waits make their synchronising call (keeps_sync_calls_); logs `why` once.
  void keep_sync_calls(const char* why);
  // Frames sent between the first hold and the last release leave together (Connection::hold_sends);
  // holds nest, from any thread.
  void hold_sends();
  void release_sends();
  // Around the serving of a call or control frame: once it is answered, releases the hold its
  // predecessor left (a synchronisation's reply held for the read-back sent right behind it, which
  // leaves with that read-back's reply, or with whatever frame came instead).
  struct ReadBackRelease {
    Session& session;
    const bool held = std::exchange(session.read_back_held_, false);
    ~ReadBackRelease() {
      if (held) session.release_sends();
    }
  };
  // The reply to call `h`, behind the bytes of the D2H copies it promises and, where the call may
  // have emptied the device printf buffer, that output.
  void send_reply(const wire::FrameHeader& h, std::span<const uint8_t> payload, std::span<const iovec> bulk,
                  bool may_have_printed);
  // A kNotification frame: an allocation would take the session `bytes` past its slice.
  void notify_over_budget(uint64_t bytes);
  // Until `wake` is readable: aborts the session the moment the client's end closes, even while
  // calls it queued are still waiting to run (a deep launch backlog can take minutes, and nobody is
  // left to see their results), or once the client's host stops acknowledging; sends the
  // heartbeats that tell the client this server lives (transports/liveness.h).
  void watch_peer(int wake);
  void heartbeat();  // a kHeartbeat frame, unless a reply is being sent
  Status aborted_status();  // why abort() ended the session (ok: the client went away)
  // cudaDeviceReset freed the current device's context, and with it the pinned staging rings and the
  // event signal stream.
  void forget_device_buffers();
  Status handle_control(const wire::FrameHeader& h, std::span<const uint8_t> payload);
  // One frame read whole (from the connection, or stashed by a waiting host function).
  Status dispatch(const wire::FrameHeader& h, std::span<const uint8_t> payload, std::span<const uint8_t> bulk);
  // The end of the session's input: `why` is its failure (kClosed: the client hung up).
  Status input_ended(const Status& why);
  Status load_module(uint64_t seq, std::span<const uint8_t> payload);

  uint64_t id_;
  transport::Connection& conn_;
  Backend& backend_;
  OutputCapture* output_;
  MemorySlice memory_;
  ErrorLog error_log_;
  HostExtension host_extension_;
  MappedMirrors mapped_mirrors_;
  ComputeGate* gate_;
  SwapSpace* swap_;
  HandleTable handles_;
  SessionStats stats_;
  std::unique_ptr<CallProfile> profile_;  // session thread
  std::function<void()> report_;
  std::mutex send_mu_;
  std::mutex hold_mu_;
  int holds_ = 0;                // hold_sends() not yet released (hold_mu_)
  bool read_back_held_ = false;  // a synchronisation's reply waits for its read-back's (session thread)
  std::mutex abort_mu_;
  Status abort_status_ = Status::ok();
  std::atomic<bool> aborted_{false};
  std::mutex state_mu_;  // handles and allocations, shared with helper threads
  std::unordered_map<uintptr_t, uint64_t> allocations_;
  std::unordered_map<uint64_t, LoadedFunction> functions_;
  std::unordered_map<uint64_t, void*> modules_;  // by client module id: backend handles
  // Whether a synchronising call does more here than wait, so that a wait whose work is done still
  // makes it (inline_wait.h): it empties the device printf buffer ahead of the reply (a loaded
  // module may print, fatbin::may_print), and stream-ordered pools retire frees and give memory
  // back only inside such calls (the session allocates from one). Set once (keep_sync_calls).
  bool keeps_sync_calls_ = false;
  std::atomic<uint64_t> async_errors_told_{0};  // kAsyncError frames sent, from any thread
  uint64_t errors_at_signal_ = 0;               // async_errors_told_ at the last stream signal
  std::map<int, cudaStream_t> event_signal_streams_;  // by device; session thread only
  std::vector<uint8_t> staging_;
  std::unordered_map<uint64_t, std::unique_ptr<Mirror>> mirrors_;
  std::deque<HostCallback> kept_callbacks_;  // under state_mu_
  SessionInput input_;
  std::map<std::pair<int, int>, std::unique_ptr<StagingRing>> rings_;  // by (device, stripe); session thread only
  StripeSet stripes_;
  PoolShares pool_shares_;
  std::unique_ptr<WorkerTeam> stripe_team_;
  SharedHost shared_host_;
  AsyncLandings landings_;  // after the stripes and the connection it sends on, before the waits' pool
  BlockingPool blocking_;  // last: its threads may still run a wait while the rest is torn down
};

}  // namespace rgpu::server
