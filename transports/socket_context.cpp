// The shared, never-run io_context of synchronous sockets.
#include "transports/socket_context.h"

#include <exception>
#include <string>

namespace rgpu::transport {

boost::asio::io_context& sync_context() {
  static auto* context = new boost::asio::io_context(1);
  return *context;
}

Status sync_context_after_fork() {
  try {
    sync_context().notify_fork(boost::asio::execution_context::fork_child);
  } catch (const std::exception& e) {
    return RGPU_ERROR(kIo, std::string("cannot give a forked child its own socket reactor: ") + e.what());
  }
  return Status::ok();
}

}  // namespace rgpu::transport
