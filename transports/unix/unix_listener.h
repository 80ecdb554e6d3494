// Unix socket listener: a socket file that rgpud owns while it listens. A stale file (nobody
// listens on it) is replaced; a live one, or a path that is not a socket, is refused. The file is
// made with the process's umask (its permissions are the operator's to set) and removed when the
// listener goes.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include <boost/asio/local/stream_protocol.hpp>

#include "transports/transport.h"

namespace rgpu::transport::unix_socket {

class UnixListener final : public Listener {
 public:
  // Binds and listens on "unix:PATH".
  static Result<std::unique_ptr<Listener>> open(const std::string& address);
  // Removes the socket file, if it is still the one this process made (not in a forked child, nor
  // after another listener replaced it).
  ~UnixListener() override;

  Result<std::unique_ptr<Connection>> accept() override;
  std::string address() const override { return "unix:" + path_; }
  // A Unix socket's peers are on this host: what loopback TCP is allowed, it is.
  bool is_loopback() const override { return true; }
  int native_handle() const override { return native_handle_; }

 private:
  UnixListener(boost::asio::local::stream_protocol::acceptor acceptor, std::string path, dev_t device, ino_t inode);

  boost::asio::local::stream_protocol::acceptor acceptor_;
  const std::string path_;
  const int native_handle_;
  const pid_t owner_;  // the process that made the file
  const dev_t device_;
  const ino_t inode_;
};

Result<std::unique_ptr<Listener>> listen(const std::string& address);

}  // namespace rgpu::transport::unix_socket
