// A Listener for ucx:// addresses: a socket listener whose accepted connections are paired with
// their peers over UCX (ucx_connection.h), and the connecting side's counterpart.
#pragma once

#include <memory>
#include <string>

#include "transports/transport.h"

namespace rgpu::transport::ucx {

class UcxListener final : public Listener {
 public:
  explicit UcxListener(std::unique_ptr<Listener> sockets) : sockets_(std::move(sockets)) {}

  Result<std::unique_ptr<Connection>> accept() override;
  std::string address() const override;
  bool is_loopback() const override { return sockets_->is_loopback(); }
  int native_handle() const override { return sockets_->native_handle(); }

 private:
  const std::unique_ptr<Listener> sockets_;
};

// "ucx://ADDRESS": listens on ADDRESS. UCX itself is loaded by the first accept, not here.
Result<std::unique_ptr<Listener>> listen(const std::string& address);
// Connects to ADDRESS as `tls` allows, then continues over UCX (refused where TLS would be needed).
Result<std::unique_ptr<Connection>> connect(const std::string& address, tls::Mode tls);

}  // namespace rgpu::transport::ucx
