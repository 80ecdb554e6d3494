// The connection handshake: Hello, Challenge, Proof, then Welcome or Refused.
#include "transports/handshake.h"
#include "transports/peer_text.h"

#include <algorithm>
#include <cstring>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <stop_token>
#include <thread>

#include "common/auth.h"
#include "common/wire/control.h"

namespace rgpu::transport {

namespace fb = wire::fb;

namespace {

Status send_control(Connection& connection, fb::ControlType type, const flatbuffers::FlatBufferBuilder& builder) {
  return connection.send_frame(wire::control_header(type, builder.GetSize()), wire::control_bytes(builder), {});
}

// Handshake messages are small: a larger one is refused before anything is allocated for it.
Status check_size(const wire::FrameHeader& header) {
  if (header.payload_len <= kMaxHandshakePayload) return Status::ok();
  return RGPU_ERROR(kProtocol, "handshake message " + wire::control_type_name(header.method) + " of " +
                                   std::to_string(header.payload_len) + " bytes exceeds the limit of " +
                                   std::to_string(kMaxHandshakePayload));
}

// Reads the next handshake message into payload: it must be `want`, or Refused when the peer is
// the server. The header is validated and the size bounded before anything is allocated.
// With `queued`, a Queued notice is accepted too (and says so there).
Status recv_message(Connection& connection, fb::ControlType want, bool refusal_allowed, std::vector<uint8_t>& payload,
                    bool* refused, bool* queued = nullptr) {
  wire::FrameHeader header;
  RGPU_TRY(connection.recv_header(header));
  const bool control = header.kind == static_cast<uint16_t>(wire::FrameKind::kControl);
  *refused = refusal_allowed && control && header.method == static_cast<uint32_t>(fb::ControlType::Refused);
  const bool is_queued = queued && control && header.method == static_cast<uint32_t>(fb::ControlType::Queued);
  if (queued) *queued = is_queued;
  RGPU_TRY(wire::expect_control(header, *refused ? fb::ControlType::Refused : is_queued ? fb::ControlType::Queued : want));
  RGPU_TRY(check_size(header));
  payload.resize(header.payload_len);
  return connection.recv_exact(payload.data(), payload.size());
}

// What a proof is the HMAC of: the other side's nonce and the channel binding (empty on plain TCP),
// after a label for the server's, so that neither side's proof can stand for the other's.
auth::Mac make_proof(std::string_view token, std::string_view label, std::span<const uint8_t> nonce,
                std::span<const uint8_t> binding) {
  std::vector<uint8_t> message(label.begin(), label.end());
  message.insert(message.end(), nonce.begin(), nonce.end());
  message.insert(message.end(), binding.begin(), binding.end());
  return auth::hmac_sha256(token, message);
}
constexpr std::string_view kClientLabel = "";  // the proof of protocol 3 and before, on plain TCP
constexpr std::string_view kServerLabel = "rgpud";

std::string hex64(uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// Why a client and a server cannot talk, naming both sides' versions; empty when they can.
std::string incompatibility(uint32_t client_protocol, uint64_t client_api, std::string_view client_version,
                            uint32_t server_protocol, uint64_t server_api, std::string_view server_version) {
  const std::string versions =
      " (client rgpu " + printable(client_version, 64) + ", server rgpu " + printable(server_version, 64) + ")";
  if (client_protocol != server_protocol)
    return "protocol version mismatch: client speaks " + std::to_string(client_protocol) + ", server speaks " +
           std::to_string(server_protocol) + " — upgrade rgpu on the older side" + versions;
  if (client_api != server_api)
    return "API mismatch: client API hash " + hex64(client_api) + ", server API hash " + hex64(server_api) +
           " — client and server were generated from different CUDA API specs; install the same rgpu build "
           "on both sides" +
           versions;
  return {};
}

// The message of a status without its file:line trail: what a peer is told.
std::string_view first_line(const Status& status) {
  std::string_view m = status.message();
  return m.substr(0, m.find('\n'));
}

// Shuts the connection down if the handshake is still running when the timeout passes.
class Watchdog {
 public:
  Watchdog(Connection& connection, std::chrono::milliseconds timeout) : timeout_(timeout) {
    if (timeout.count() <= 0) return;
    deadline_ = std::chrono::steady_clock::now() + timeout;
    thread_ = std::jthread([this, &connection](std::stop_token stop) {
      std::unique_lock lock(mutex_);
      for (;;) {
        const auto deadline = deadline_;
        if (cv_.wait_until(lock, stop, deadline, [&] { return deadline_ != deadline; })) continue;  // kicked
        if (stop.stop_requested()) return;
        expired_.store(true);
        connection.shutdown();
        return;
      }
    });
  }
  // The peer showed it is alive: the timeout starts again, at least `at_least` long.
  void kick(std::chrono::milliseconds at_least) {
    if (!thread_.joinable()) return;
    {
      std::lock_guard lock(mutex_);
      deadline_ = std::chrono::steady_clock::now() + std::max(timeout_, at_least);
    }
    cv_.notify_all();
  }
  // Stops watching; true when the timeout had already passed.
  bool finish() {
    if (thread_.joinable()) {
      thread_.request_stop();
      thread_.join();
    }
    return expired_.load();
  }

 private:
  const std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  std::condition_variable_any cv_;
  std::chrono::steady_clock::time_point deadline_{};
  std::atomic<bool> expired_{false};
  std::jthread thread_;  // last: it stops before the members it uses go
};

// A control message as one frame's bytes: header, then payload.
std::vector<uint8_t> control_frame(fb::ControlType type, const flatbuffers::FlatBufferBuilder& builder) {
  const wire::FrameHeader header = wire::control_header(type, builder.GetSize());
  std::vector<uint8_t> frame(sizeof header + builder.GetSize());
  std::memcpy(frame.data(), &header, sizeof header);
  std::memcpy(frame.data() + sizeof header, builder.GetBufferPointer(), builder.GetSize());
  return frame;
}

Status send_whole(Connection& connection, std::span<const uint8_t> frame) {
  const iovec segment{const_cast<uint8_t*>(frame.data()), frame.size()};
  return connection.send_bytes({&segment, 1});
}

// Reads frames into the handshake until it is done, sending its replies.
Status authenticate(Connection& connection, ServerHandshake& handshake) {
  std::vector<uint8_t> payload, reply;
  while (handshake.step() != ServerHandshake::Step::kDone) {
    wire::FrameHeader header;
    RGPU_TRY(connection.recv_exact(&header, sizeof header));
    RGPU_TRY(handshake.check_header(header));
    payload.resize(header.payload_len);
    RGPU_TRY(connection.recv_exact(payload.data(), payload.size()));
    RGPU_TRY(handshake.take(payload, reply));
    if (!reply.empty()) RGPU_TRY(send_whole(connection, reply));
  }
  return Status::ok();
}

}  // namespace

Status ServerHandshake::check_header(const wire::FrameHeader& header) const {
  if (step_ == Step::kDone) return RGPU_ERROR(kProtocol, "the handshake is over; no more handshake messages");
  RGPU_TRY(wire::validate(header));
  RGPU_TRY(wire::expect_control(header, step_ == Step::kHello ? fb::ControlType::Hello : fb::ControlType::Proof));
  return check_size(header);
}

Status ServerHandshake::take(std::span<const uint8_t> payload, std::vector<uint8_t>& reply) {
  reply.clear();
  if (step_ == Step::kHello) {
    RGPU_TRY(take_hello(payload, reply));
    step_ = Step::kProof;
    return Status::ok();
  }
  if (step_ == Step::kDone) return RGPU_ERROR(kProtocol, "the handshake is over; no more handshake messages");
  step_ = Step::kDone;
  return take_proof(payload);
}

Status ServerHandshake::take_hello(std::span<const uint8_t> payload, std::vector<uint8_t>& reply) {
  ClientIdentity* out = &client_;
  RGPU_ASSIGN_OR_RETURN(const fb::Hello* hello, wire::verify_control<fb::Hello>(payload));
  out->token_index = -1;
  out->protocol_version = hello->protocol_version();
  out->api_hash = hello->api_hash();
  out->client_version = wire::view(hello->client_version());
  out->host = wire::view(hello->host());
  out->pid = hello->pid();
  if (hello->role() > fb::ConnectionRole::MAX)
    return RGPU_ERROR(kProtocol, "unknown connection role " + std::to_string(static_cast<int>(hello->role())));
  out->role = static_cast<Role>(hello->role());
  out->session_id = hello->session_id();
  out->memory_request = hello->memory_request();
  out->compute_request = hello->compute_request();
  out->program = wire::view(hello->program());
  out->queue_timeout_ms = hello->queue_timeout_ms();
  out->transport = wire::view(hello->transport());
  client_nonce_.clear();
  if (hello->client_nonce()) {
    if (hello->client_nonce()->size() != auth::kNonceSize)
      return RGPU_ERROR(kProtocol, "the Hello's client nonce has " + std::to_string(hello->client_nonce()->size()) +
                                       " bytes, not " + std::to_string(auth::kNonceSize));
    client_nonce_.assign(hello->client_nonce()->begin(), hello->client_nonce()->end());
  }
  if (out->role == Role::kStripe) {
    if (!hello->session_secret() || hello->session_secret()->size() != out->session_secret.size())
      return RGPU_ERROR(kProtocol, "a stripe connection's Hello lacks its session secret");
    std::copy(hello->session_secret()->begin(), hello->session_secret()->end(), out->session_secret.begin());
  }

  std::string problem = incompatibility(out->protocol_version, out->api_hash, out->client_version,
                                        server_.protocol_version, server_.api_hash, server_.server_version);
  if (!problem.empty()) return RGPU_ERROR(kAuth, problem);
  if (out->compute_request > 100)
    return RGPU_ERROR(kProtocol, "the client asks for " + std::to_string(out->compute_request) +
                                     " % of a GPU's compute; RGPU_COMPUTE must be 1..100");

  nonce_ = auth::random_nonce();
  auth_required_ =
      std::any_of(server_.tokens.begin(), server_.tokens.end(), [](const std::string& t) { return !t.empty(); });
  flatbuffers::FlatBufferBuilder builder(256);
  builder.Finish(fb::CreateChallenge(builder, server_.protocol_version, server_.api_hash,
                                     builder.CreateString(server_.server_version),
                                     builder.CreateVector(nonce_.data(), nonce_.size()), auth_required_));
  reply = control_frame(fb::ControlType::Challenge, builder);
  return Status::ok();
}

Status ServerHandshake::take_proof(std::span<const uint8_t> payload) {
  RGPU_ASSIGN_OR_RETURN(const fb::Proof* proof, wire::verify_control<fb::Proof>(payload));
  if (!auth_required_) return Status::ok();
  std::span<const uint8_t> mac;
  if (proof->mac()) mac = {proof->mac()->data(), proof->mac()->size()};
  if (mac.empty())
    return RGPU_ERROR(kAuth, "authentication required: this server has a token and the client sent none — set "
                             "RGPU_TOKEN on the client to the server's token");
  // Every token is tried, each compared in constant time, so the time taken does not say which matched.
  int matched = -1;
  for (size_t i = 0; i < server_.tokens.size(); ++i) {
    if (server_.tokens[i].empty()) continue;
    const auth::Mac expected = make_proof(server_.tokens[i], kClientLabel, nonce_, binding_);
    if (auth::equal_constant_time(mac, expected) && matched < 0) matched = static_cast<int>(i);
  }
  if (matched < 0)
    return RGPU_ERROR(kAuth, "authentication failed: the client's RGPU_TOKEN does not match the server's");
  client_.token_index = matched;
  if (!client_nonce_.empty()) {
    const auth::Mac mine = make_proof(server_.tokens[static_cast<size_t>(matched)], kServerLabel, client_nonce_, binding_);
    client_.server_proof.assign(mine.begin(), mine.end());
  }
  return Status::ok();
}

std::vector<uint8_t> refused_frame(std::string_view reason) {
  flatbuffers::FlatBufferBuilder builder(256);
  // A reason longer than a handshake message may carry is cut, so the client can still read it.
  wire::build_refused(builder, reason.substr(0, kMaxHandshakePayload / 2));
  return control_frame(fb::ControlType::Refused, builder);
}

Status server_authenticate(Connection& connection, const ServerIdentity& server, ClientIdentity* out,
                           std::chrono::milliseconds timeout) {
  Watchdog watchdog(connection, timeout);
  ServerHandshake handshake(server);
  handshake.bind_to_channel(connection.channel_binding());
  Status status = authenticate(connection, handshake);
  *out = handshake.client();
  if (watchdog.finish())
    return RGPU_ERROR(kClosed, "client " + connection.peer() + " sent no complete handshake within " +
                                   std::to_string(timeout.count()) + " ms");
  if (status.is_ok() || status.code() == Code::kClosed) return status;
  // Best effort: the peer may be gone or not an rgpu client at all; the original error is what counts.
  (void)send_refused(connection, first_line(status));
  return status;
}

Status send_welcome(Connection& connection, const Welcome& welcome) {
  flatbuffers::FlatBufferBuilder builder(512);
  std::vector<flatbuffers::Offset<fb::DeviceInfo>> devices;
  devices.reserve(welcome.devices.size());
  for (const DeviceInfo& d : welcome.devices)
    devices.push_back(fb::CreateDeviceInfo(builder, d.ordinal, builder.CreateString(d.name), d.total_memory,
                                           d.major, d.minor));
  builder.Finish(fb::CreateWelcome(builder, welcome.session_id, builder.CreateString(welcome.backend),
                                   builder.CreateVector(devices),
                                   builder.CreateVector(welcome.session_secret.data(), welcome.session_secret.size()),
                                   welcome.server_proof.empty() ? 0 : builder.CreateVector(welcome.server_proof)));
  if (builder.GetSize() > kMaxHandshakePayload)
    return RGPU_ERROR(kInvalidArgument, "Welcome of " + std::to_string(builder.GetSize()) +
                                            " bytes exceeds the handshake limit of " +
                                            std::to_string(kMaxHandshakePayload));
  return send_control(connection, fb::ControlType::Welcome, builder);
}

Status send_queued(Connection& connection, const QueueNotice& notice) {
  flatbuffers::FlatBufferBuilder builder(256);
  builder.Finish(fb::CreateQueued(builder, notice.position,
                                  builder.CreateString(notice.waiting_for.substr(0, kMaxHandshakePayload / 2)),
                                  notice.waited_ms, notice.timeout_ms));
  return send_control(connection, fb::ControlType::Queued, builder);
}

Status send_refused(Connection& connection, std::string_view reason) {
  return send_whole(connection, refused_frame(reason));
}

namespace {
// *unanswered: the server closed the connection before its first reply.
Status run_client_handshake(Connection& connection, const ClientIdentity& client, std::string_view token,
                            Welcome* out, Watchdog& watchdog, const QueueWait& queue, bool* unanswered) {
  const auth::Nonce client_nonce = auth::random_nonce();
  const std::span<const uint8_t> binding = connection.channel_binding();
  flatbuffers::FlatBufferBuilder builder(256);
  builder.Finish(fb::CreateHello(builder, client.protocol_version, client.api_hash,
                                 builder.CreateString(client.client_version), builder.CreateString(client.host),
                                 client.pid, static_cast<fb::ConnectionRole>(client.role), client.session_id,
                                 client.role == Role::kStripe ? builder.CreateVector(client.session_secret.data(),
                                                                                     client.session_secret.size())
                                                              : 0,
                                 client.memory_request, client.compute_request,
                                 client.program.empty() ? 0 : builder.CreateString(client.program),
                                 client.queue_timeout_ms, builder.CreateVector(client_nonce.data(), client_nonce.size()),
                                 client.transport.empty() ? 0 : builder.CreateString(client.transport)));
  RGPU_TRY(send_control(connection, fb::ControlType::Hello, builder));

  std::vector<uint8_t> payload;
  bool refused = false;
  auto refusal = [&]() -> Status {
    RGPU_ASSIGN_OR_RETURN(const fb::Refused* r, wire::verify_control<fb::Refused>(payload));
    return RGPU_ERROR(kAuth, "rgpud at " + connection.peer() + " refused the session: " +
                                 printable(wire::view(r->reason()), 4096));
  };

  if (Status st = recv_message(connection, fb::ControlType::Challenge, true, payload, &refused); !st.is_ok()) {
    *unanswered = st.code() == Code::kClosed;
    return st;
  }
  if (refused) return refusal();
  RGPU_ASSIGN_OR_RETURN(const fb::Challenge* challenge, wire::verify_control<fb::Challenge>(payload));
  std::string problem = incompatibility(client.protocol_version, client.api_hash, client.client_version,
                                        challenge->protocol_version(), challenge->api_hash(),
                                        wire::view(challenge->server_version()));
  if (!problem.empty()) return RGPU_ERROR(kAuth, problem);
  // Over TLS, a client with a token talks only to a server that proves the same token.
  const bool server_must_prove = connection.encrypted() && !token.empty();
  if (server_must_prove && !challenge->auth_required())
    return RGPU_ERROR(kAuth, "rgpud at " + connection.peer() +
                                 " asks for no token, so it cannot prove it holds RGPU_TOKEN: not connecting (is this "
                                 "the server you meant? If so, unset RGPU_TOKEN)");

  builder.Clear();
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> mac;
  if (challenge->auth_required() && !token.empty()) {
    const auto* nonce = challenge->nonce();
    if (!nonce || nonce->size() != auth::kNonceSize)
      return RGPU_ERROR(kProtocol, "server challenge carries a nonce of " + std::to_string(nonce ? nonce->size() : 0) +
                                       " bytes, not " + std::to_string(auth::kNonceSize));
    const auth::Mac m = make_proof(token, kClientLabel, {nonce->data(), nonce->size()}, binding);
    mac = builder.CreateVector(m.data(), m.size());
  }
  builder.Finish(fb::CreateProof(builder, mac));
  RGPU_TRY(send_control(connection, fb::ControlType::Proof, builder));

  for (bool queued = true; queued;) {
    RGPU_TRY(recv_message(connection, fb::ControlType::Welcome, true, payload, &refused, &queued));
    if (refused) return refusal();
    if (!queued) break;
    RGPU_ASSIGN_OR_RETURN(const fb::Queued* q, wire::verify_control<fb::Queued>(payload));
    watchdog.kick(queue.quiet_limit);
    if (queue.on_notice)
      queue.on_notice(QueueNotice{q->position(), printable(wire::view(q->waiting_for()), 1024), q->waited_ms(), q->timeout_ms()});
  }
  RGPU_ASSIGN_OR_RETURN(const fb::Welcome* welcome, wire::verify_control<fb::Welcome>(payload));
  if (server_must_prove) {
    const auth::Mac expected = make_proof(token, kServerLabel, client_nonce, binding);
    const auto* got = welcome->server_proof();
    if (!got || !auth::equal_constant_time({got->data(), got->size()}, expected))
      return RGPU_ERROR(kAuth, "rgpud at " + connection.peer() +
                                   " did not prove it holds RGPU_TOKEN: not using it (a man in the middle, or a server "
                                   "older than this client)");
  }
  out->server_proof.clear();
  if (welcome->server_proof()) out->server_proof.assign(welcome->server_proof()->begin(), welcome->server_proof()->end());
  out->session_id = welcome->session_id();
  out->backend = wire::view(welcome->backend());
  out->devices.clear();
  if (welcome->session_secret() && welcome->session_secret()->size() == out->session_secret.size())
    std::copy(welcome->session_secret()->begin(), welcome->session_secret()->end(), out->session_secret.begin());
  if (welcome->devices()) {
    for (const fb::DeviceInfo* d : *welcome->devices())
      out->devices.push_back(DeviceInfo{d->ordinal(), std::string(wire::view(d->name())), d->total_memory(),
                                        d->major(), d->minor()});
  }
  return Status::ok();
}

// client_handshake, saying whether the server closed the connection before it answered at all.
Status timed_client_handshake(Connection& connection, const ClientIdentity& client, std::string_view token,
                              Welcome* out, std::chrono::milliseconds timeout, const QueueWait& queue,
                              bool* unanswered) {
  Watchdog watchdog(connection, timeout);
  Status status = run_client_handshake(connection, client, token, out, watchdog, queue, unanswered);
  if (watchdog.finish()) {
    *unanswered = false;
    return RGPU_ERROR(kClosed, "no handshake from " + connection.peer() + " within " + std::to_string(timeout.count()) +
                                   " ms (is rgpud listening there?)");
  }
  return status;
}
}  // namespace

Status client_handshake(Connection& connection, const ClientIdentity& client, std::string_view token, Welcome* out,
                        std::chrono::milliseconds timeout, const QueueWait& queue) {
  bool unanswered = false;
  return timed_client_handshake(connection, client, token, out, timeout, queue, &unanswered);
}

Result<std::unique_ptr<Connection>> connect_and_handshake(const std::string& address, const ClientIdentity& client,
                                                          std::string_view token, Welcome* out,
                                                          std::chrono::milliseconds timeout, const QueueWait& queue) {
  std::chrono::milliseconds pause{50};
  for (int attempt = 1;; ++attempt) {
    RGPU_ASSIGN_OR_RETURN(std::unique_ptr<Connection> connection, connect(address));
    bool unanswered = false;
    Status st = timed_client_handshake(*connection, client, token, out, timeout, queue, &unanswered);
    if (st.is_ok()) return connection;
    if (!unanswered || attempt == kHandshakeAttempts) return st;
    std::this_thread::sleep_for(pause);
    pause *= 2;
  }
}

}  // namespace rgpu::transport
