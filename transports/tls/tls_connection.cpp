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
// How much OpenSSL may read from the socket at once (it reads ahead): many records per read(2).
constexpr size_t kReadBuffer = 1 << 20;

// The write side of a session once it serves: OpenSSL's records are appended to the connection's
// outgoing buffer (the BIO's data), which flush() sends.
int append_outgoing(BIO* bio, const char* data, int len) {
  auto* out = static_cast<std::vector<uint8_t>*>(BIO_get_data(bio));
  const size_t at = out->size();
  out->resize(at + static_cast<size_t>(len));
  std::memcpy(out->data() + at, data, static_cast<size_t>(len));
  return len;
}
long outgoing_control(BIO*, int cmd, long, void*) { return cmd == BIO_CTRL_FLUSH ? 1 : 0; }
int outgoing_create(BIO* bio) {
  BIO_set_init(bio, 1);
  return 1;
}

const BIO_METHOD* outgoing_method() {
  static BIO_METHOD* method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "rgpu outgoing records");
    if (m) {
      BIO_meth_set_write(m, append_outgoing);
      BIO_meth_set_ctrl(m, outgoing_control);
      BIO_meth_set_create(m, outgoing_create);
    }
    return m;
  }();
  return method;
}

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
  outgoing_.reserve(kChunk + (kChunk >> 6));  // a chunk's records, with their overhead
  SSL_set_default_read_buffer_len(ssl_.get(), kReadBuffer);
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
  BIO* outgoing = binding.is_ok() && outgoing_method() ? BIO_new(outgoing_method()) : nullptr;
  if (!outgoing) {
    ::close(fd);
    return binding.is_ok() ? RGPU_ERROR(kInternal, error_text("cannot make a TLS write buffer")) : binding.status();
  }
  tcp::tune_socket(fd);
  std::unique_ptr<TlsConnection> conn(new TlsConnection(fd, std::move(ssl), "tls " + peer, *binding));
  // The handshake wrote straight to the socket, so nothing is left behind in the BIO replaced here.
  BIO_set_data(outgoing, &conn->outgoing_);
  SSL_set0_wbio(conn->ssl_.get(), outgoing);
  return std::unique_ptr<Connection>(std::move(conn));
}

template <class Op>
Status TlsConnection::call(const char* what, bool sending, Op op) {
  for (;;) {
    int r, err, sys_errno;
    {
      std::unique_lock lock(ssl_mu_);
      ERR_clear_error();
      r = op();
      sys_errno = errno;
      err = r == 1 ? SSL_ERROR_NONE : SSL_get_error(ssl_.get(), r);
      RGPU_TRY(flush(lock, sending));
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

Status TlsConnection::flush(std::unique_lock<std::mutex>& lock, bool wait) {
  while (outgoing_sent_ < outgoing_.size()) {
    const ssize_t n = ::send(fd_, outgoing_.data() + outgoing_sent_, outgoing_.size() - outgoing_sent_,
                             MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      outgoing_sent_ += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait) return Status::ok();
      // Another thread may add records meanwhile; they go after these, by whoever flushes next.
      lock.unlock();
      Status ready = wait_for(fd_, POLLOUT, {}, peer_);
      lock.lock();
      RGPU_TRY(ready);
      continue;
    }
    if (shut_down_.load(std::memory_order_acquire))
      return RGPU_ERROR(kClosed, "connection " + peer_ + " was shut down (send)");
    if (errno == EPIPE || errno == ECONNRESET)
      return RGPU_ERROR(kClosed, "connection " + peer_ + " lost (send): " + std::strerror(errno));
    return RGPU_ERROR(kIo, "send on " + peer_ + " failed: " + std::strerror(errno));
  }
  outgoing_.clear();
  outgoing_sent_ = 0;
  return Status::ok();
}

Status TlsConnection::write_all(const uint8_t* data, size_t n) {
  while (n > 0) {
    const size_t chunk = std::min(n, kChunk);
    size_t written = 0;
    // Retried with the same buffer and length, as OpenSSL requires after a WANT_WRITE.
    RGPU_TRY(call("send", true, [&] { return SSL_write_ex(ssl_.get(), data, chunk, &written); }));
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
    RGPU_TRY(call("receive", false, [&] { return SSL_read_ex(ssl_.get(), out, want, &got); }));
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

// Called on every spin of a wait for a stream (server/session/inline_wait.h). The lock is there
// because a record OpenSSL has decrypted but not handed out is state the sending threads
// (heartbeats, replies) also touch; it is uncontended unless a send is inside OpenSSL, and the spin
// makes a poll(2) anyway, beside which it costs nothing measurable.
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
