// TCP connections: connecting, adopting sockets, and socket tuning.
#include "transports/tcp/tcp_connection.h"

#include <fcntl.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>

#include "common/config.h"
#include "common/log.h"
#include "transports/liveness.h"
#include "transports/tcp/tcp_address.h"
#include "transports/socket_context.h"

namespace rgpu::transport::tcp {

namespace asio = boost::asio;

namespace {

const Tunable kTcpBuffer{"RGPU_TCP_BUFFER", "4194304",
                         "TCP socket send/receive buffer in bytes; 0, or more than net.core.[rw]mem_max, "
                         "leaves the kernel's autotuning"};

int64_t read_sysctl(const char* path) {
  std::ifstream in(path);
  int64_t value = 0;
  return in >> value ? value : 0;
}

// Setting a size switches off autotuning, and the kernel clamps it to its maximum; a clamped,
// fixed buffer is worse than autotuning, so a size the kernel would clamp is not applied.
void set_one_buffer(int fd, int option, const char* option_name, int64_t want, int64_t kernel_max) {
  if (want > kernel_max) {
    RGPU_LOG_DEBUG("tcp: %s of %lld exceeds the kernel maximum %lld; keeping autotuning", option_name,
                   static_cast<long long>(want), static_cast<long long>(kernel_max));
    return;
  }
  int value = static_cast<int>(want);
  if (setsockopt(fd, SOL_SOCKET, option, &value, sizeof value) != 0)
    RGPU_LOG_WARN("tcp: setsockopt(%s, %d) failed: %s", option_name, value, std::strerror(errno));
}

}  // namespace

void set_buffer_sizes(int fd) {
  static const int64_t rmem_max = read_sysctl("/proc/sys/net/core/rmem_max");
  static const int64_t wmem_max = read_sysctl("/proc/sys/net/core/wmem_max");
  const int64_t want = kTcpBuffer.get_int();
  if (want <= 0) return;
  set_one_buffer(fd, SO_SNDBUF, "SO_SNDBUF", want, wmem_max);
  set_one_buffer(fd, SO_RCVBUF, "SO_RCVBUF", want, rmem_max);
}

// An idle connection whose peer host vanished fails within about RGPU_PEER_TIMEOUT_S: probes
// after a heartbeat interval of silence (in whole seconds, the kernel's unit), then as often, a
// timeout's worth of them.
void tune_socket(int fd) {
  const int on = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) != 0)
    RGPU_LOG_WARN("tcp: cannot set TCP_NODELAY: %s", std::strerror(errno));
  const auto timeout = peer_timeout();
  if (timeout.count() <= 0) return;
  const int interval = static_cast<int>(std::max<int64_t>(1, heartbeat_interval().count() / 1000));
  const int count = static_cast<int>(std::max<int64_t>(1, timeout.count() / 1000 / interval));
  if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on) != 0 ||
      setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &interval, sizeof interval) != 0 ||
      setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval) != 0 ||
      setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count) != 0)
    RGPU_LOG_WARN("tcp: cannot set keepalive: %s", std::strerror(errno));
}

Result<std::unique_ptr<Connection>> TcpConnection::adopt(int fd) {
  const std::string remote = peer_address(fd);
  const int family = socket_family(fd);
  if (remote.empty() || family < 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    return RGPU_ERROR(kClosed, "TCP peer went away before the connection was set up: " + why);
  }
  asio::generic::stream_protocol::socket socket(sync_context());
  RGPU_TRY(own_socket(fd, family, socket));
  tune_socket(fd);
  return std::unique_ptr<Connection>(new TcpConnection(std::move(socket), "tcp " + remote, /*stamp_receives=*/false));
}

