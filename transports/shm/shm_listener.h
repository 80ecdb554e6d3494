// "shm://unix:PATH": a Unix-socket connection continued over shared memory at once (no handshake in
// between), for the conformance suite and tools that want the pipe alone. Sessions do not use these
// addresses: a client's "unix:PATH" session continues over shared memory after its Welcome
// (session_transport.h).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "transports/transport.h"

namespace rgpu::transport::shm {

inline constexpr std::string_view kScheme = "shm://";
inline bool is_shm_address(std::string_view address) { return address.starts_with(kScheme); }

class ShmListener final : public Listener {
 public:
  explicit ShmListener(std::unique_ptr<Listener> sockets) : sockets_(std::move(sockets)) {}

  Result<std::unique_ptr<Connection>> accept() override;
  std::string address() const override { return std::string(kScheme) + sockets_->address(); }
  bool is_loopback() const override { return sockets_->is_loopback(); }
  int native_handle() const override { return sockets_->native_handle(); }

 private:
  const std::unique_ptr<Listener> sockets_;
};

Result<std::unique_ptr<Listener>> listen(const std::string& address);
Result<std::unique_ptr<Connection>> connect(const std::string& address);

}  // namespace rgpu::transport::shm
