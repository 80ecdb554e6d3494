// The server side of the transport probe (common/wire/transport_probe.h): echoes, drains and
// sources bytes on a connection until the client closes it.
#pragma once

#include "common/status.h"
#include "transports/transport.h"

namespace rgpu::server {

// Serves probe requests until the client closes the connection (ok) or sends a bad frame.
Status serve_transport_probe(transport::Connection& conn);

}  // namespace rgpu::server
