// rgpud's Prometheus metrics, in the text exposition format (version 0.0.4). Every metric is
// declared once, in the table in pool_metrics.cpp (name, type, help, and where its samples come
// from), and rendered from the pool's view (Pool::view, what `rgpu pool --json` shows) and the
// daemon's counters. Pure: no I/O, no clock. rgpud's parent serves it on /metrics
// (server/daemon/metrics_server.h); docs/operations.md lists the metrics.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "server/pool/pool.h"

namespace rgpu::pool {

// What a session's worker counted (server/session/session.h): calls executed, the round trips
// among them (a call whose reply the client waited for, or a module load), and bytes from the
// client and to it (frames and striped copies).
struct Traffic {
  uint64_t calls = 0, round_trips = 0, bytes_received = 0, bytes_sent = 0;
  Traffic& operator+=(const Traffic& o);
};

// Why a session ended, as its worker says (the last one: its worker ended without saying, killed
// or crashed).
inline constexpr std::string_view kEndCauses[] = {"client_closed", "client_unresponsive", "backend_failed", "error",
                                                   "worker_died"};
// One of kEndCauses: `cause` itself if it is one, else "error" (a worker runs code a tenant's calls
// reach, so what it says must not make new series).
std::string_view end_cause_label(std::string_view cause);

struct DaemonCounters {
  uint64_t sessions_started = 0;                    // admitted (at once or from the queue)
  std::map<std::string, uint64_t> sessions_ended;   // by cause (kEndCauses)
  uint64_t admissions_refused = 0;  // asked more than its tenant allows, or gave up in the queue
  // The handshakes so far, by outcome: authenticated, refused, left, timed_out, dropped
  // (transports/handshake_server.h).
  std::map<std::string, uint64_t> handshakes;
  std::map<std::string, Traffic> ended_traffic;  // by tenant: what its ended sessions counted
};

struct MetricsInput {
  const PoolView& view;
  const std::map<uint64_t, Traffic>& traffic;  // the live sessions' latest reports, by session id
  const DaemonCounters& counters;
};

// The /metrics page: HELP and TYPE lines, then the samples, for every metric of the table.
std::string render_metrics(const MetricsInput& in);

// A label's value in the text format: backslash, double quote and line feed escaped, bytes that are
// not UTF-8 replaced by U+FFFD (a program name is whatever its client sent).
std::string escape_label_value(std::string_view s);

}  // namespace rgpu::pool
