// TLS connections (tls_connection.h).
#include "transports/tls/tls_connection.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "transports/tcp/tcp_connection.h"
#include "transports/tls/tls_context.h"

namespace rgpu::transport::tls {

namespace {

// Segments up to one record's worth are gathered into one record (a frame's header and payload);
// a larger one is written as it is.
constexpr size_t kGather = 16 << 10;
// A thread encrypts at most this much per turn of the lock, so a big send never holds up the
// receiving thread long.
constexpr size_t kChunk = 1 << 20;
constexpr size_t kSkipChunk = 256 << 10;

// Waits until the socket is ready for `events` or `deadline` (none: forever) passes.
Status wait_for(int fd, short events, std::chrono::steady_clock::time_point deadline, const std::string& peer) {
  const bool bounded = deadline != std::chrono::steady_clock::time_point{};
  for (;;) {
    int ms = -1;
    if (bounded) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0)
        return RGPU_ERROR(kClosed, "no TLS handshake from " + peer + " in time (is rgpud listening there?)");
      ms = static_cast<int>(std::min<int64_t>(left.count(), INT_MAX));
    }
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, ms);
    if (r > 0) return Status::ok();  // ready, or hung up: the next call says which
    if (r < 0 && errno != EINTR) return RGPU_ERROR(kIo, std::string("poll failed: ") + std::strerror(errno));
  }
}

Status set_non_blocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0)
    return RGPU_ERROR(kIo, std::string("fcntl(O_NONBLOCK) failed: ") + std::strerror(errno));
  return Status::ok();
}

}  // namespace

TlsConnection::TlsConnection(int fd, SslPtr ssl, std::string peer, const Binding& binding)
    : fd_(fd),
      ssl_(std::move(ssl)),
      peer_(std::move(peer)),
      binding_(binding),
      skip_scratch_(std::make_unique<uint8_t[]>(kSkipChunk)) {
  gather_.reserve(kGather);
}

TlsConnection::~TlsConnection() { ::close(fd_); }

Result<std::unique_ptr<Connection>> TlsConnection::connect(int fd, std::string peer, std::chrono::milliseconds timeout,
                                                           bool as_server) {
  Status st = set_non_blocking(fd);
  Result<SslPtr> ssl = st.is_ok() ? new_session(as_server, fd) : Result<SslPtr>(st);
  if (!ssl.is_ok()) {
    ::close(fd);
    return ssl.status();
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    ERR_clear_error();
    const int r = SSL_do_handshake(ssl->get());
    if (r == 1) break;
    const int err = SSL_get_error(ssl->get(), r);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE)
      st = wait_for(fd, err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline, peer);
    else
      st = RGPU_ERROR(kUnavailable, error_text("TLS handshake with " + peer + " failed") +
                                         " (a server run with plain TCP only takes RGPU_TLS=off clients)");
    if (!st.is_ok()) {
      ::close(fd);
      return st;
    }
  }
  return adopt(fd, std::move(*ssl), std::move(peer));
}

Result<std::unique_ptr<Connection>> TlsConnection::adopt(int fd, SslPtr ssl, std::string peer) {
  Status st = set_non_blocking(fd);
  Result<Binding> binding = st.is_ok() ? tls::channel_binding(ssl.get()) : Result<Binding>(st);
  if (!binding.is_ok()) {
    ::close(fd);
    return binding.status();
  }
  tcp::tune_socket(fd);
  return std::unique_ptr<Connection>(new TlsConnection(fd, std::move(ssl), "tls " + peer, *binding));
}

template <class Op>
Status TlsConnection::call(const char* what, Op op) {
  for (;;) {
    int r, err, sys_errno;
    {
      std::lock_guard lock(ssl_mu_);
      ERR_clear_error();
      r = op();
      sys_errno = errno;
      err = r == 1 ? SSL_ERROR_NONE : SSL_get_error(ssl_.get(), r);
    }
    if (err == SSL_ERROR_NONE) return Status::ok();
    if (shut_down_.load(std::memory_order_acquire))
      return RGPU_ERROR(kClosed, "connection " + peer_ + " was shut down (" + what + ")");
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
      RGPU_TRY(wait_for(fd_, err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, {}, peer_));
      continue;
    }
    if (err == SSL_ERROR_ZERO_RETURN) return RGPU_ERROR(kClosed, "peer " + peer_ + " closed the connection (" + what + ")");
    if (err == SSL_ERROR_SYSCALL && (sys_errno == ECONNRESET || sys_errno == EPIPE || sys_errno == 0))
      return RGPU_ERROR(kClosed, "connection " + peer_ + " lost (" + what + "): " +
                                     (sys_errno ? std::strerror(sys_errno) : "end of file"));
    return RGPU_ERROR(kIo, error_text(std::string(what) + " on " + peer_ + " failed"));
  }
}

Status TlsConnection::write_all(const uint8_t* data, size_t n) {
  while (n > 0) {
    const size_t chunk = std::min(n, kChunk);
    size_t written = 0;
    // Retried with the same buffer and length, as OpenSSL requires after a WANT_WRITE.
    RGPU_TRY(call("send", [&] { return SSL_write_ex(ssl_.get(), data, chunk, &written); }));
    data += written;
    n -= written;
  }
  return Status::ok();
}

Status TlsConnection::send_bytes(std::span<const iovec> segments) {
  gather_.clear();
  for (const iovec& segment : segments) {
    const auto* bytes = static_cast<const uint8_t*>(segment.iov_base);
    if (segment.iov_len <= kGather - gather_.size()) {
      const size_t at = gather_.size();
      gather_.resize(at + segment.iov_len);  // within the reserved capacity: no allocation
      if (segment.iov_len) std::memcpy(gather_.data() + at, bytes, segment.iov_len);
      continue;
    }
    RGPU_TRY(write_all(gather_.data(), gather_.size()));
    gather_.clear();
    RGPU_TRY(write_all(bytes, segment.iov_len));
  }
  return write_all(gather_.data(), gather_.size());
}

Status TlsConnection::recv_exact(void* dst, size_t n) {
  auto* out = static_cast<uint8_t*>(dst);
  while (n > 0) {
    size_t got = 0;
    const size_t want = std::min<size_t>(n, INT_MAX);
    RGPU_TRY(call("receive", [&] { return SSL_read_ex(ssl_.get(), out, want, &got); }));
    out += got;
    n -= got;
  }
  return Status::ok();
}

Status TlsConnection::skip(uint64_t n) {
  for (uint64_t left = n; left > 0;) {
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(left, kSkipChunk));
    RGPU_TRY(recv_exact(skip_scratch_.get(), chunk));
    left -= chunk;
  }
  return Status::ok();
}

bool TlsConnection::input_pending() {
  {
    std::lock_guard lock(ssl_mu_);
    if (SSL_has_pending(ssl_.get())) return true;
  }
  pollfd p{fd_, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

std::optional<PeerSilence> TlsConnection::peer_silence() const { return tcp::peer_silence(fd_); }

void TlsConnection::shutdown() {
  shut_down_.store(true, std::memory_order_release);
  // As for TCP: the descriptor stays open until destruction; shutdown(2) wakes a waiting poll.
  ::shutdown(fd_, SHUT_RDWR);
}

}  // namespace rgpu::transport::tls
