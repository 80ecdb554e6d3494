// The connection handshake, over any Connection:
//   client Hello{protocol, api hash, version, host, pid, role, requests, program}
//   server Challenge{protocol, api hash, version, nonce, auth_required}
//   client Proof{HMAC-SHA256(token, nonce + channel binding)}
//   server [Queued{position, waiting for, waited}...] Welcome{session id, backend, devices, server proof} | Refused{reason}
// Over TLS the proofs cover the channel binding (tls/tls_session.h), and the server proves the token
// too (HMAC over the Hello's client nonce): a client with a token takes no Welcome without it, so a
// man in the middle can neither get a session from the server nor pose as it.
// The server side has two steps because it initialises its GPU backend between them. The protocol
// version and API hash come from the caller (which knows the generated kApiHash), so transports
// do not depend on generated code. Every message is verified before use; a peer's bad input is a
// Status, never a crash.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/auth.h"
#include "common/status.h"
#include "common/wire/frame.h"
#include "transports/transport.h"

namespace rgpu::transport {

// What a connection is for (control.fbs ConnectionRole).
// kControl: `rgpu pool` / `rgpu ls`, no GPU session; after the Welcome the client sends PoolRequests
// (transports/control_channel.h).
enum class Role : uint8_t { kCallPipe = 0, kStripe = 1, kTransportProbe = 2, kControl = 3 };

// Proves which session a Stripe connection joins; handed out in that session's Welcome.
using SessionSecret = auth::Nonce;

struct ClientIdentity {
  uint32_t protocol_version = 0;
  uint64_t api_hash = 0;
  std::string client_version;  // rgpu version, for messages
  std::string host;
  uint32_t pid = 0;
  Role role = Role::kCallPipe;
  uint64_t session_id = 0;  // kStripe: the session joined
  SessionSecret session_secret{};
  uint64_t memory_request = 0;   // bytes of GPU memory asked for (RGPU_MEMORY); 0: all the tenant allows
  uint32_t compute_request = 0;  // percent of a GPU's compute asked for (RGPU_COMPUTE); 0: all allowed
  std::string program{};         // the client program's name (as sent: clean it before printing)
  int64_t queue_timeout_ms = -1;  // longest wait in the pool's admission queue (RGPU_QUEUE_TIMEOUT); -1: the tenant's
  std::string transport{};        // "ucx": continue over UCX after the Welcome (RGPU_TRANSPORT); "shm": offer shared
                                  // memory after it (a Unix-socket client); empty: stay
  // Set by server_authenticate: the index in ServerIdentity::tokens of the token the client's proof
  // matched; -1 when the server requires no authentication. Never sent.
  int token_index = -1;
  // Set with token_index: the server's proof of that token, for the Welcome. Never sent as such.
  std::vector<uint8_t> server_proof{};
};

struct ServerIdentity {
  uint32_t protocol_version = 0;
  uint64_t api_hash = 0;
  std::string server_version;
  // The tokens a client may prove (e.g. the admin's, then each tenant's). Authentication is required
  // iff one of them is non-empty; empty entries never match. Which one matched comes back in
  // ClientIdentity::token_index.
  std::vector<std::string> tokens;
};

struct DeviceInfo {
  int32_t ordinal = 0;
  std::string name;
  uint64_t total_memory = 0;
  int32_t major = 0;
  int32_t minor = 0;
};

struct Welcome {
  uint64_t session_id = 0;
  std::string backend;  // "cuda" or "emulated"
  std::vector<DeviceInfo> devices;
  SessionSecret session_secret{};
  std::vector<uint8_t> server_proof;  // ClientIdentity::server_proof; checked by client_handshake
};

// The session waits in the pool's admission queue: the server sends a notice when it joins and
// every kQueueNoticeEvery while it waits.
inline constexpr std::chrono::seconds kQueueNoticeEvery{10};
struct QueueNotice {
  uint32_t position = 0;  // 1 = next to start
  std::string waiting_for;
  uint64_t waited_ms = 0;
  int64_t timeout_ms = -1;  // -1: waits until it fits
};
// What a client does while queued: `on_notice` gets each notice, and a server that sends none for
// `quiet_limit` (or the handshake's timeout, if longer) is taken for gone.
struct QueueWait {
  std::function<void(const QueueNotice&)> on_notice;
  std::chrono::milliseconds quiet_limit = 3 * kQueueNoticeEvery;
};

// Control frames of the handshake are small; a larger payload is refused before allocation.
inline constexpr uint32_t kMaxHandshakePayload = 64 << 10;

// Runs the client side. A refusal comes back as Code::kAuth carrying the server's reason; an
// empty token sends an empty proof (a server that requires one refuses, saying to set RGPU_TOKEN).
// With a timeout, a server that does not finish the handshake in time (a port that is no rgpud, a
// wedged host) ends it with Code::kClosed instead of a hang. While the session waits in the pool's
// queue, each Queued notice goes to `queue.on_notice` and starts the timeout again, at least
// `queue.quiet_limit` long (a short handshake timeout must not end a wait the notices show alive).
Status client_handshake(Connection& connection, const ClientIdentity& client, std::string_view token,
                        Welcome* out, std::chrono::milliseconds timeout = std::chrono::milliseconds{0},
                        const QueueWait& queue = {});

// Connects to `address` (transport::connect) and runs client_handshake over it. A server that
// closes the connection before it answers the Hello dropped it unread: rgpud, flooded, drops
// pending handshakes past its bounds, silent ones first, and a client's Hello may not have reached
// it yet. Such a connection is made again, up to kHandshakeAttempts times in all, 50 ms apart and
// doubling; any other failure (no server, a refusal, a timeout) is returned at once.
inline constexpr int kHandshakeAttempts = 4;
Result<std::unique_ptr<Connection>> connect_and_handshake(const std::string& address, const ClientIdentity& client,
                                                          std::string_view token, Welcome* out,
                                                          std::chrono::milliseconds timeout,
                                                          const QueueWait& queue = {});

// The server's side of Hello, Challenge, Proof without any I/O: an event loop that reads frames
// itself (rgpud's, server/daemon/authenticator.h) feeds it each frame; server_authenticate drives it
// over a blocking Connection. Every check of peer input is here, so both run the same ones.
class ServerHandshake {
 public:
  enum class Step { kHello, kProof, kDone };
  explicit ServerHandshake(const ServerIdentity& server) : server_(server) {}
  // The connection's channel binding (Connection::channel_binding), before the first take().
  void bind_to_channel(std::span<const uint8_t> binding) { binding_.assign(binding.begin(), binding.end()); }

