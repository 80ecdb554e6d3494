// Descriptor passing (see descriptor_passing.h).
#include "transports/descriptor_passing.h"

#include <limits.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>


namespace rgpu::transport {
namespace {

constexpr size_t kMaxMessage = 256;

Result<sockaddr_un> abstract_address(const std::string& name, socklen_t* len) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (name.empty() || name.size() + 1 > sizeof a.sun_path)
    return RGPU_ERROR(kInvalidArgument, "bad local socket name '" + name + "'");
  // sun_path[0] == 0: the abstract namespace.
  std::memcpy(a.sun_path + 1, name.data(), name.size());
  *len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  return a;
}

Status errno_status(const std::string& what) { return RGPU_ERROR(kIo, what + ": " + std::strerror(errno)); }

}  // namespace

Result<int> listen_local(const std::string& name) {
  socklen_t len = 0;
  RGPU_ASSIGN_OR_RETURN(sockaddr_un a, abstract_address(name, &len));
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno_status("socket(AF_UNIX)");
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(fd, 16) != 0) {
    Status st = errno_status("cannot listen on local socket " + name);
    ::close(fd);
    return st;
  }
  return fd;
}

Result<int> connect_local(const std::string& name) {
  socklen_t len = 0;
  RGPU_ASSIGN_OR_RETURN(sockaddr_un a, abstract_address(name, &len));
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno_status("socket(AF_UNIX)");
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), len) != 0) {
    Status st = errno_status("cannot reach local socket " + name);
    ::close(fd);
    return st;
  }
  return fd;
}

ssize_t send_with_descriptor(int via, std::span<const iovec> segments, int fd) {
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr m{};
  m.msg_iov = const_cast<iovec*>(segments.data());
  m.msg_iovlen = std::min<size_t>(segments.size(), IOV_MAX);
  m.msg_control = control;
  m.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  ssize_t n;
  do n = ::sendmsg(via, &m, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  return n;
}

Status send_descriptor(int via, int fd, std::span<const uint8_t> message) {
  if (message.size() > kMaxMessage) return RGPU_ERROR(kInvalidArgument, "descriptor message too long");
  iovec v{const_cast<uint8_t*>(message.data()), message.size()};
  if (send_with_descriptor(via, {&v, 1}, fd) != static_cast<ssize_t>(message.size()))
    return errno_status("sendmsg(SCM_RIGHTS)");
  return Status::ok();
}

Result<int> receive_descriptor(int via, std::span<uint8_t> message) {
  if (message.size() > kMaxMessage) return RGPU_ERROR(kInvalidArgument, "descriptor message too long");
  iovec v{message.data(), message.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr m{};
  m.msg_iov = &v;
  m.msg_iovlen = 1;
  m.msg_control = control;
  m.msg_controllen = sizeof control;
  ssize_t n;
  do n = ::recvmsg(via, &m, MSG_CMSG_CLOEXEC | MSG_WAITALL);
  while (n < 0 && errno == EINTR);
  if (n < 0) return errno_status("recvmsg(SCM_RIGHTS)");
  int fd = -1;
  for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
      std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
  }
  if (fd < 0) return RGPU_ERROR(kProtocol, "a local peer sent no descriptor");
  if (n != static_cast<ssize_t>(message.size()) || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
    ::close(fd);
    return RGPU_ERROR(kProtocol, "a local peer sent a descriptor with a bad message");
  }
  return fd;
}

Result<std::unique_ptr<Connection>> adopt_descriptor(int fd) { return adopt(AcceptedConnection(fd, nullptr)); }

}  // namespace rgpu::transport
