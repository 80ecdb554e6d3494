// A Connection over two shared-memory byte rings (shm_ring.h), for a session whose client is on
// rgpud's own host: continued from an authenticated Unix-socket connection after its Welcome, which
// stays open beside it as the "lifeline".
//
// The lifeline carries what a ring cannot: the end of the peer (a process that dies has its socket
// closed by the kernel; a watcher thread sees it at once and wakes this end's sleeping threads),
// and descriptors (send_bytes_with_descriptor() sends the descriptor on the socket before the bytes
// go into the ring, so the peer has it by the time it reads them).
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "transports/shm/shm_ring.h"
#include "transports/transport.h"

namespace rgpu::transport::shm {

class ShmConnection final : public Connection {
 public:
  ~ShmConnection() override;

  Status send_bytes(std::span<const iovec> segments) override;
  Status recv_exact(void* dst, size_t n) override;
  Status skip(uint64_t n) override;
  void shutdown() override;
  std::string peer() const override { return peer_; }
  bool input_pending() override;
  bool wait_input(std::chrono::milliseconds timeout) override;
  // The lifeline's socket: what a poll for the peer's going (POLLRDHUP) watches. Bytes never show
  // there; wait_input() is the way to wait for them.
  int descriptor() const override;
  Status send_bytes_with_descriptor(std::span<const iovec> segments, int fd) override;
  int take_descriptor() override;
  // Like a Unix socket's: bytes waiting in the ring are a sign of life; otherwise the time since
  // this end last found the ring empty after reading (stamped only then, not per frame).
  std::optional<PeerSilence> peer_silence() const override;
  void spin_while(const std::atomic<uint32_t>* nonzero) override { wait_.keep_while = nonzero; }
  bool sends_are_copies() const override { return true; }

  uint32_t ring_bytes() const { return ring_bytes_; }

  // More descriptors than this received and not yet taken are a peer misbehaving: the rest are closed.
  static constexpr size_t kMaxHeldDescriptors = 64;

 private:
  friend Result<std::unique_ptr<Connection>> upgrade(std::unique_ptr<Connection> lifeline, bool accepting);
  friend struct ShmTestAccess;
  ShmConnection(void* mapping, size_t mapping_bytes, uint32_t ring_bytes, bool accepting,
                std::unique_ptr<Connection> lifeline);
  void watch_lifeline();
  void stop_and_wake();
  Status failure(const char* what, uint64_t done, uint64_t want) const;
  void stamp_empty();

  void* const mapping_;
  const size_t mapping_bytes_;
  const uint32_t ring_bytes_;
  const std::unique_ptr<Connection> lifeline_;
  const int fd_;
  const std::string peer_;
  RingProducer out_;
  RingConsumer in_;
  WaitPolicy wait_;
  std::atomic<bool> stop_{false};        // shut down, or the peer gone: waits give up
  std::atomic<bool> shut_down_{false};   // this end's shutdown()
  std::atomic<bool> peer_gone_{false};   // the lifeline ended
  std::atomic<bool> corrupt_{false};     // the peer broke the rings' rules
  std::atomic<std::chrono::steady_clock::rep> last_empty_;
  int wake_fd_ = -1;  // an eventfd that ends the watcher
  std::thread watcher_;
  std::mutex descriptors_mu_;
  std::deque<int> descriptors_;
};

// RGPU_SHM_PIPE: whether Unix-socket sessions continue over shared memory (default on; either end
// may turn it off).
bool shm_pipe_enabled();

// Continues `lifeline`, an authenticated Unix-socket connection on which nothing more is pending,
// over shared-memory rings: both ends call this at the same point of their conversation (after the
// Welcome), the side that serves the session with `accepting`. The connecting side creates the
// memory (a sealed memfd) and offers it on the socket with SCM_RIGHTS; the accepting side checks
// and maps it, and answers. Either end may decline (RGPU_SHM_PIPE=0, no memfd, a bad offer): then
// the session stays on the socket and `lifeline` itself comes back. Errors are the socket's.
Result<std::unique_ptr<Connection>> upgrade(std::unique_ptr<Connection> lifeline, bool accepting);

}  // namespace rgpu::transport::shm
