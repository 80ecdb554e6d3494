// Transport selection by address, and what every Connection shares.
#include "transports/transport.h"

#include "transports/tcp/tcp_connection.h"

namespace rgpu::transport {

Status Connection::recv_header(wire::FrameHeader& header) {
  RGPU_TRY(recv_exact(&header, sizeof header));
  return wire::validate(header);
}

// One registration line per family; "host:port" without a scheme is TCP.
Result<std::unique_ptr<Connection>> connect(const std::string& address) {
  std::string a = address.starts_with("tcp://") ? address.substr(6) : address;
  return tcp::connect(a);
}

Result<std::unique_ptr<Listener>> listen(const std::string& address) {
  std::string a = address.starts_with("tcp://") ? address.substr(6) : address;
  return tcp::listen(a);
}

}  // namespace rgpu::transport
