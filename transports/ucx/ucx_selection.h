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

// What a client's Hello asks for, connecting to `address`: "ucx" with RGPU_TRANSPORT=ucx; "shm"
// for a Unix socket (unix:PATH) unless RGPU_SHM_PIPE=0 (transports/shm/README.md); else empty.
Result<std::string> client_session_transport(const std::string& address);

// The connection a session uses after its Welcome: `conn` itself when `transport` is empty, or
// `conn` continued over UCX or shared memory (both ends call this at that point; rgpud's worker is
// `serving`). Shared memory may be declined by either end: the session then stays on `conn`.
Result<std::unique_ptr<Connection>> continue_session(std::unique_ptr<Connection> conn, const std::string& transport,
                                                     bool serving);

}  // namespace rgpu::transport
