// Liveness: how each end of a session tells that its peer stopped answering (a hung host, a
// stopped process, a cut network), within RGPU_PEER_TIMEOUT_S, without mistaking a long kernel or
// a long copy for a dead peer.
//
// The server's side sends a heartbeat frame every heartbeat_interval() from a thread of its own,
// whatever the session thread is doing (a 60 s kernel, a blocking copy). So:
//  - the client counts the server as gone once no byte at all has arrived for the timeout; the
//    kernel's receive time is asked, so a client busy elsewhere (a long host callback, a stopped
//    debugger) is not fooled by its own pause;
//  - the server counts the client as gone once data it sent (the heartbeats, at least) has waited
//    unacknowledged for the timeout: the client's kernel acknowledges whether or not its program
//    reads, so only a vanished host or a cut network looks like this.
// TCP_USER_TIMEOUT would say the second by itself, but since Linux 5.11 it also ends a connection
// whose peer advertises a zero window that long, which a live session does whenever its server
// waits on a long kernel before it reads the next copy's bytes. Keepalive covers connections that
// carry no heartbeats (a stripe between copies).
#pragma once

#include <chrono>
#include <string>

#include "transports/transport.h"

namespace rgpu::transport {

// RGPU_PEER_TIMEOUT_S (default 5); zero turns liveness off.
std::chrono::milliseconds peer_timeout();
// How often the server's side sends a heartbeat: a tenth of the timeout, between 100 ms and 1 s
// (1 s where the timeout is off: the client's may not be).
// A peer counts as gone once its last sign of life is the timeout less one interval old, so it is
// given up on within the timeout of its going silent.
std::chrono::milliseconds heartbeat_interval();
// How often each side looks (a getsockopt), so that a peer is given up on within the timeout of
// its last sign of life, give or take this.
inline constexpr std::chrono::milliseconds kLivenessLook{100};

// Why the peer of `connection` counts as gone now (empty: it does not). `expect_data`: the peer
// sends heartbeats (the client's view of its server).
std::string peer_gone(const Connection& connection, std::chrono::milliseconds timeout, bool expect_data);

}  // namespace rgpu::transport
