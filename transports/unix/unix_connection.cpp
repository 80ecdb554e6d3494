// Unix stream-socket connections: connecting, adopting, the peer's credentials and silence.
#include "transports/unix/unix_connection.h"

#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <vector>

#include <boost/asio/local/stream_protocol.hpp>

#include "common/config.h"
#include "common/log.h"
#include "transports/descriptor_passing.h"
#include "transports/socket_context.h"
#include "transports/unix/unix_address.h"

namespace rgpu::transport::unix_socket {

namespace asio = boost::asio;

namespace {

const Tunable kUnixBuffer{"RGPU_UNIX_BUFFER", "4194304",
                          "Unix socket send buffer in bytes (capped by net.core.wmem_max); 0 leaves the kernel's "
                          "default"};

// What a Unix stream holds in flight is the sender's buffer alone (the receiver's is not used), and
// the kernel's default (net.core.wmem_default, about 200 KiB) makes a 64 MiB frame hundreds of
// sleeps and wake-ups: 4 MiB took a loopback stream from about 1.5 to about 5 GB/s here. There is
// no autotuning to lose, so a size the kernel caps still beats the default.
void set_send_buffer(int fd) {
  const int64_t want = kUnixBuffer.get_int();
  if (want <= 0) return;
  const int value = static_cast<int>(std::min<int64_t>(want, std::numeric_limits<int>::max()));
  if (::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &value, sizeof value) != 0)
    RGPU_LOG_WARN("unix: setsockopt(SO_SNDBUF, %d) failed: %s", value, std::strerror(errno));
}

}  // namespace

Result<PeerCredentials> peer_credentials(int fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
    return RGPU_ERROR(kIo, std::string("SO_PEERCRED failed: ") + std::strerror(errno));
  return PeerCredentials{cred.pid, cred.uid, cred.gid};
}

std::string describe_peer(int fd, const PeerCredentials& credentials) {
  std::string text = "unix";
  sockaddr_un peer{};
  socklen_t len = sizeof peer;
  // An unbound peer (every client) has an address of the family alone.
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) == 0 && len > sizeof(sa_family_t) &&
      peer.sun_path[0] != '\0')
    text += " " + std::string(peer.sun_path, strnlen(peer.sun_path, sizeof peer.sun_path));
  return text + " pid=" + std::to_string(credentials.pid) + " uid=" + std::to_string(credentials.uid) +
         " gid=" + std::to_string(credentials.gid);
}

Result<std::unique_ptr<Connection>> UnixConnection::adopt(int fd) {
  Result<PeerCredentials> credentials = peer_credentials(fd);
  if (!credentials.is_ok()) {
    ::close(fd);
    return credentials.status();
  }
  const std::string peer = describe_peer(fd, *credentials);
  set_send_buffer(fd);  // not inherited from the listener, unlike TCP's
  asio::generic::stream_protocol::socket socket(sync_context());
  RGPU_TRY(own_socket(fd, AF_UNIX, socket));
  return std::unique_ptr<Connection>(new UnixConnection(std::move(socket), peer, /*stamp_receives=*/true));
}

std::optional<PeerSilence> UnixConnection::peer_silence() const {
  PeerSilence silence;
  int waiting = 0;
  if (::ioctl(fd_, FIONREAD, &waiting) == 0 && waiting > 0) return silence;
  silence.since_data =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - last_receive());
  return silence;
}

UnixConnection::~UnixConnection() {
  for (int fd : descriptors_) ::close(fd);
}

size_t UnixConnection::receive_some(void* dst, size_t n, boost::system::error_code& ec) {
  constexpr size_t kPerReceive = 16;  // descriptors one receive takes; the kernel closes any more
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kPerReceive)];
  iovec v{dst, n};
  for (;;) {
    msghdr m{};
    m.msg_iov = &v;
    m.msg_iovlen = 1;
    m.msg_control = control;
    m.msg_controllen = sizeof control;
    const ssize_t got = ::recvmsg(fd_, &m, MSG_CMSG_CLOEXEC);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd_, POLLIN, 0};
      (void)::poll(&p, 1, -1);
      continue;
    }
    if (got < 0) {
      ec.assign(errno, boost::system::system_category());
      return 0;
    }
    for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      std::lock_guard<std::mutex> lock(descriptors_mu_);
      for (size_t i = 0; i < count; ++i) {
        int fd = -1;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
        if (descriptors_.size() < kMaxHeldDescriptors) {
          descriptors_.push_back(fd);
        } else {
          ::close(fd);
        }
      }
    }
    if (got == 0) {
      ec = asio::error::eof;
      return 0;
    }
    return static_cast<size_t>(got);
  }
}

Status UnixConnection::send_bytes_with_descriptor(std::span<const iovec> segments, int fd) {
  // The first sendmsg carries the descriptor with as many bytes as it takes; send_bytes sends the rest.
  ssize_t sent = send_with_descriptor(fd_, segments, fd);
  if (sent < 0) {
    const Code code = errno == EPIPE || errno == ECONNRESET ? Code::kClosed : Code::kIo;
    return Status(code, "sending a descriptor on " + peer() + " failed: " + std::strerror(errno)).at(__FILE__, __LINE__);
  }
  std::vector<iovec> rest;
  for (const iovec& segment : segments) {
    const size_t skipped = std::min<size_t>(static_cast<size_t>(sent), segment.iov_len);
    sent -= static_cast<ssize_t>(skipped);
    if (skipped < segment.iov_len)
      rest.push_back(iovec{static_cast<uint8_t*>(segment.iov_base) + skipped, segment.iov_len - skipped});
  }
  return rest.empty() ? Status::ok() : send_bytes(rest);
}

int UnixConnection::take_descriptor() {
  std::lock_guard<std::mutex> lock(descriptors_mu_);
  if (descriptors_.empty()) return -1;
  const int fd = descriptors_.front();
  descriptors_.pop_front();
  return fd;
}

Result<std::unique_ptr<Connection>> connect(const std::string& address) {
  RGPU_ASSIGN_OR_RETURN(std::string path, parse_address(address));
  asio::local::stream_protocol::socket socket(sync_context());
  boost::system::error_code ec;
  socket.open(asio::local::stream_protocol(), ec);
  if (!ec) RGPU_TRY(set_close_on_exec(socket.native_handle()));
  // No timeout as TCP has: a Unix connect waits for no network, only (rarely) for room in a full
  // backlog of a listener that accepts.
  if (!ec) socket.connect(asio::local::stream_protocol::endpoint(path), ec);
  if (ec) return RGPU_ERROR(kUnavailable, "cannot connect to " + address + ": " + ec.message());
  const int fd = socket.release(ec);
  if (ec) return RGPU_ERROR(kIo, "cannot take the socket connected to " + address + ": " + ec.message());
  return UnixConnection::adopt(fd);
}

}  // namespace rgpu::transport::unix_socket
