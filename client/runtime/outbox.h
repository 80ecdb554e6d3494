// The send side of the call pipe. Frames are appended in call order and a writer thread drains
// them with one gather write per batch: while one write is on its way, the calls that arrive meanwhile
// gather into the next, so a burst of asynchronous calls (kernel launches) costs a few system calls
// instead of one each, and their callers never wait for the socket. A lone frame goes out at once:
// the writer is woken (or is still spinning after its last write) as soon as something arrives.
//
// Callers that do not hand off to the writer:
//  - a synchronous call about to wait for its reply writes the queue itself when no write is running
//    (one thread hop fewer on the latency path);
//  - on a connection whose sends are copies into shared memory (Connection::sends_are_copies), the
//    first asynchronous call after a wait (Pipe::send_call): there the writer's wake-up, a system
//    call, cost a same-host launch 2 us of its caller's time on an H100, and kept the launch from
//    the server until the caller's next synchronisation flushed it;
//  - a frame whose bulk data must be on the wire before its caller returns (an H2D copy from pageable
//    memory, a module image) is written by the caller, after everything queued ahead of it.
//
// Pipe holds lock() while it numbers a call and appends it, so the order of sequence numbers is
// the order on the wire.
#pragma once

#include <sys/uio.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "common/wire/frame.h"
#include "transports/transport.h"

namespace rgpu::client {

class Outbox {
 public:
  // `on_failure` is called (without the lock) with the reason when a write fails.
  Outbox(transport::Connection& conn, std::function<void(const std::string&)> on_failure);
  ~Outbox();
  Outbox(const Outbox&) = delete;
  Outbox& operator=(const Outbox&) = delete;

  std::unique_lock<std::mutex> lock() { return std::unique_lock<std::mutex>(mu_); }

  // Bulk data of at most this size is copied into the queue; larger bulk goes with write_locked.
  static constexpr size_t kInlineBulk = 64 << 10;

  // The *_locked calls need the lock from lock(). False once the connection has failed.
  // Queues a frame (header, payload and bulk are copied) and wakes the writer thread for it, unless
  // `wake_writer` is false: the caller flushes it, or appends a frame right behind that does.
  bool append_locked(std::unique_lock<std::mutex>& lk, const wire::FrameHeader& h, std::span<const uint8_t> payload,
                     std::span<const iovec> bulk = {}, bool wake_writer = true);
  // Whether callers write their frames themselves (flush_locked) rather than wake the writer.
  bool callers_write() const { return callers_write_; }
  // Queues a frame of a header alone without waiting for room: the receiver thread's
  // acknowledgements. It must never wait for the writer, which may wait for the server to read,
  // which may wait for its reply to be read by the receiver, or for this very frame.
  bool append_now_locked(std::unique_lock<std::mutex>& lk, const wire::FrameHeader& h);
  // Writes what is queued from this thread unless a write is already running (which will take it).
  bool flush_locked(std::unique_lock<std::mutex>& lk);
  // Writes what is queued and then this frame from this thread; returns once every byte has been
  // handed to the transport. The lock is released while the bytes move. With a `descriptor`, the
  // write hands the server a duplicate of it (Connection::send_bytes_with_descriptor), which it has
  // by the time it reads this frame.
  bool write_locked(std::unique_lock<std::mutex>& lk, const wire::FrameHeader& h, std::span<const uint8_t> payload,
                    std::span<const iovec> bulk, int descriptor = -1);

  // After a failure: stops the writer, wakes every thread waiting here.
  void stop();

 private:
  void writer_loop();
  // A frame written from its caller's memory: header, payload and bulk segments.
  struct DirectFrame {
    const wire::FrameHeader& header;
    std::span<const uint8_t> payload;
    std::span<const iovec> bulk;
    int descriptor;
  };
  // Takes the write token (waits while another thread writes), writes the queue and then `frame`
  // (if any), gives the token back.
  bool write_queue_and(std::unique_lock<std::mutex>& lk, const DirectFrame* frame);
  void wake_writer_locked();

  transport::Connection& conn_;
  const bool callers_write_;
  std::function<void(const std::string&)> on_failure_;
  std::mutex mu_;
  std::condition_variable token_cv_;   // the write token came back, or the queue has room
  std::condition_variable writer_cv_;  // the writer thread sleeps here
  std::vector<uint8_t> queue_;         // framed bytes not yet written
  std::vector<uint8_t> batch_;         // the bytes being written (swapped with queue_)
  std::vector<iovec> segments_;        // reused gather list
  bool writing_ = false;               // the write token: one thread moves bytes at a time
  bool writer_asleep_ = false;
  bool stopped_ = false;
  std::atomic<bool> work_{false};      // queue_ is not empty (read by the spinning writer)
  std::thread writer_;
};

}  // namespace rgpu::client
