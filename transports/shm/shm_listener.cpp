// shm://unix:PATH listen, accept and connect: a Unix socket first, then the switch to the rings.
#include "transports/shm/shm_listener.h"

#include "transports/shm/shm_connection.h"
#include "transports/unix/unix_address.h"

namespace rgpu::transport::shm {
namespace {

Result<std::string> socket_address(const std::string& address) {
  std::string sockets = address.substr(kScheme.size());
  if (!unix_socket::is_unix_address(sockets))
    return RGPU_ERROR(kInvalidArgument, "shm:// takes a unix:PATH (shared memory is for this host): " + address);
  return sockets;
}

}  // namespace

Result<std::unique_ptr<Connection>> ShmListener::accept() {
  RGPU_ASSIGN_OR_RETURN(std::unique_ptr<Connection> lifeline, sockets_->accept());
  return upgrade(std::move(lifeline), /*accepting=*/true);
}

Result<std::unique_ptr<Listener>> listen(const std::string& address) {
  RGPU_ASSIGN_OR_RETURN(std::string sockets, socket_address(address));
  RGPU_ASSIGN_OR_RETURN(std::unique_ptr<Listener> listener, transport::listen(sockets));
  return std::unique_ptr<Listener>(new ShmListener(std::move(listener)));
}

Result<std::unique_ptr<Connection>> connect(const std::string& address) {
  RGPU_ASSIGN_OR_RETURN(std::string sockets, socket_address(address));
  RGPU_ASSIGN_OR_RETURN(std::unique_ptr<Connection> lifeline, transport::connect(sockets));
  return upgrade(std::move(lifeline), /*accepting=*/false);
}

}  // namespace rgpu::transport::shm
