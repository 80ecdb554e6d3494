// A Connection over a connected stream socket, shared by TCP and Unix sockets.
#include "transports/stream_connection.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <boost/asio/write.hpp>

#include "transports/socket_context.h"

namespace rgpu::transport {

namespace asio = boost::asio;

namespace {

// asio's transfer_all() caps every system call at 64 KiB; bulk data moves in far larger calls.
struct TransferEverything {
  size_t operator()(const boost::system::error_code& ec, size_t) const { return ec ? 0 : size_t{1} << 30; }
};

}  // namespace

Status set_close_on_exec(int fd) {
  int flags = fcntl(fd, F_GETFD);
  if (flags < 0 || fcntl(fd, F_SETFD, flags | FD_CLOEXEC) != 0)
    return RGPU_ERROR(kIo, std::string("fcntl(FD_CLOEXEC) failed: ") + std::strerror(errno));
  return Status::ok();
}

int socket_family(int fd) {
  sockaddr_storage local{};
  socklen_t len = sizeof local;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) != 0) return -1;
  return local.ss_family;
}

Status own_socket(int fd, int family, asio::generic::stream_protocol::socket& socket) {
  boost::system::error_code ec;
  socket.assign(asio::generic::stream_protocol(family, family == AF_UNIX ? 0 : IPPROTO_TCP), fd, ec);
  if (ec) {
    ::close(fd);
    return RGPU_ERROR(kIo, "cannot take over a connected socket: " + ec.message());
  }
  return Status::ok();
}

StreamConnection::StreamConnection(asio::generic::stream_protocol::socket socket, std::string peer,
                                   bool stamp_receives)
    : fd_(socket.native_handle()),
      socket_(std::move(socket)),
      peer_(std::move(peer)),
      stamp_receives_(stamp_receives),
      last_receive_(std::chrono::steady_clock::now().time_since_epoch().count()),
      read_buffer_(std::make_unique<uint8_t[]>(kReadAhead)),
      skip_scratch_(std::make_unique<uint8_t[]>(kReadAhead)) {
  send_buffers_.reserve(8);
}

std::chrono::steady_clock::time_point StreamConnection::last_receive() const {
  return std::chrono::steady_clock::time_point(
      std::chrono::steady_clock::duration(last_receive_.load(std::memory_order_relaxed)));
}

void StreamConnection::stamp() {
  if (stamp_receives_)
    last_receive_.store(std::chrono::steady_clock::now().time_since_epoch().count(), std::memory_order_relaxed);
}

Status StreamConnection::io_error(const boost::system::error_code& ec, const char* what, uint64_t done,
                                  uint64_t want) const {
  std::string progress = " after " + std::to_string(done) + " of " + std::to_string(want) + " bytes";
  if (shut_down_.load(std::memory_order_acquire))
    return RGPU_ERROR(kClosed, "connection " + peer_ + " was shut down (" + what + progress + ")");
  if (ec == asio::error::eof)
    return RGPU_ERROR(kClosed, "peer " + peer_ + " closed the connection (" + what + progress + ")");
  if (ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
      ec == asio::error::connection_aborted)
    return RGPU_ERROR(kClosed, "connection " + peer_ + " lost: " + ec.message() + " (" + what + progress + ")");
  return RGPU_ERROR(kIo, std::string(what) + " on " + peer_ + " failed: " + ec.message() + progress);
}

Status StreamConnection::send_bytes(std::span<const iovec> segments) {
  send_buffers_.clear();
  uint64_t total = 0;
  for (const iovec& segment : segments) {
    send_buffers_.emplace_back(segment.iov_base, segment.iov_len);
    total += segment.iov_len;
  }
  boost::system::error_code ec;
  size_t sent = asio::write(socket_, send_buffers_, TransferEverything{}, ec);
  if (ec) return io_error(ec, "send", sent, total);
  return Status::ok();
}

Status StreamConnection::recv_exact(void* dst, size_t n) {
  if (n == 0) return Status::ok();  // dst may be null (an empty vector's data())
  auto* out = static_cast<uint8_t*>(dst);
  const size_t want = n;
  // What an earlier read brought in ahead of need.
  size_t have = std::min(n, read_end_ - read_pos_);
  std::memcpy(out, read_buffer_.get() + read_pos_, have);
  read_pos_ += have;
  out += have;
  n -= have;
  if (n == 0) return Status::ok();
  boost::system::error_code ec;
  if (n >= kReadAhead / 2) {
    // Bulk data goes straight to its destination.
    for (size_t got = 0; got < n;) {
      got += receive_some(out + got, n - got, ec);
      if (ec) return io_error(ec, "receive", want - n + got, want);
    }
    stamp();
    return Status::ok();
  }
  // Small reads (headers, payloads) fill the read-ahead buffer: one system call brings every
  // frame the peer has queued, however many small frames that is.
  read_pos_ = read_end_ = 0;
  while (read_end_ < n) {
    size_t got = receive_some(read_buffer_.get() + read_end_, kReadAhead - read_end_, ec);
    if (ec) return io_error(ec, "receive", want - n + read_end_, want);
    stamp();
    read_end_ += got;
  }
  std::memcpy(out, read_buffer_.get(), n);
  read_pos_ = n;
  return Status::ok();
}

size_t StreamConnection::receive_some(void* dst, size_t n, boost::system::error_code& ec) {
  return socket_.read_some(asio::buffer(dst, n), ec);
}

Status StreamConnection::skip(uint64_t n) {
  for (uint64_t left = n; left > 0;) {
    size_t chunk = static_cast<size_t>(std::min<uint64_t>(left, kReadAhead));
    // Through the read-ahead buffer: recv_exact of at most its size never writes past it.
    Status st = recv_exact(skip_scratch_.get(), chunk);
    if (!st.is_ok()) return st;
    left -= chunk;
  }
  return Status::ok();
}

bool StreamConnection::input_pending() {
  if (read_pos_ < read_end_) return true;
  pollfd p{fd_, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

void StreamConnection::shutdown() {
  shut_down_.store(true, std::memory_order_release);
  // The descriptor stays open until destruction, so a thread blocked on it cannot see it reused;
  // shutdown(2) wakes that thread with end-of-file.
  ::shutdown(fd_, SHUT_RDWR);
}

}  // namespace rgpu::transport
