// Where rgpud serves /metrics, and its start: RGPU_METRICS_LISTEN if set, else the configuration
// file's metrics.listen, else the default (loopback). "off" serves nothing. An address that was
// chosen (the variable or the file) must be served or rgpud does not start; the default's port
// taken by another rgpud on this host only costs a warning.
#pragma once

#include <optional>
#include <string>

#include "common/config.h"
#include "common/status.h"
#include "server/daemon/pool_service.h"
#include "transports/handshake_server.h"

namespace rgpu::server {

// `configured`: the file's metrics.listen; `tunable`: RGPU_METRICS_LISTEN (its default is the
// default address). Call before pool.start(); `handshakes` must outlive the service's thread.
Status start_metrics(PoolService& pool, const std::optional<std::string>& configured, const Tunable& tunable,
                     const transport::HandshakeServer& handshakes);

}  // namespace rgpu::server
