// The stripe set (see stripe_set.h).
#include "server/session/stripe_set.h"

#include <sys/socket.h>
#include <unistd.h>

#include <exception>

#include "common/auth.h"
#include "common/log.h"
#include "transports/descriptor_passing.h"

namespace rgpu::server {

std::string stripe_socket_name(int daemon_pid, uint64_t session_id) {
  return "rgpud." + std::to_string(daemon_pid) + ".session." + std::to_string(session_id) + ".stripes";
}

StripeSet::~StripeSet() {
  stopping_ = true;
  if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
  if (acceptor_.joinable()) acceptor_.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

Status StripeSet::listen(const std::string& name, const transport::Welcome& welcome) {
  RGPU_ASSIGN_OR_RETURN(listen_fd_, transport::listen_local(name));
  welcome_ = welcome;
  acceptor_ = std::thread([this] { accept_loop(); });
  return Status::ok();
}

std::vector<transport::Connection*> StripeSet::first(size_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<transport::Connection*> out;
  for (size_t i = 0; i < n && i < stripes_.size(); ++i) out.push_back(stripes_[i].get());
  return out;
}

void StripeSet::accept_loop() {
  while (!stopping_) {
    int via = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (via < 0) {
      if (errno == EINTR) continue;
      return;  // shut down
    }
    // With no memory left (an address-space cap), a stripe is dropped, not the session: the client
    // then copies on the pipe, where a copy that finds no staging fails as out of memory.
    try {
      adopt(via);
    } catch (const std::exception& e) {
      RGPU_LOG_WARN("stripe hand-over failed: %s", e.what());
    }
    ::close(via);
  }
}

void StripeSet::adopt(int via) {
  transport::SessionSecret claimed{};
  auto fd = transport::receive_descriptor(via, claimed);
  if (!fd.is_ok()) {
    RGPU_LOG_WARN("stripe hand-over failed: %s", fd.status().message().c_str());
    return;
  }
  auto conn = transport::adopt_descriptor(*fd);
  if (!conn.is_ok()) {
    RGPU_LOG_WARN("stripe hand-over failed: %s", conn.status().message().c_str());
    return;
  }
  if (!auth::equal_constant_time(claimed, welcome_.session_secret)) {
    RGPU_LOG_WARN("stripe from %s refused: wrong session secret", (*conn)->peer().c_str());
    (void)transport::send_refused(**conn, "this stripe connection does not belong to the session it names");
    return;
  }
  // In the set before the client hears of it, so a copy the client then stripes finds it here.
  transport::Connection* c = conn->get();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stripes_.push_back(std::move(*conn));
  }
  Status st = transport::send_welcome(*c, welcome_);
  RGPU_LOG_DEBUG("session %llu: stripe from %s: %s", static_cast<unsigned long long>(welcome_.session_id),
                 c->peer().c_str(), st.to_string().c_str());
}

}  // namespace rgpu::server
