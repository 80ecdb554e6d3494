// The server's handshakes, many at once: accepts connections on a listener and runs each one's
// Hello, Challenge, Proof (handshake.h ServerHandshake) in one Boost.Asio event loop, on the thread
// that calls run(). Only a peer that proved a token comes out (`on_authenticated`), so rgpud forks a
// worker for nobody else: a port scan or a flood of idle connections costs descriptors and a little
// memory, never a process.
//
// Pending handshakes are bounded in time (Limits::timeout each) and in number, per peer address and
// in all. Past a bound the oldest pending handshake of that address (or of all) is dropped, and one
// that has sent nothing goes before one that has: a real client sends its Hello as soon as it
// connects, so idle connections, however many, never push it out, even while its Hello waits in the
// socket for this loop to read it.
//
// Each connection says by its first byte whether it speaks TLS (tls/tls_session.h); the TLS
// handshake runs in the same loop, before rgpu's, and a plain TCP one is refused, with a plain
// Refused frame saying why, where the TLS mode does not allow it for that peer. A Unix socket's
// connections are plain whatever the mode (nothing on them leaves the host); the bounds count its
// peers by user id, and the client's pid is the kernel's, not its claim.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "transports/handshake.h"
#include "transports/transport.h"

namespace rgpu::transport {

class HandshakeServer {
 public:
  struct Limits {
    std::chrono::milliseconds timeout{10000};  // from accept to the Proof checked
    size_t per_address = 64;                   // pending handshakes of one peer address
    size_t total = 1024;                       // pending handshakes in all
    tls::Mode tls = tls::Mode::kAuto;          // who may speak plain TCP
  };
  // An authenticated connection (its socket blocking and close-on-exec; the callee owns it), who
  // the client proved to be, and the peer for log lines. Runs on run()'s thread.
  using OnAuthenticated = std::function<void(AcceptedConnection&& connection, const ClientIdentity& client,
                                             const std::string& peer)>;

  // Serves `listeners` in one loop, on descriptors of its own (the listeners may go once this is
  // made); `identity` is what clients are checked against.
  HandshakeServer(std::span<const Listener* const> listeners, ServerIdentity identity, Limits limits,
                  OnAuthenticated on_authenticated);
  HandshakeServer(const Listener& listener, ServerIdentity identity, Limits limits, OnAuthenticated on_authenticated);
  ~HandshakeServer();

  // Runs the loop until stop(); a failure to accept (out of descriptors) is logged and retried.
  void run();
  // From any thread: run() returns soon after.
  void stop();
  // From any thread: runs `task` on run()'s thread, between two handshake steps (rgpud changes its
  // tenants' tokens and what each token means together, so no client is checked against one and
  // admitted under the other).
  void post(std::function<void()> task);
  // On run()'s thread only (inside a posted task): the tokens clients are checked against from
  // now on, ServerIdentity::tokens' meaning. A handshake in progress is checked against them too.
  void set_tokens(std::vector<std::string> tokens);

  // What became of the connections so far (for tests and the log's summaries).
  struct Counts {
    size_t authenticated = 0;
    size_t refused = 0;    // a protocol error or a wrong token: told why
    size_t left = 0;       // the peer closed (or broke) the connection mid-handshake
    size_t timed_out = 0;  // no complete handshake within the timeout
    size_t dropped = 0;    // pushed out by a bound
    size_t pending = 0;
  };
  // From any thread.
  Counts counts() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rgpu::transport