  Step step() const { return step_; }
  // Checks the header of the client's next frame: valid, the control message this step expects,
  // within kMaxHandshakePayload. Nothing need be allocated for a frame it refuses.
  Status check_header(const wire::FrameHeader& header) const;
  // Takes that frame's payload. After the Hello, `reply` is the Challenge frame (header and
  // payload) to send; after the Proof it is empty and the handshake is done: ok once the proof
  // matched a token (client().token_index). An error is the client's, to be sent as Refused.
  Status take(std::span<const uint8_t> payload, std::vector<uint8_t>& reply);
  // Filled as soon as the Hello is read, so a refusal can say who was refused.
  const ClientIdentity& client() const { return client_; }

 private:
  Status take_hello(std::span<const uint8_t> payload, std::vector<uint8_t>& reply);
  Status take_proof(std::span<const uint8_t> payload);

  const ServerIdentity& server_;
  Step step_ = Step::kHello;
  ClientIdentity client_;
  auth::Nonce nonce_{};
  std::vector<uint8_t> client_nonce_;
  std::vector<uint8_t> binding_;
  bool auth_required_ = false;
};

// A Refused frame (header and payload) for a loop that sends it itself; the reason is cut to what a
// handshake message may carry.
std::vector<uint8_t> refused_frame(std::string_view reason);

// Server step one: reads and checks the Hello, sends the Challenge, checks the Proof. On any
// failure it sends Refused with the reason (when the connection still works) before returning the
// error. *out is filled as soon as a Hello is read, so a caller can log who was refused; its
// token_index is set once the proof matched one of server.tokens.
// A non-zero timeout bounds the whole step: when it passes the connection is shut down and the
// step fails with kClosed ("no handshake within ...").
Status server_authenticate(Connection& connection, const ServerIdentity& server, ClientIdentity* out,
                           std::chrono::milliseconds timeout = std::chrono::milliseconds{0});

// Server step two: accept the session, or refuse it (e.g. the backend could not start).
Status send_welcome(Connection& connection, const Welcome& welcome);
Status send_refused(Connection& connection, std::string_view reason);
// Between the two steps, while the session waits for room in the pool.
Status send_queued(Connection& connection, const QueueNotice& notice);

}  // namespace rgpu::transport
