// Unix stream-socket connections: the shared stream connection (stream_connection.h) between two
// processes of one host, which the kernel names to each other (SO_PEERCRED). Also declares the
// family's entry points used by transport.cpp.
#pragma once

#include <sys/types.h>

#include <memory>
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

  // The kernel knows no time of the last data here: this side stamps its receives. Bytes waiting
  // unread are a sign of life (the reader is the one pausing). Nothing is ever unacknowledged: a
  // peer on this host that is gone has its socket closed by the kernel, which ends ours.
  std::optional<PeerSilence> peer_silence() const override;

 private:
  using StreamConnection::StreamConnection;
};

// "unix:PATH".
Result<std::unique_ptr<Connection>> connect(const std::string& address);

}  // namespace rgpu::transport::unix_socket
