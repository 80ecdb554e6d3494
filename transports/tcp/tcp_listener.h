// TCP listener: a bound, listening socket whose accepted connections inherit its buffer sizes.
#pragma once

#include <memory>
#include <string>

#include <boost/asio/ip/tcp.hpp>

#include "transports/transport.h"

namespace rgpu::transport::tcp {

class TcpListener final : public Listener {
 public:
  // Binds and listens on "host:port" (SO_REUSEADDR; port 0 picks a free port).
  static Result<std::unique_ptr<Listener>> open(const std::string& address);

  Result<std::unique_ptr<Connection>> accept() override;
  std::string address() const override { return address_; }
  bool is_loopback() const override { return loopback_; }
  int native_handle() const override { return native_handle_; }

 private:
  TcpListener(boost::asio::ip::tcp::acceptor acceptor, const boost::asio::ip::tcp::endpoint& bound);

  boost::asio::ip::tcp::acceptor acceptor_;
  const std::string address_;
  const bool loopback_;
  const int native_handle_;
};

}  // namespace rgpu::transport::tcp
