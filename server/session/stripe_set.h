// A session's stripe connections: extra data connections over which large copies are split, so
// that one copy uses several TCP streams (and cores) at once. Each arrives at rgpud as a
// connection of its own, is authenticated by a fresh worker, and is handed to this session's worker
// over a local socket together with the session secret (transports/descriptor_passing.h); the set
// checks the secret, welcomes the connection and keeps it for the session's life.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "transports/handshake.h"
#include "transports/transport.h"

namespace rgpu::server {

class StripeSet {
 public:
  StripeSet() = default;
  ~StripeSet();
  StripeSet(const StripeSet&) = delete;
  StripeSet& operator=(const StripeSet&) = delete;

  // Starts accepting handed-over stripes on the local socket `name`; `welcome` is sent to each.
  Status listen(const std::string& name, const transport::Welcome& welcome);

  // The first n stripes; fewer when fewer have arrived. Which stripe carries which slice of a copy
  // does not matter: every slice says where it belongs.
  std::vector<transport::Connection*> first(size_t n);

 private:
  void accept_loop();
  void adopt(int via);

  int listen_fd_ = -1;
  transport::Welcome welcome_;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  std::mutex mu_;
  std::vector<std::unique_ptr<transport::Connection>> stripes_;
};

// The local socket name of session `session_id` of the rgpud with process id `daemon_pid`.
std::string stripe_socket_name(int daemon_pid, uint64_t session_id);

}  // namespace rgpu::server
