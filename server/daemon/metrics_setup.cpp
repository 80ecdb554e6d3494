// Where rgpud serves /metrics, and its start (see metrics_setup.h).
#include "server/daemon/metrics_setup.h"

#include "common/log.h"

namespace rgpu::server {

Status start_metrics(PoolService& pool, const std::optional<std::string>& configured, const Tunable& tunable,
                     const transport::HandshakeServer& handshakes) {
  const bool chosen = tunable.is_set() || configured.has_value();
  const std::string address = tunable.is_set() ? tunable.get() : configured.value_or(tunable.default_value());
  const char* source = tunable.is_set() ? tunable.name() : configured ? "metrics.listen" : "the default";
  if (address == "off") {
    RGPU_LOG_INFO("metrics: off (%s)", source);
    return Status::ok();
  }
  Result<std::string> bound = pool.serve_metrics(address, [&handshakes] {
    const transport::HandshakeServer::Counts c = handshakes.counts();
    return std::map<std::string, uint64_t>{{"authenticated", c.authenticated},
                                           {"refused", c.refused},
                                           {"left", c.left},
                                           {"timed_out", c.timed_out},
                                           {"dropped", c.dropped}};
  });
  if (!bound.is_ok()) {
    const std::string why = bound.status().message().substr(0, bound.status().message().find('\n'));
    if (chosen) return RGPU_ERROR(kUnavailable, why + " (from " + source + "; choose another HOST:PORT there, or off)");
    RGPU_LOG_WARN("metrics: %s; rgpud serves no /metrics (set metrics.listen in the configuration or "
                  "RGPU_METRICS_LISTEN to another HOST:PORT)", why.c_str());
    return Status::ok();
  }
  RGPU_LOG_INFO("metrics: Prometheus's /metrics on http://%s/metrics (%s)", bound->c_str(), source);
  return Status::ok();
}

}  // namespace rgpu::server
