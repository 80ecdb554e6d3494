// RGPU_TRANSPORT, and the switch to UCX after a session's Welcome.
#include "transports/ucx/ucx_selection.h"

#include "common/config.h"
#include "transports/shm/shm_connection.h"
#include "transports/ucx/ucx_connection.h"
#include "transports/unix/unix_address.h"

namespace rgpu::transport {

namespace {

const Tunable kTransport{"RGPU_TRANSPORT", "",
                         "ucx: sessions continue over UCX after their handshake (client: ask for it; rgpud: serve "
                         "it); tcp or unix (or unset): stay on the connection RGPU_SERVER names"};

}  // namespace

Result<std::string> session_transport() {
  const std::string value = kTransport.get();
  if (value.empty() || value == "tcp" || value == "unix") return std::string();
  if (value == "ucx") return value;
  return RGPU_ERROR(kInvalidArgument, "RGPU_TRANSPORT=" + value + " is none of tcp, unix, ucx");
}

Result<std::string> client_session_transport(const std::string& address) {
  RGPU_ASSIGN_OR_RETURN(std::string transport, session_transport());
  if (transport.empty() && unix_socket::is_unix_address(address) && shm::shm_pipe_enabled()) return std::string("shm");
  return transport;
}

Result<std::unique_ptr<Connection>> continue_session(std::unique_ptr<Connection> conn, const std::string& transport,
                                                     bool serving) {
  if (transport.empty()) return conn;
  if (transport == "ucx") return ucx::upgrade(std::move(conn), serving);
  if (transport == "shm") return shm::upgrade(std::move(conn), serving);
  return RGPU_ERROR(kInvalidArgument, "unknown transport '" + transport + "' (ucx, shm, or none)");
}

}  // namespace rgpu::transport
