// Device-to-host copies whose bytes leave after their call has returned: every async D2H
// cudaMemcpy, and every striped D2H. The device side is issued on the copy's stream at once, on the
// session thread, into pinned staging, in pieces each followed by an event; the bytes are sent once
// the stream has got there, by whichever thread needs them first: the landing thread, which watches
// the pending copies, or a reply that must not overtake them (settle). So the session thread (and
// every other stream's calls) never waits behind a copy's stream, and a synchronisation's reply
// still follows the bytes it promises, as CUDA's own does:
//
//   every copy whose device side is complete when a reply is sent has its bytes ahead of that reply
//   on the pipe (a striped copy: its StripedLanding frame, after which the client's receiver takes
//   the slices from the stripes before it reads on); and likewise ahead of a host function's
//   callback frame, for every copy complete when the host function began.
//
// A host function runs on the driver's own thread when its stream reaches it, by which time the
// session has usually issued the stream's later copies and host functions too: so each host
// function gets a pass of the landing thread that begins after it asked (settle_from_host_function),
// never one already under way or one asked for by an earlier host function, whose copies were
// still on their streams then. The client runs the callback when its frame arrives, so after the
// bytes (and stripes) ahead of it.
//
// Copies are sent one at a time in the order they were claimed, and claimed in issue order among
// those whose stream has reached them, which keeps one stream's copies in its order and a striped
// copy's slices in the order of their announcements. The pieces of one copy follow one another on
// its stream, so a copy whose first piece is done finishes without waiting for anything else, and
// its sending overlaps its device copy.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "common/worker_team.h"

namespace rgpu::server {

class Session;

class AsyncLandings {
 public:
  explicit AsyncLandings(Session& session);
  ~AsyncLandings();  // waits for the copies still on their streams, sends nothing more
  AsyncLandings(const AsyncLandings&) = delete;
  AsyncLandings& operator=(const AsyncLandings&) = delete;

  // Where a copy's bytes go: on the pipe as one kData frame of its call (stripes 0), or as one
  // slice per stripe connection under `transfer`, announced on the pipe (common/wire/copy_args.h).
  struct Route {
    uint32_t stripes = 0;
    uint64_t transfer = 0;
  };

  // Issues the device side of a D2H copy of n bytes at device address `src` on `stream` for call
  // `seq` (session thread). `sync`: a synchronous copy, whose failure before its first byte is its
  // reply's status (finish_sync) rather than an empty landing. Returns the status of the issue;
  // on failure nothing is pending and nothing was sent.
  int32_t issue(uint64_t seq, uint32_t method, const void* src, uint64_t n, cudaStream_t stream, Route route,
                bool sync = false);
  // For a synchronous copy just issued: waits until its stream reaches it, sends it (with every
  // earlier copy that is done) and returns its status.
  int32_t finish_sync(uint64_t seq);

  // Before the reply to call `seq` (any thread that may call CUDA).
  void settle(uint64_t seq);
  // Whether any copy is still to be sent (read without the lock).
  bool pending() const { return pending_.load(std::memory_order_acquire) != 0; }
  // Before a host function's callback frame: every copy done by now (those ahead of the function
  // on its stream among them) is sent, a striped one announced, before this returns. A host
  // function must not call CUDA, so the landing thread does it, in a pass that begins after this
  // request (each request is answered by a pass of its own, never by one already under way).
  void settle_from_host_function();

  // Before cudaDeviceReset, which frees the staging and events of copies still pending: waits for
  // every pending copy's device side and sends it.
  void drain();
  // cudaDeviceReset freed `device`'s pinned memory and events: the idle ones are let go of.
  void forget_device(int device);

 private:
  struct Piece {
    uint64_t offset;
    uint64_t length;
    uint32_t slice;
    cudaEvent_t done;
  };
  struct Buffer {
    uint8_t* data = nullptr;
    size_t size = 0;
    int device = 0;
    bool pinned = false;
  };
  struct Landing {
    uint64_t seq = 0;
    uint32_t method = 0;
    int device = 0;
    uint64_t count = 0;
    Route route;
    bool sync = false;
    Buffer buffer;
    std::vector<Piece> pieces;  // in issue order
    enum class State { kQueued, kClaimed, kBegun } state = State::kQueued;
    uint64_t ticket = 0;
  };

  // The first queued copy of a call before `bound` whose stream has reached it, claimed for the
  // caller (mu_ held); null when none.
  Landing* claim_ready_locked(uint64_t bound);
  // Whether a copy claimed by another thread, of a call before `bound`, has not yet begun (mu_ held).
  bool others_pending_locked(uint64_t bound) const;
  void settle_here(uint64_t bound);
  // Sends a claimed copy in its turn, then retires it.
  void send(Landing& l);
  // Sends the copy's bytes; returns the status of its first failed piece (its bytes sent as zeros).
  int32_t send_bytes(Landing& l);
  void retire(Landing& l);
  void landing_thread();

  Buffer take_buffer(uint64_t n, int device);
  void give_buffer(Buffer b);
  cudaEvent_t take_event(int device);

  Session& session_;
  std::mutex mu_;
  std::condition_variable work_;  // the landing thread: a new copy, a settle request, stop
  std::condition_variable moved_;  // a copy began or was retired; the turn moved on
  std::deque<std::unique_ptr<Landing>> queue_;  // issue order
  std::vector<std::unique_ptr<Landing>> spare_;  // retired, kept with their pieces' capacity
  std::atomic<size_t> pending_{0};               // queue_.size(), read without the lock on every reply
  uint64_t next_ticket_ = 0;
  uint64_t serving_ = 0;
  // Host functions' requests (settle_from_host_function), numbered; settle_done_: the last request
  // a pass of the landing thread began after, and finished.
  uint64_t settle_asked_ = 0;
  uint64_t settle_done_ = 0;
  int32_t sync_failure_ = 0;  // a synchronous copy's status before its first byte (finish_sync)
  std::vector<Buffer> idle_buffers_;
  size_t idle_bytes_ = 0;
  std::vector<std::pair<int, cudaEvent_t>> idle_events_;
  std::unique_ptr<WorkerTeam> team_;  // a striped copy's slices, one member per stripe
  bool stopping_ = false;
  std::thread thread_;  // started with the first copy left pending
};

}  // namespace rgpu::server
