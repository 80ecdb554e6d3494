// A session's worker process: authenticates the client, starts the backend, serves the session
// and reports its end. rgpud forks one per accepted connection, so one tenant's crash, hang or
// leak never touches another's, and everything it held is freed when the process exits.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "transports/transport.h"

namespace rgpu::server {

struct WorkerConfig {
  std::string backend;  // "cuda" or "emulated"
  std::string token;    // empty: no authentication
  int daemon_pid = 0;   // names the local sockets over which stripes reach their session
};

// Runs the session to its end; returns the process exit code.
int run_worker(std::unique_ptr<transport::Connection> conn, uint64_t session_id, const WorkerConfig& config);

}  // namespace rgpu::server
