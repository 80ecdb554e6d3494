// The client side of the transport probe (common/wire/transport_probe.h): measures the raw
// connection to rgpud (a 64-byte round trip, and streams both ways over 1, 4 or N connections)
// with no GPU session behind it: the physical floor that remote CUDA calls are held to.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "bench/cli/measurement.h"
#include "common/status.h"

namespace rgpu::bench {

struct ServerEndpoint {
  std::string address;  // host:port
  std::string token;
  std::chrono::milliseconds handshake_timeout{60000};
};

struct ServerInfo {
  std::string backend;  // "cuda" or "emulated"
  std::string device;   // the first device's name ("+ N more" when there are several)
  uint64_t memory_bytes = 0;  // the first device's memory, as the session sees it
};

// Asks rgpud who it is, with an ordinary session handshake (what `rgpu ls` does), since the
// probe's own Welcome names no backend or devices.
Result<ServerInfo> query_server(const ServerEndpoint& server);

struct ProbePlan {
  bool quick = false;
  std::vector<int> stream_connections = {1, 4};  // one sink and one source row per count
};

// Rows: names::kPingPong (median us) then names::sink(n) and names::source(n) (GB/s) per count.
Result<Measurements> run_transport_probe(const ServerEndpoint& server, const ProbePlan& plan);

}  // namespace rgpu::bench
