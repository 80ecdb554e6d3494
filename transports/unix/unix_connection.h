// Unix stream-socket connections: the shared stream connection (stream_connection.h) between two
// processes of one host, which the kernel names to each other (SO_PEERCRED). Also declares the
// family's entry points used by transport.cpp.
#pragma once

#include <sys/types.h>

#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "transports/stream_connection.h"
#include "transports/transport.h"

namespace rgpu::transport::unix_socket {

// The peer process as the kernel saw it when the connection was made (or, on the connecting
// side, when the listener was made): not the peer's claim.
struct PeerCredentials {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};
Result<PeerCredentials> peer_credentials(int fd);

// "unix /run/rgpu/rgpud.sock pid=4242 uid=1000 gid=1000" (the path where the peer's end has one:
// the listener's, seen from the client), for log lines and Connection::peer().
std::string describe_peer(int fd, const PeerCredentials& credentials);

class UnixConnection final : public StreamConnection {
 public:
  // Takes a connected, close-on-exec Unix stream socket.
  static Result<std::unique_ptr<Connection>> adopt(int fd);
  ~UnixConnection() override;

  // The kernel knows no time of the last data here: this side stamps its receives. Bytes waiting
  // unread are a sign of life (the reader is the one pausing). Nothing is ever unacknowledged: a
  // peer on this host that is gone has its socket closed by the kernel, which ends ours.
  std::optional<PeerSilence> peer_silence() const override;

  // Descriptors ride with the bytes of one sendmsg (SCM_RIGHTS, attached to its first byte); every
  // receive takes those that came, so the read-ahead loses none, and keeps them in arrival order.
  Status send_bytes_with_descriptor(std::span<const iovec> segments, int fd) override;
  int take_descriptor() override;

  // More than this many received and not yet taken are a peer misbehaving: the later ones are closed.
  static constexpr size_t kMaxHeldDescriptors = 64;

 private:
  using StreamConnection::StreamConnection;
  size_t receive_some(void* dst, size_t n, boost::system::error_code& ec) override;

  std::mutex descriptors_mu_;  // the receiving thread adds, the one serving the frame takes
  std::deque<int> descriptors_;
};

// "unix:PATH".
Result<std::unique_ptr<Connection>> connect(const std::string& address);

}  // namespace rgpu::transport::unix_socket
