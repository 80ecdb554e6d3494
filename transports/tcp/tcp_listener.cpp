// TCP listener: bind, listen, accept.
#include "transports/tcp/tcp_listener.h"

#include "transports/tcp/tcp_address.h"
#include "transports/tcp/tcp_connection.h"
#include "transports/socket_context.h"

namespace rgpu::transport::tcp {

namespace asio = boost::asio;

TcpListener::TcpListener(asio::ip::tcp::acceptor acceptor, const asio::ip::tcp::endpoint& bound)
    : acceptor_(std::move(acceptor)),
      address_(format_endpoint(bound)),
      loopback_(tcp::is_loopback(bound.address())),
      native_handle_(acceptor_.native_handle()) {}

Result<std::unique_ptr<Listener>> TcpListener::open(const std::string& address) {
  RGPU_ASSIGN_OR_RETURN(HostPort hp, parse_address(address));
  RGPU_ASSIGN_OR_RETURN(auto endpoints, resolve(hp, /*passive=*/true));
  const asio::ip::tcp::endpoint& endpoint = endpoints.front();
  auto fail = [&](const char* step, const boost::system::error_code& ec) {
    return RGPU_ERROR(kUnavailable, std::string("cannot listen on ") + address + ": " + step + ": " + ec.message());
  };
  asio::ip::tcp::acceptor acceptor(sync_context());
  boost::system::error_code ec;
  acceptor.open(endpoint.protocol(), ec);
  if (ec) return fail("socket", ec);
  RGPU_TRY(set_close_on_exec(acceptor.native_handle()));
  acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (ec) return fail("SO_REUSEADDR", ec);
  set_buffer_sizes(acceptor.native_handle());
  acceptor.bind(endpoint, ec);
  if (ec) return fail("bind", ec);
  acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return fail("listen", ec);
  auto bound = acceptor.local_endpoint(ec);
  if (ec) return fail("getsockname", ec);
  return std::unique_ptr<Listener>(new TcpListener(std::move(acceptor), bound));
}

Result<std::unique_ptr<Connection>> TcpListener::accept() {
  asio::ip::tcp::socket socket(sync_context());
  boost::system::error_code ec;
  acceptor_.accept(socket, ec);
  if (ec) return RGPU_ERROR(kIo, "accept on " + address_ + " failed: " + ec.message());
  RGPU_TRY(set_close_on_exec(socket.native_handle()));
  const int fd = socket.release(ec);
  if (ec) return RGPU_ERROR(kIo, "accept on " + address_ + ": cannot take the socket: " + ec.message());
  return TcpConnection::adopt(fd);
}

Result<std::unique_ptr<Listener>> listen(const std::string& address) { return TcpListener::open(address); }

}  // namespace rgpu::transport::tcp
