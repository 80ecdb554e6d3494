// ucx:// listen, accept and connect: a socket connection first, then the upgrade to UCX.
#include "transports/ucx/ucx_listener.h"

#include "transports/ucx/ucx_address.h"
#include "transports/ucx/ucx_connection.h"

namespace rgpu::transport::ucx {

Result<std::unique_ptr<Connection>> UcxListener::accept() {
  RGPU_ASSIGN_OR_RETURN(std::unique_ptr<Connection> lifeline, sockets_->accept());
  return upgrade(std::move(lifeline), /*accepting=*/true);
}

std::string UcxListener::address() const { return std::string(kScheme) + sockets_->address(); }

Result<std::unique_ptr<Listener>> listen(const std::string& address) {
  const std::string sockets = lifeline_address(address);
  if (is_ucx_address(sockets) || sockets.empty())
    return RGPU_ERROR(kInvalidArgument, "cannot listen on " + address + ": ucx:// takes a host:port or unix:PATH");
  RGPU_ASSIGN_OR_RETURN(std::unique_ptr<Listener> listener, transport::listen(sockets));
  return std::unique_ptr<Listener>(new UcxListener(std::move(listener)));
}

Result<std::unique_ptr<Connection>> connect(const std::string& address, tls::Mode tls) {
  const std::string sockets = lifeline_address(address);
  if (is_ucx_address(sockets) || sockets.empty())
    return RGPU_ERROR(kInvalidArgument, "cannot connect to " + address + ": ucx:// takes a host:port or unix:PATH");
  RGPU_ASSIGN_OR_RETURN(std::unique_ptr<Connection> lifeline, transport::connect(sockets, tls));
  return upgrade(std::move(lifeline), /*accepting=*/false);
}

}  // namespace rgpu::transport::ucx
