// Transport selection by address, and what every Connection shares.
#include "transports/transport.h"

#include <string>
#include <vector>

#include <unistd.h>

#include "transports/tcp/tcp_connection.h"
#include "transports/tls/tls_connection.h"
#include "transports/tcp/tcp_context.h"

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

Status Connection::recv_header(wire::FrameHeader& header) {
  RGPU_TRY(recv_exact(&header, sizeof header));
  return wire::validate(header);
}

namespace {
// The TLS handshake's bound, like a TCP connect's: a server that does not answer is unreachable.
constexpr std::chrono::seconds kTlsHandshakeTimeout{10};
}  // namespace

// One registration line per family; "host:port" without a scheme is TCP, encrypted or not.
Result<std::unique_ptr<Connection>> connect(const std::string& address, tls::Mode tls) {
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
  if (!accepted.tls) return tcp::adopt_descriptor(fd);
  return tls::TlsConnection::adopt(fd, std::move(accepted.tls), tcp::peer_address(fd));
}

Result<std::unique_ptr<Listener>> listen(const std::string& address) {
  std::string a = address.starts_with("tcp://") ? address.substr(6) : address;
  return tcp::listen(a);
}

Status after_fork_in_child() { return tcp::after_fork_in_child(); }

}  // namespace rgpu::transport
