// Unix socket listener: the socket file's life, bind, listen, accept.
#include "transports/unix/unix_listener.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/log.h"
#include "transports/socket_context.h"
#include "transports/stream_connection.h"
#include "transports/unix/unix_address.h"
#include "transports/unix/unix_connection.h"

namespace rgpu::transport::unix_socket {

namespace asio = boost::asio;
using Endpoint = asio::local::stream_protocol::endpoint;

namespace {

// Makes room for a new socket file at `path`: nothing there, or a socket nobody listens on (left
// by a daemon that was killed), which is removed. A listening socket and anything that is not a
// socket stay, and the listen fails.
Status clear_stale(const std::string& path) {
  struct stat st{};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::ok();
    return RGPU_ERROR(kUnavailable, "cannot listen on unix:" + path + ": " + std::strerror(errno));
  }
  if (!S_ISSOCK(st.st_mode))
    return RGPU_ERROR(kUnavailable, "cannot listen on unix:" + path + ": the path exists and is not a socket");
  asio::local::stream_protocol::socket probe(sync_context());
  boost::system::error_code ec;
  probe.open(asio::local::stream_protocol(), ec);
  if (!ec) probe.connect(Endpoint(path), ec);
  if (!ec) return RGPU_ERROR(kUnavailable, "cannot listen on unix:" + path + ": another process listens on it");
  if (ec != asio::error::connection_refused)
    return RGPU_ERROR(kUnavailable, "cannot listen on unix:" + path + ": cannot tell whether the socket there is in use (" +
                                        ec.message() + ")");
  RGPU_LOG_INFO("unix:%s: removing a stale socket file nobody listens on", path.c_str());
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    return RGPU_ERROR(kUnavailable, "cannot remove the stale socket unix:" + path + ": " + std::strerror(errno));
  return Status::ok();
}

}  // namespace

UnixListener::UnixListener(asio::local::stream_protocol::acceptor acceptor, std::string path, dev_t device, ino_t inode)
    : acceptor_(std::move(acceptor)),
      path_(std::move(path)),
      native_handle_(acceptor_.native_handle()),
      owner_(::getpid()),
      device_(device),
      inode_(inode) {}

UnixListener::~UnixListener() {
  struct stat st{};
  if (::getpid() == owner_ && ::lstat(path_.c_str(), &st) == 0 && st.st_dev == device_ && st.st_ino == inode_)
    ::unlink(path_.c_str());
}

Result<std::unique_ptr<Listener>> UnixListener::open(const std::string& address) {
  RGPU_ASSIGN_OR_RETURN(std::string path, parse_address(address));
  RGPU_TRY(clear_stale(path));
  auto fail = [&](const char* step, const std::string& why) {
    return RGPU_ERROR(kUnavailable, "cannot listen on " + address + ": " + step + ": " + why);
  };
  asio::local::stream_protocol::acceptor acceptor(sync_context());
  boost::system::error_code ec;
  acceptor.open(asio::local::stream_protocol(), ec);
  if (ec) return fail("socket", ec.message());
  RGPU_TRY(set_close_on_exec(acceptor.native_handle()));
  acceptor.bind(Endpoint(path), ec);
  if (ec) return fail("bind", ec.message());
  struct stat st{};
  if (::lstat(path.c_str(), &st) != 0) return fail("stat", std::strerror(errno));
  // From here the file is the listener's, so a failure below removes it.
  std::unique_ptr<UnixListener> listener(new UnixListener(std::move(acceptor), path, st.st_dev, st.st_ino));
  listener->acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return fail("listen", ec.message());
  return std::unique_ptr<Listener>(std::move(listener));
}

Result<std::unique_ptr<Connection>> UnixListener::accept() {
  asio::local::stream_protocol::socket socket(sync_context());
  boost::system::error_code ec;
  acceptor_.accept(socket, ec);
  if (ec) return RGPU_ERROR(kIo, "accept on " + address() + " failed: " + ec.message());
  RGPU_TRY(set_close_on_exec(socket.native_handle()));
  const int fd = socket.release(ec);
  if (ec) return RGPU_ERROR(kIo, "accept on " + address() + ": cannot take the socket: " + ec.message());
  return UnixConnection::adopt(fd);
}

Result<std::unique_ptr<Listener>> listen(const std::string& address) { return UnixListener::open(address); }

}  // namespace rgpu::transport::unix_socket
