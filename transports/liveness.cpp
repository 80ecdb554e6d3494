// Liveness (see liveness.h).
#include "transports/liveness.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "common/config.h"

namespace rgpu::transport {
namespace {

const Tunable kPeerTimeout{"RGPU_PEER_TIMEOUT_S", "5",
                           "seconds of silence after which a session's peer counts as gone (a hung server, a cut "
                           "network); 0: never"};

std::string seconds_text(std::chrono::milliseconds ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(ms.count()) / 1000.0);
  return buf;
}

}  // namespace

std::chrono::milliseconds peer_timeout() {
  static const std::chrono::milliseconds timeout{std::max<int64_t>(0, kPeerTimeout.get_int()) * 1000};
  return timeout;
}

std::chrono::milliseconds heartbeat_interval() {
  // Sent even where this side's own timeout is off: the peer's may not be.
  if (peer_timeout().count() == 0) return std::chrono::milliseconds(1000);
  return std::clamp(peer_timeout() / 10, std::chrono::milliseconds(100), std::chrono::milliseconds(1000));
}

std::string peer_gone(const Connection& connection, std::chrono::milliseconds timeout, bool expect_data) {
  if (timeout.count() <= 0) return {};
  const std::optional<PeerSilence> silence = connection.peer_silence();
  if (!silence) return {};
  // The peer may have gone silent up to a heartbeat interval after its last sign of life.
  const auto limit = std::max(timeout - heartbeat_interval(), kLivenessLook);
  if (expect_data && silence->since_data >= limit)
    return "nothing, not even a heartbeat, came from " + connection.peer() + " for " + seconds_text(silence->since_data) +
           ": the server is hung or unreachable (RGPU_PEER_TIMEOUT_S sets how long to wait)";
  if (silence->unacknowledged_for >= limit)
    return connection.peer() + " acknowledged nothing for " + seconds_text(silence->unacknowledged_for) +
           ": its host is gone or the network is cut";
  return {};
}

}  // namespace rgpu::transport
