// A Connection over UCX (UCP streams through librgpu_transport_ucx.so), paired with its peer over a
// "lifeline": an ordinary connection (TCP or a Unix socket) that stays open beside it.
//
// Why a lifeline. The two ends must swap UCP worker addresses before UCX can connect them, and
// rgpud authenticates a client on a socket in one process, then hands the socket to a forked
// worker, which no UCP endpoint can cross: so every UCX connection starts as a socket connection,
// authenticated or not as before, and the two ends then swap addresses over it (upgrade()). The
// socket then tells each end that the other went: a closing end sends, as its last word, how many
// bytes it sent over UCX, so the peer reads them all before it reports kClosed; a process that
// dies has its socket closed by the kernel, which UCX's shared-memory transports would not notice.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "transports/transport.h"
#include "transports/ucx/ucx_plugin_api.h"

namespace rgpu::transport::ucx {

class UcxConnection final : public Connection {
 public:
  ~UcxConnection() override;

  Status send_bytes(std::span<const iovec> segments) override;
  Status recv_exact(void* dst, size_t n) override;
  Status skip(uint64_t n) override;
  void shutdown() override;
  std::string peer() const override { return peer_; }

 private:
  friend Result<std::unique_ptr<Connection>> upgrade(std::unique_ptr<Connection> lifeline, bool accepting);
  UcxConnection(const rgpu_ucx_ops* ops, rgpu_ucx_endpoint* endpoint, std::unique_ptr<Connection> lifeline);
  Status error(int result, const rgpu_ucx_message& why, uint64_t done, uint64_t want) const;

  const rgpu_ucx_ops* const ops_;
  rgpu_ucx_endpoint* const endpoint_;
  const std::unique_ptr<Connection> lifeline_;
  const std::string peer_;
  std::atomic<bool> shut_down_{false};
};

// Continues `lifeline`, a connected, unencrypted socket connection on which nothing more is
// pending, over UCX: both ends call this at the same point of their conversation, the side that
// accepted the connection (or serves the session) with `accepting`. The connecting side speaks
// first on the socket, so the accepting side must not have read ahead past that point (the
// connecting side may have: the other sends nothing until it has spoken). An encrypted lifeline is
// refused: UCX carries bytes in the clear.
Result<std::unique_ptr<Connection>> upgrade(std::unique_ptr<Connection> lifeline, bool accepting);

}  // namespace rgpu::transport::ucx
