// Memory pools shared between sessions of one rgpud (cudaMemPoolExportToShareableHandle and
// cudaMemPoolImportFromShareableHandle with a POSIX descriptor). The driver's descriptor is made in
// the exporting session's worker, and the importing process's session is another worker; neither
// client can hold it (a client may be on another host). So the exporting worker keeps the
// descriptor under a fresh random secret and hands a duplicate, over a local socket named by its
// session, to any worker that presents the secret; the clients pass session and secret around as a
// stand-in descriptor (client/runtime/mem_pool_sharing.cpp). Holding the secret is what holding the
// descriptor is natively: the right to import. An export lives as long as its session.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"

namespace rgpu::server {

class PoolShares {
 public:
  using Secret = std::array<uint8_t, 32>;

  PoolShares() = default;
  ~PoolShares();
  PoolShares(const PoolShares&) = delete;
  PoolShares& operator=(const PoolShares&) = delete;

  // Which rgpud and session this is (before the session runs); without it nothing is shared.
  void place(int daemon_pid, uint64_t session_id);
  uint64_t session_id() const { return session_id_; }

  // Keeps `fd` (owned from now on, closed with the session) under a fresh secret, and serves it.
  Result<Secret> offer(int fd);
  // A duplicate of the descriptor that session `session_id` of this rgpud offered under `secret`;
  // kInvalidArgument when that session has ended or has no such export.
  Result<int> claim(uint64_t session_id, const Secret& secret) const;

 private:
  struct Offer {
    Secret secret;
    int fd;
  };
  void serve_loop();
  void serve(int via);

  int daemon_pid_ = -1;
  uint64_t session_id_ = 0;
  int listen_fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::thread server_;
  std::mutex mu_;
  std::vector<Offer> offers_;
};

// The local socket name of session `session_id`'s shares, of the rgpud with process id `daemon_pid`.
std::string pool_share_socket_name(int daemon_pid, uint64_t session_id);

}  // namespace rgpu::server
