// TCP connections: the shared stream connection (stream_connection.h) on a socket with
// TCP_NODELAY, large buffers and keepalive, whose peer's silence the kernel reports (TCP_INFO).
// Also declares the family's entry points used by transport.cpp.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <boost/asio/ip/tcp.hpp>

#include "transports/stream_connection.h"
#include "transports/transport.h"

namespace rgpu::transport::tcp {

class TcpConnection final : public StreamConnection {
 public:
  // Takes a connected, close-on-exec TCP socket and tunes it (tune_socket).
  static Result<std::unique_ptr<Connection>> adopt(int fd);

  std::optional<PeerSilence> peer_silence() const override;
  void hold_sends(bool on) override;

 private:
  using StreamConnection::StreamConnection;
};

// Applies RGPU_TCP_BUFFER (SO_SNDBUF/SO_RCVBUF) to a socket before it connects or listens;
// accepted sockets inherit the listener's sizes.
void set_buffer_sizes(int fd);

// TCP_NODELAY and keepalive (liveness.h), for every connected socket of ours, plain or TLS.
void tune_socket(int fd);
// What the kernel saw of the peer's silence (TCP_INFO; Connection::peer_silence).
std::optional<PeerSilence> peer_silence(int fd);
// The peer's address; empty when the socket has no peer (any more).
std::optional<boost::asio::ip::tcp::endpoint> peer_endpoint(int fd);
// "127.0.0.1:51234"; empty when the socket has no peer (any more).
std::string peer_address(int fd);

// A connected socket, not yet a Connection (transport.cpp decides whether TLS goes over it).
struct ConnectedSocket {
  int fd = -1;  // close-on-exec, blocking; the caller owns it
  std::string peer;  // "127.0.0.1:7070"
  bool loopback = false;
};
Result<ConnectedSocket> connect_socket(const std::string& address);

// A connected TCP socket received from another process (descriptor_passing.h); takes ownership.
Result<std::unique_ptr<Connection>> adopt_descriptor(int fd);

// "host:port" or "[v6]:port".
Result<std::unique_ptr<Connection>> connect(const std::string& address);
// "host:port"; port 0 picks a free port, which the listener's address() reports.
Result<std::unique_ptr<Listener>> listen(const std::string& address);

}  // namespace rgpu::transport::tcp
