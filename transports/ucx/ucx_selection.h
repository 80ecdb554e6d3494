// RGPU_TRANSPORT: whether a session continues over UCX after its handshake. On the client it asks
// for UCX (its Hello says "ucx"); on rgpud it serves the clients that ask. The handshake itself
// always runs on the connection RGPU_SERVER / --listen name, so authentication is unchanged.
#pragma once

#include <memory>
#include <string>

#include "transports/transport.h"

namespace rgpu::transport {

// "ucx" when RGPU_TRANSPORT=ucx; empty for unset, "tcp" or "unix" (the address tells those apart);
// an error naming the choices for anything else.
Result<std::string> session_transport();

// The connection a session uses after its Welcome: `conn` itself when `transport` is empty, or
// `conn` continued over UCX (both ends call this at that point; rgpud's worker is `serving`).
Result<std::unique_ptr<Connection>> continue_session(std::unique_ptr<Connection> conn, const std::string& transport,
                                                     bool serving);

}  // namespace rgpu::transport
