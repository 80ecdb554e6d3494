// A session's worker process, for a client that has proved its token to rgpud's parent
// (transports/handshake_server.h): asks the parent for the session's slice (server/daemon/
// pool_service.h, over the worker's link), starts the backend on the GPU it was placed on, serves
// the session and reports its end. rgpud forks one per authenticated connection, so one tenant's
// crash, hang or leak never touches another's, and everything it held is freed when the process
// exits; it ends with rgpud too (main.cpp). A control connection (`rgpu pool`, `rgpu ls`) is served
// here as well: its requests go to the parent, which owns the pool's books.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "server/pool/pool_config.h"
#include "server/session/pool_link.h"
#include "transports/handshake.h"
#include "transports/transport.h"

namespace rgpu::server {

// The tokens the handshake checks clients against (ServerIdentity::tokens) and, for each, the
// tenant it proves: an index into the pool's tenants, or -1 for the admin token. A tenant may have
// several tokens (aliases); a removed one has none. Made anew whenever the tenants change.
struct TokenTable {
  std::vector<std::string> tokens;
  std::vector<int> tenant;            // by token
  std::vector<int> tenant_priority;   // by tenant index
};
TokenTable token_table(const pool::DaemonConfig& config);

struct WorkerConfig {
  std::string backend;       // "cuda" or "emulated"
  TokenTable tokens;         // as when the worker's client was authenticated
  std::string admin_token;   // `rgpu pool` / `rgpu pool set`
  int daemon_pid = 0;                      // names the local sockets over which stripes reach their session
  std::chrono::milliseconds idle_release{10};  // a turn's holder that sends nothing this long gives it back
  // The host's GPUs. On a host with one, a session waiting in the queue knows its GPU already and
  // loads the driver meanwhile (Backend::prepare: cuInit, 107 ms on the H200; no GPU memory).
  size_t gpus = 0;
  bool mps = false;  // the GPUs are shared through rgpud's MPS daemon (mps_daemon.h)
};

// Runs the session to its end; returns the process exit code. `client` is who the handshake
// proved; `link` is the worker's end of its channel to the parent.
int run_worker(std::unique_ptr<transport::Connection> conn, uint64_t session_id, const transport::ClientIdentity& client,
               const WorkerConfig& config, const PoolLink& link);

}  // namespace rgpu::server
