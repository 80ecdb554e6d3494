// TLS connections: a TCP socket with an OpenSSL session over it, for connections that leave the
// host (tls_session.h says when). The same frames as tcp/, encrypted; what differs is how the two
// threads of a connection share it. OpenSSL lets one thread at a time into a session, so the
// socket is non-blocking, a lock is held only inside OpenSSL's calls, and a thread that must wait
// for the socket waits in poll(2) without the lock: a receiver blocked on a quiet peer never holds
// up the sender. OpenSSL writes its records into a buffer of ours, not the socket, so that a
// megabyte of records leaves in one send(2), not sixty-four.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "transports/tls/tls_session.h"
#include "transports/transport.h"

namespace rgpu::transport::tls {

class TlsConnection final : public Connection {
 public:
  // Runs the client's (or the server's) side of the TLS handshake over a connected TCP socket,
  // which it takes; a peer that does not finish it within `timeout` counts as unreachable.
  static Result<std::unique_ptr<Connection>> connect(int fd, std::string peer, std::chrono::milliseconds timeout,
                                                     bool as_server = false);
  // A session whose handshake another part of this process (or its parent) ran: takes both.
  static Result<std::unique_ptr<Connection>> adopt(int fd, SslPtr ssl, std::string peer);
  ~TlsConnection() override;

  Status send_bytes(std::span<const iovec> segments) override;
  Status recv_exact(void* dst, size_t n) override;
  Status skip(uint64_t n) override;
  void shutdown() override;
  std::string peer() const override { return peer_; }
  bool input_pending() override;
  int descriptor() const override { return fd_; }
  std::optional<PeerSilence> peer_silence() const override;
  std::span<const uint8_t> channel_binding() const override { return binding_; }

 private:
  TlsConnection(int fd, SslPtr ssl, std::string peer, const Binding& binding);
  // Runs one OpenSSL call under the lock until it succeeds, waiting for the socket between tries.
  template <class Op>
  Status call(const char* what, bool sending, Op op);
  Status write_all(const uint8_t* data, size_t n);
  // Sends what OpenSSL wrote into outgoing_; a sender waits for the socket (without the lock) until
  // all is gone, a receiver sends only what goes at once: were it to wait, two peers both sending
  // would each stop reading, and neither's sends would ever drain. Whoever sends next sends the
  // rest.
  Status flush(std::unique_lock<std::mutex>& lock, bool wait);

  const int fd_;
  const SslPtr ssl_;
  const std::string peer_;
  const Binding binding_;
  std::mutex ssl_mu_;
  std::atomic<bool> shut_down_{false};
  std::vector<uint8_t> outgoing_;              // records OpenSSL made, [outgoing_sent_, end) not yet sent
  size_t outgoing_sent_ = 0;
  std::vector<uint8_t> gather_;                // small segments of one send, sent as one record
  std::unique_ptr<uint8_t[]> skip_scratch_;    // where skipped bytes are dropped
};

}  // namespace rgpu::transport::tls
