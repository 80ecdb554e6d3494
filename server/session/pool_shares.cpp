// Shared memory pools' descriptors between workers (see pool_shares.h).
#include "server/session/pool_shares.h"

#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "common/auth.h"
#include "common/log.h"
#include "transports/descriptor_passing.h"

namespace rgpu::server {
namespace {

constexpr uint8_t kFound = 1;

// A peer that connects and says nothing must not hold the server's one thread.
void limit_receive(int fd) {
  timeval limit{1, 0};
  (void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
}

}  // namespace

std::string pool_share_socket_name(int daemon_pid, uint64_t session_id) {
  return "rgpud." + std::to_string(daemon_pid) + ".session." + std::to_string(session_id) + ".pool-shares";
}

PoolShares::~PoolShares() {
  stopping_ = true;
  if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
  if (server_.joinable()) server_.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  for (const Offer& o : offers_) ::close(o.fd);
}

void PoolShares::place(int daemon_pid, uint64_t session_id) {
  daemon_pid_ = daemon_pid;
  session_id_ = session_id;
}

Result<PoolShares::Secret> PoolShares::offer(int fd) {
  std::lock_guard<std::mutex> lock(mu_);
  if (daemon_pid_ < 0) {
    ::close(fd);
    return RGPU_ERROR(kUnavailable, "this server shares no pools between sessions");
  }
  if (listen_fd_ < 0) {  // the first export: start serving
    auto listening = transport::listen_local(pool_share_socket_name(daemon_pid_, session_id_));
    if (!listening.is_ok()) {
      ::close(fd);
      return listening.status();
    }
    listen_fd_ = *listening;
    server_ = std::thread([this] { serve_loop(); });
  }
  const auth::Nonce nonce = auth::random_nonce();
  Offer o{};
  std::copy(nonce.begin(), nonce.end(), o.secret.begin());
  o.fd = fd;
  offers_.push_back(o);
  return o.secret;
}

void PoolShares::serve_loop() {
  while (!stopping_) {
    const int via = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (via < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // shut down
    }
    serve(via);
    ::close(via);
  }
}

// One claim: the secret in, the descriptor out when it names an offer; else the socket closes
// with nothing sent.
void PoolShares::serve(int via) {
  limit_receive(via);
  Secret claimed{};
  if (::recv(via, claimed.data(), claimed.size(), MSG_WAITALL) != static_cast<ssize_t>(claimed.size())) return;
  std::lock_guard<std::mutex> lock(mu_);
  for (const Offer& o : offers_) {
    if (!auth::equal_constant_time(o.secret, claimed)) continue;
    const uint8_t found = kFound;
    Status st = transport::send_descriptor(via, o.fd, {&found, 1});
    if (!st.is_ok()) RGPU_LOG_WARN("a shared pool's hand-over failed: %s", st.message().c_str());
    return;
  }
  RGPU_LOG_WARN("session %llu: a claim of a shared pool named no export of this session",
                static_cast<unsigned long long>(session_id_));
}

Result<int> PoolShares::claim(uint64_t session_id, const Secret& secret) const {
  auto not_found = [&] {
    return RGPU_ERROR(kInvalidArgument, "session " + std::to_string(session_id) +
                                     " of this rgpud has no such shared pool (has it ended?)");
  };
  if (daemon_pid_ < 0) return RGPU_ERROR(kUnavailable, "this server shares no pools between sessions");
  auto via = transport::connect_local(pool_share_socket_name(daemon_pid_, session_id));
  if (!via.is_ok()) return not_found();
  limit_receive(*via);
  Result<int> fd = RGPU_ERROR(kInvalidArgument, "");
  if (::send(*via, secret.data(), secret.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(secret.size())) {
    uint8_t found = 0;
    fd = transport::receive_descriptor(*via, {&found, 1});
  }
  ::close(*via);
  if (!fd.is_ok()) return not_found();
  return fd;
}

}  // namespace rgpu::server
