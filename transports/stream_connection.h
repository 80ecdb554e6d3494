// What the stream-socket families (tcp/, unix/) share: a Connection over one connected, blocking
// stream socket with one gather write per frame, bulk received straight into caller memory, and a
// read-ahead buffer so that a burst of small frames costs one read. A family derives from it for
// what only it can tell (the peer's silence, who the peer is).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/generic/stream_protocol.hpp>

#include "transports/transport.h"

namespace rgpu::transport {

class StreamConnection : public Connection {
 public:
  Status send_bytes(std::span<const iovec> segments) override;
  Status recv_exact(void* dst, size_t n) override;
  Status skip(uint64_t n) override;
  void shutdown() override;
  std::string peer() const override { return peer_; }
  int descriptor() const override { return fd_; }
  bool input_pending() override;

 protected:
  // Takes a connected, close-on-exec socket (own_socket()). `stamp_receives`: remember when each
  // receive returned (last_receive()), for a family whose kernel keeps no such time itself.
  StreamConnection(boost::asio::generic::stream_protocol::socket socket, std::string peer, bool stamp_receives);
  // When a receive system call last brought bytes; only kept with stamp_receives.
  std::chrono::steady_clock::time_point last_receive() const;
  // One receive system call of at most n bytes (at least 1; 0 with `ec` set on failure). A family
  // receives what else comes with the bytes (unix/: descriptors) here.
  virtual size_t receive_some(void* dst, size_t n, boost::system::error_code& ec);

  const int fd_;

 private:
  Status io_error(const boost::system::error_code& ec, const char* what, uint64_t done, uint64_t want) const;
  void stamp();

  boost::asio::generic::stream_protocol::socket socket_;
  const std::string peer_;
  const bool stamp_receives_;
  std::atomic<bool> shut_down_{false};
  std::atomic<std::chrono::steady_clock::rep> last_receive_;
  // Reads smaller than half of this go through the read-ahead buffer, larger ones straight to
  // their destination.
  static constexpr size_t kReadAhead = 256 << 10;

  std::vector<boost::asio::const_buffer> send_buffers_;  // reused by every send_bytes
  std::unique_ptr<uint8_t[]> read_buffer_;               // read-ahead: [read_pos_, read_end_) not yet taken
  size_t read_pos_ = 0;
  size_t read_end_ = 0;
  std::unique_ptr<uint8_t[]> skip_scratch_;              // where skipped bytes are dropped
};

// Marks a descriptor close-on-exec, so a child a user program execs does not hold our connection
// open after the program dies (the server would not see it go away).
Status set_close_on_exec(int fd);

// Puts `fd`, a connected stream socket of `family` (AF_INET, AF_INET6, AF_UNIX), in `socket` (one
// of sync_context()); on failure `fd` is closed.
Status own_socket(int fd, int family, boost::asio::generic::stream_protocol::socket& socket);

// The address family of a socket (AF_INET, AF_INET6, AF_UNIX), or -1 with errno set.
int socket_family(int fd);

}  // namespace rgpu::transport
