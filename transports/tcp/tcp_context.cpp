// The shared, never-run io_context of synchronous TCP sockets.
#include "transports/tcp/tcp_context.h"

namespace rgpu::transport::tcp {

boost::asio::io_context& sync_context() {
  static auto* context = new boost::asio::io_context(1);
  return *context;
}

}  // namespace rgpu::transport::tcp
