// Transport selection by address, and what every Connection shares.
#include "transports/transport.h"

#include <string>
#include <vector>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "transports/socket_context.h"
#include "transports/stream_connection.h"
#include "transports/shm/shm_listener.h"
#include "transports/tcp/tcp_address.h"
#include "transports/tcp/tcp_connection.h"
#include "transports/tls/tls_connection.h"
#include "transports/ucx/ucx_address.h"
#include "transports/ucx/ucx_listener.h"
#include "transports/unix/unix_address.h"
#include "transports/unix/unix_connection.h"
#include "transports/unix/unix_listener.h"

namespace rgpu::transport {

Status Connection::send_frame(const wire::FrameHeader& header, std::span<const uint8_t> payload,
                              std::span<const iovec> bulk) {
  // Senders are serialised by their callers (see the class comment), so one buffer per thread is
  // enough and the send path allocates nothing once warm.
  thread_local std::vector<iovec> segments;
  segments.clear();
  segments.push_back(iovec{const_cast<wire::FrameHeader*>(&header), sizeof header});
  if (!payload.empty()) segments.push_back(iovec{const_cast<uint8_t*>(payload.data()), payload.size()});
  uint64_t bulk_bytes = 0;
  for (const iovec& segment : bulk) {
    if (segment.iov_len == 0) continue;
    segments.push_back(segment);
    bulk_bytes += segment.iov_len;
  }
  if (payload.size() != header.payload_len || bulk_bytes != header.bulk_len)
    return RGPU_ERROR(kInvalidArgument, "frame header says " + std::to_string(header.payload_len) + " + " +
                                            std::to_string(header.bulk_len) + " bytes but " +
                                            std::to_string(payload.size()) + " + " + std::to_string(bulk_bytes) +
                                            " were given");
  return send_bytes(segments);
}

Status Connection::send_bytes_with_descriptor(std::span<const iovec> segments, int fd) {
  (void)segments, (void)fd;
  return RGPU_ERROR(kNotSupported, "connection " + peer() + " carries no descriptors");
}

bool Connection::wait_input(std::chrono::milliseconds timeout) {
  if (input_pending()) return true;
  const int fd = descriptor();
  if (fd < 0) return true;
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, static_cast<int>(timeout.count())) > 0;
}

Status Connection::recv_header(wire::FrameHeader& header) {
  RGPU_TRY(recv_exact(&header, sizeof header));
  return wire::validate(header);
}

namespace {
// The TLS handshake's bound, like a TCP connect's: a server that does not answer is unreachable.
constexpr std::chrono::seconds kTlsHandshakeTimeout{10};
}  // namespace

// One registration line per family; "host:port" without a scheme is TCP, encrypted or not. A Unix
// socket never leaves the host, so it carries no TLS. "ucx://..." loads UCX (ucx/README.md);
// "shm://unix:PATH" is a Unix socket continued over shared memory (shm/README.md).
Result<std::unique_ptr<Connection>> connect(const std::string& address, tls::Mode tls) {
  if (ucx::is_ucx_address(address)) return ucx::connect(address, tls);
  if (shm::is_shm_address(address)) return shm::connect(address);
  if (unix_socket::is_unix_address(address)) return unix_socket::connect(address);
  std::string a = address.starts_with("tcp://") ? address.substr(6) : address;
  RGPU_ASSIGN_OR_RETURN(tcp::ConnectedSocket socket, tcp::connect_socket(a));
  if (tls::plaintext_allowed(tls, socket.loopback)) return tcp::adopt_descriptor(socket.fd);
  return tls::TlsConnection::connect(socket.fd, std::move(socket.peer), kTlsHandshakeTimeout);
}

Result<std::unique_ptr<Connection>> connect(const std::string& address) {
  return connect(address, tls::mode_from_environment());
}

AcceptedConnection::~AcceptedConnection() {
  if (fd >= 0) ::close(fd);
}

Result<std::unique_ptr<Connection>> adopt(AcceptedConnection&& accepted) {
  const int fd = std::exchange(accepted.fd, -1);
  if (socket_family(fd) == AF_UNIX) {
    if (!accepted.tls) return unix_socket::UnixConnection::adopt(fd);
    ::close(fd);
    return RGPU_ERROR(kInvalidArgument, "a Unix socket connection carries no TLS");
  }
  if (!accepted.tls) return tcp::adopt_descriptor(fd);
  return tls::TlsConnection::adopt(fd, std::move(accepted.tls), tcp::peer_address(fd));
}

Result<AcceptedPeer> accepted_peer(int fd) {
  if (socket_family(fd) == AF_UNIX) {
    RGPU_ASSIGN_OR_RETURN(unix_socket::PeerCredentials credentials, unix_socket::peer_credentials(fd));
    return AcceptedPeer{unix_socket::describe_peer(fd, credentials), "uid " + std::to_string(credentials.uid),
                        /*local=*/true, /*unix_socket=*/true, static_cast<uint32_t>(credentials.pid)};
  }
  const std::optional<boost::asio::ip::tcp::endpoint> remote = tcp::peer_endpoint(fd);
  if (!remote) return RGPU_ERROR(kClosed, std::string("the peer went away: ") + std::strerror(errno));
  return AcceptedPeer{"tcp " + tcp::format_endpoint(*remote), remote->address().to_string(),
                      tcp::is_loopback(remote->address()), /*unix_socket=*/false, /*pid=*/0};
}

Result<std::unique_ptr<Listener>> listen(const std::string& address) {
  if (ucx::is_ucx_address(address)) return ucx::listen(address);
  if (shm::is_shm_address(address)) return shm::listen(address);
  if (unix_socket::is_unix_address(address)) return unix_socket::listen(address);
  std::string a = address.starts_with("tcp://") ? address.substr(6) : address;
  return tcp::listen(a);
}

Status after_fork_in_child() { return sync_context_after_fork(); }

}  // namespace rgpu::transport
