// TCP connections: synchronous Boost.Asio sockets with TCP_NODELAY, large socket buffers, one
// gather write per frame, and a read-ahead buffer so that a burst of small frames costs one read.
// Also declares the family's entry points used by transport.cpp.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/ip/tcp.hpp>

#include "transports/transport.h"

namespace rgpu::transport::tcp {

class TcpConnection final : public Connection {
 public:
  // Takes a connected, close-on-exec socket and turns on TCP_NODELAY.
  static Result<std::unique_ptr<Connection>> adopt(boost::asio::ip::tcp::socket socket);

  Status send_bytes(std::span<const iovec> segments) override;
  Status recv_exact(void* dst, size_t n) override;
  Status skip(uint64_t n) override;
  void shutdown() override;
  std::string peer() const override { return peer_; }

  int descriptor() const override { return fd_; }
  std::optional<PeerSilence> peer_silence() const override;
  bool input_pending() override;

 private:
  TcpConnection(boost::asio::ip::tcp::socket socket, std::string peer);
  Status io_error(const boost::system::error_code& ec, const char* what, uint64_t done, uint64_t want) const;

  boost::asio::ip::tcp::socket socket_;
  const int fd_;  // socket_'s descriptor
  const std::string peer_;
  std::atomic<bool> shut_down_{false};
  // Reads smaller than half of this go through the read-ahead buffer, larger ones straight to
  // their destination.
  static constexpr size_t kReadAhead = 256 << 10;

  std::vector<boost::asio::const_buffer> send_buffers_;  // reused by every send_bytes
  std::unique_ptr<uint8_t[]> read_buffer_;               // read-ahead: [read_pos_, read_end_) not yet taken
  size_t read_pos_ = 0;
  size_t read_end_ = 0;
  std::unique_ptr<uint8_t[]> skip_scratch_;              // where skipped bytes are dropped
};

// Applies RGPU_TCP_BUFFER (SO_SNDBUF/SO_RCVBUF) to a socket before it connects or listens;
// accepted sockets inherit the listener's sizes.
void set_buffer_sizes(int fd);

// Marks a descriptor close-on-exec, so a child a user program execs does not hold our connection
// open after the program dies (the server would not see it go away).
Status set_close_on_exec(int fd);

// TCP_NODELAY and keepalive (liveness.h), for every connected socket of ours, plain or TLS.
void tune_socket(int fd);
// What the kernel saw of the peer's silence (TCP_INFO; Connection::peer_silence).
std::optional<PeerSilence> peer_silence(int fd);
// "127.0.0.1:51234"; empty when the socket has no peer (any more).
std::string peer_address(int fd);

// A connected socket, not yet a Connection (transport.cpp decides whether TLS goes over it).
struct ConnectedSocket {
  int fd = -1;  // close-on-exec, blocking; the caller owns it
  std::string peer;  // "127.0.0.1:7070"
  bool loopback = false;
};
Result<ConnectedSocket> connect_socket(const std::string& address);

// A connected TCP socket received from another process (descriptor_passing.h); takes ownership.
Result<std::unique_ptr<Connection>> adopt_descriptor(int fd);

// "host:port" or "[v6]:port".
Result<std::unique_ptr<Connection>> connect(const std::string& address);
// "host:port"; port 0 picks a free port, which the listener's address() reports.
Result<std::unique_ptr<Listener>> listen(const std::string& address);

}  // namespace rgpu::transport::tcp