std::optional<PeerSilence> peer_silence(int fd) {
  tcp_info info{};
  socklen_t len = sizeof info;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return std::nullopt;
  PeerSilence s;
  s.since_data = std::chrono::milliseconds(info.tcpi_last_data_recv);
  // Ours that wait. Sent and unacknowledged: the time since the last acknowledgement. Not sent at
  // all (a link that is down sends nothing, and a peer whose window is shut takes nothing): only
  // while the peer sends nothing either. A shut window with a live peer is a busy peer (a worker
  // whose session waits for its turn reads none of a copy meanwhile), and the kernel counts no
  // acknowledgement on the peer's data segments then (its fast path skips an ACK that moves
  // nothing) while its window probes back off to seconds apart.
  int queued = 0;
  if (info.tcpi_unacked > 0)
    s.unacknowledged_for = std::chrono::milliseconds(info.tcpi_last_ack_recv);
  else if (::ioctl(fd, SIOCOUTQ, &queued) == 0 && queued > 0)
    s.unacknowledged_for = std::chrono::milliseconds(std::min(info.tcpi_last_ack_recv, info.tcpi_last_data_recv));
  return s;
}

std::optional<PeerSilence> TcpConnection::peer_silence() const { return tcp::peer_silence(fd_); }

void TcpConnection::hold_sends(bool on) {
  // Switching the cork off sends what it held at once.
  const int value = on ? 1 : 0;
  (void)::setsockopt(fd_, IPPROTO_TCP, TCP_CORK, &value, sizeof value);
}

std::optional<asio::ip::tcp::endpoint> peer_endpoint(int fd) {
  sockaddr_storage peer{};
  socklen_t len = sizeof peer;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) != 0) return std::nullopt;
  asio::ip::tcp::endpoint endpoint;
  std::memcpy(endpoint.data(), &peer, std::min<size_t>(len, endpoint.capacity()));
  endpoint.resize(len);
  return endpoint;
}

std::string peer_address(int fd) {
  const std::optional<asio::ip::tcp::endpoint> endpoint = peer_endpoint(fd);
  return endpoint ? format_endpoint(*endpoint) : std::string();
}

namespace {

const Tunable kConnectTimeout{"RGPU_TCP_CONNECT_TIMEOUT_MS", "10000",
                               "how long a TCP connect may take before the host counts as unreachable"};

// A blocking connect waits minutes for a host that drops packets; this one gives up in time.
void connect_with_timeout(asio::ip::tcp::socket& socket, const asio::ip::tcp::endpoint& endpoint,
                          boost::system::error_code& ec) {
  socket.non_blocking(true, ec);
  if (ec) return;
  socket.connect(endpoint, ec);
  if (ec == asio::error::in_progress || ec == asio::error::would_block) {
    pollfd p{socket.native_handle(), POLLOUT, 0};
    int r;
    do r = ::poll(&p, 1, static_cast<int>(kConnectTimeout.get_int()));
    while (r < 0 && errno == EINTR);
    if (r == 0) {
      ec = asio::error::timed_out;
      return;
    }
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(socket.native_handle(), SOL_SOCKET, SO_ERROR, &err, &len);
    ec = err ? boost::system::error_code(err, boost::system::system_category()) : boost::system::error_code();
  }
  if (!ec) socket.non_blocking(false, ec);
}

}  // namespace

Result<std::unique_ptr<Connection>> adopt_descriptor(int fd) { return TcpConnection::adopt(fd); }

Result<ConnectedSocket> connect_socket(const std::string& address) {
  RGPU_ASSIGN_OR_RETURN(HostPort hp, parse_address(address));
  RGPU_ASSIGN_OR_RETURN(auto endpoints, resolve(hp, /*passive=*/false));
  boost::system::error_code ec;
  for (const auto& endpoint : endpoints) {
    asio::ip::tcp::socket socket(sync_context());
    socket.open(endpoint.protocol(), ec);
    if (ec) continue;
    RGPU_TRY(set_close_on_exec(socket.native_handle()));
    set_buffer_sizes(socket.native_handle());  // before connect, so the window scale covers it
    connect_with_timeout(socket, endpoint, ec);
    if (ec) continue;
    return ConnectedSocket{socket.release(), format_endpoint(endpoint), is_loopback(endpoint.address())};
  }
  return RGPU_ERROR(kUnavailable, "cannot connect to " + address + ": " + ec.message());
}

Result<std::unique_ptr<Connection>> connect(const std::string& address) {
  RGPU_ASSIGN_OR_RETURN(ConnectedSocket connected, connect_socket(address));
  return adopt_descriptor(connected.fd);
}

}  // namespace rgpu::transport::tcp
