// The handshake over real TCP connections: success with and without a token, refusals with
// messages both sides can act on, bad client input answered with an error, and a connection the
// server closed unanswered made again.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstring>
#include <future>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/wire/control.h"
#include "tests/transports/connected_pair.h"
#include "tests/transports/running_handshake_server.h"
#include "transports/handshake.h"

using namespace rgpu;
using namespace rgpu::transport;
using Catch::Contains;

namespace {

ClientIdentity client_identity() { return ClientIdentity{1, 0x1234abcd5678ef00ull, "0.1.0", "laptop", 4242}; }
ServerIdentity server_identity(std::string token) {
  return ServerIdentity{1, 0x1234abcd5678ef00ull, "0.1.0", {std::move(token)}};
}
ServerIdentity server_with_tokens(std::vector<std::string> tokens) {
  return ServerIdentity{1, 0x1234abcd5678ef00ull, "0.1.0", std::move(tokens)};
}

Welcome sample_welcome() {
  return Welcome{77, "emulated", {{0, "Emulated H200", 141ull << 30, 9, 0}, {1, "Emulated L4", 24ull << 30, 8, 9}}, {}, {}};
}

struct Outcome {
  Status server;
  Status client;
  ClientIdentity seen_by_server;
  Welcome welcome;
};

// Runs both sides; the server welcomes the client if it authenticated.
Outcome run_handshake(const ClientIdentity& client, std::string_view client_token, const ServerIdentity& server) {
  auto pair = test::connect_pair("127.0.0.1:0");
  Outcome out;
  auto server_side = std::async(std::launch::async, [&] {
    Status s = server_authenticate(*pair.server, server, &out.seen_by_server);
    if (s.is_ok()) s = send_welcome(*pair.server, sample_welcome());
    return s;
  });
  out.client = client_handshake(*pair.client, client, client_token, &out.welcome);
  out.server = server_side.get();
  return out;
}

}  // namespace

TEST_CASE("handshake: a client without a token joins a server without one") {
  Outcome o = run_handshake(client_identity(), "", server_identity(""));
  REQUIRE(o.server.is_ok());
  REQUIRE(o.client.is_ok());
  CHECK(o.seen_by_server.protocol_version == 1);
  CHECK(o.seen_by_server.api_hash == 0x1234abcd5678ef00ull);
  CHECK(o.seen_by_server.client_version == "0.1.0");
  CHECK(o.seen_by_server.host == "laptop");
  CHECK(o.seen_by_server.pid == 4242);
  CHECK(o.welcome.session_id == 77);
  CHECK(o.welcome.backend == "emulated");
  REQUIRE(o.welcome.devices.size() == 2);
  CHECK(o.welcome.devices[0].name == "Emulated H200");
  CHECK(o.welcome.devices[0].total_memory == 141ull << 30);
  CHECK(o.welcome.devices[0].major == 9);
  CHECK(o.welcome.devices[1].ordinal == 1);
  CHECK(o.welcome.devices[1].minor == 9);
}

TEST_CASE("handshake: the right token is accepted") {
  Outcome o = run_handshake(client_identity(), "s3cret", server_identity("s3cret"));
  CHECK(o.server.is_ok());
  CHECK(o.client.is_ok());
  CHECK(o.welcome.session_id == 77);
}

TEST_CASE("handshake: with several tokens the server says which one the proof matched") {
  const ServerIdentity server = server_with_tokens({"admin-token", "", "tenant-a", "tenant-b"});
  for (auto [token, index] : {std::pair<const char*, int>{"admin-token", 0}, {"tenant-a", 2}, {"tenant-b", 3}}) {
    Outcome o = run_handshake(client_identity(), token, server);
    CHECK(o.server.is_ok());
    CHECK(o.client.is_ok());
    CHECK(o.seen_by_server.token_index == index);
  }
}

TEST_CASE("handshake: a token none of the server's matches is refused, naming RGPU_TOKEN") {
  Outcome o = run_handshake(client_identity(), "tenant-c", server_with_tokens({"admin-token", "tenant-a"}));
  CHECK(o.server.code() == Code::kAuth);
  CHECK(o.client.code() == Code::kAuth);
  CHECK_THAT(o.client.message(),
             Contains("authentication failed: the client's RGPU_TOKEN does not match the server's"));
  CHECK(o.seen_by_server.token_index == -1);
  Outcome none = run_handshake(client_identity(), "", server_with_tokens({"admin-token", "tenant-a"}));
  CHECK(none.client.code() == Code::kAuth);
  CHECK_THAT(none.client.message(), Contains("set RGPU_TOKEN"));
}

TEST_CASE("handshake: a server whose tokens are all empty requires none, and matches none") {
  Outcome o = run_handshake(client_identity(), "anything", server_with_tokens({"", ""}));
  CHECK(o.server.is_ok());
  CHECK(o.client.is_ok());
  CHECK(o.seen_by_server.token_index == -1);
  Outcome no_tokens = run_handshake(client_identity(), "", server_with_tokens({}));
  CHECK(no_tokens.server.is_ok());
  CHECK(no_tokens.client.is_ok());
}

TEST_CASE("handshake: the Hello carries the session's requests, its program and its role") {
  ClientIdentity c = client_identity();
  c.memory_request = 4096ull << 20;
  c.compute_request = 25;
  c.program = "train.py";
  c.role = Role::kControl;
  Outcome o = run_handshake(c, "tenant-a", server_with_tokens({"admin", "tenant-a"}));
  REQUIRE(o.server.is_ok());
  REQUIRE(o.client.is_ok());
  CHECK(o.seen_by_server.memory_request == 4096ull << 20);
  CHECK(o.seen_by_server.compute_request == 25);
  CHECK(o.seen_by_server.program == "train.py");
  CHECK(o.seen_by_server.role == Role::kControl);
  CHECK(o.seen_by_server.token_index == 1);

  Outcome defaults = run_handshake(client_identity(), "", server_identity(""));
  REQUIRE(defaults.server.is_ok());
  CHECK(defaults.seen_by_server.memory_request == 0);
  CHECK(defaults.seen_by_server.compute_request == 0);
  CHECK(defaults.seen_by_server.program.empty());
  CHECK(defaults.seen_by_server.role == Role::kCallPipe);
}

TEST_CASE("handshake: a compute request above 100 % is refused") {
  ClientIdentity c = client_identity();
  c.compute_request = 101;
  Outcome o = run_handshake(c, "", server_identity(""));
  CHECK(o.server.code() == Code::kProtocol);
  CHECK(o.client.code() == Code::kAuth);
  CHECK_THAT(o.client.message(), Contains("RGPU_COMPUTE must be 1..100"));
}

TEST_CASE("handshake: a client token is ignored by a server that needs none") {
  Outcome o = run_handshake(client_identity(), "s3cret", server_identity(""));
  CHECK(o.server.is_ok());
  CHECK(o.client.is_ok());
}

TEST_CASE("handshake: a wrong token is refused, with the same message on both sides") {
  Outcome o = run_handshake(client_identity(), "guess", server_identity("s3cret"));
  const char* reason = "authentication failed: the client's RGPU_TOKEN does not match the server's";
  CHECK(o.server.code() == Code::kAuth);
  CHECK_THAT(o.server.message(), Contains(reason));
  CHECK(o.client.code() == Code::kAuth);
  CHECK_THAT(o.client.message(), Contains(reason));
  CHECK(o.seen_by_server.host == "laptop");  // the server can log who was refused
}

TEST_CASE("handshake: a missing token is refused with a hint to set RGPU_TOKEN") {
  Outcome o = run_handshake(client_identity(), "", server_identity("s3cret"));
  CHECK(o.server.code() == Code::kAuth);
  CHECK(o.client.code() == Code::kAuth);
  CHECK_THAT(o.server.message(), Contains("set RGPU_TOKEN"));
  CHECK_THAT(o.client.message(), Contains("set RGPU_TOKEN"));
}

TEST_CASE("handshake: a protocol version mismatch names both versions") {
  ClientIdentity newer = client_identity();
  newer.protocol_version = 2;
  newer.client_version = "0.2.0";
  Outcome o = run_handshake(newer, "", server_identity(""));
  for (const Status& s : {o.server, o.client}) {
    CHECK(s.code() == Code::kAuth);
    CHECK_THAT(s.message(), Contains("protocol version mismatch: client speaks 2, server speaks 1"));
    CHECK_THAT(s.message(), Contains("upgrade rgpu on the older side"));
    CHECK_THAT(s.message(), Contains("client rgpu 0.2.0, server rgpu 0.1.0"));
  }
}

TEST_CASE("handshake: an API hash mismatch names both hashes in hex") {
  ClientIdentity other = client_identity();
  other.api_hash = 0xfeed;
  Outcome o = run_handshake(other, "", server_identity(""));
  for (const Status& s : {o.server, o.client}) {
    CHECK(s.code() == Code::kAuth);
    CHECK_THAT(s.message(), Contains("client API hash 0x000000000000feed"));
    CHECK_THAT(s.message(), Contains("server API hash 0x1234abcd5678ef00"));
  }
}

TEST_CASE("handshake: a server that cannot start the session refuses after authenticating") {
  auto pair = test::connect_pair("127.0.0.1:0");
  auto server_side = std::async(std::launch::async, [&] {
    ClientIdentity who;
    RGPU_TRY(server_authenticate(*pair.server, server_identity(""), &who));
    return send_refused(*pair.server, "no GPU is free: all 8 devices are fully sliced");
  });
  Welcome w;
  Status s = client_handshake(*pair.client, client_identity(), "", &w);
  CHECK(server_side.get().is_ok());
  CHECK(s.code() == Code::kAuth);
  CHECK_THAT(s.message(), Contains("refused the session: no GPU is free: all 8 devices are fully sliced"));
}

TEST_CASE("handshake: a queued session's notices reach the client, and each one starts its timeout again") {
  auto pair = test::connect_pair("127.0.0.1:0");
  ClientIdentity asks = client_identity();
  asks.queue_timeout_ms = 30000;
  ClientIdentity seen;
  auto server_side = std::async(std::launch::async, [&] {
    RGPU_TRY(server_authenticate(*pair.server, server_identity(""), &seen));
    // Five notices 150 ms apart: 750 ms in all, longer than the client's 400 ms timeout, which
    // only each notice's kick keeps from expiring.
    for (uint32_t i = 0; i < 5; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(150));
      RGPU_TRY(send_queued(*pair.server, {5 - i, "4096 MiB and 30% compute on one GPU", 150ull * (i + 1), -1}));
    }
    return send_welcome(*pair.server, sample_welcome());
  });
  std::vector<QueueNotice> notices;
  Welcome w;
  Status s = client_handshake(*pair.client, asks, "", &w, std::chrono::milliseconds(400),
                              {[&](const QueueNotice& n) { notices.push_back(n); }, std::chrono::milliseconds(0)});
  CHECK(server_side.get().is_ok());
  REQUIRE(s.is_ok());
  CHECK(w.session_id == 77);
  CHECK(seen.queue_timeout_ms == 30000);
  REQUIRE(notices.size() == 5);
  CHECK(notices[0].position == 5);
  CHECK(notices[4].position == 1);
  CHECK(notices[4].waited_ms == 750);
  CHECK(notices[0].timeout_ms == -1);
  CHECK(notices[0].waiting_for == "4096 MiB and 30% compute on one GPU");
}

TEST_CASE("handshake: once queued, the quiet limit replaces a shorter timeout, and a quiet server still times out") {
  auto pair = test::connect_pair("127.0.0.1:0");
  std::promise<void> done;
  auto server_side = std::async(std::launch::async, [&] {
    ClientIdentity who;
    RGPU_TRY(server_authenticate(*pair.server, server_identity(""), &who));
    RGPU_TRY(send_queued(*pair.server, {1, "room", 0, -1}));
    // Longer than the client's 100 ms handshake timeout, well inside its 2 s quiet limit.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    RGPU_TRY(send_queued(*pair.server, {1, "room", 300, -1}));
    done.get_future().wait();  // then nothing more
    return Status::ok();
  });
  Welcome w;
  size_t notices = 0;
  Status s = client_handshake(*pair.client, client_identity(), "", &w, std::chrono::milliseconds(100),
                              {[&](const QueueNotice&) { ++notices; }, std::chrono::milliseconds(2000)});
  done.set_value();
  CHECK(server_side.get().is_ok());
  CHECK(notices == 2);  // still listening after the 100 ms timeout: the quiet limit applied
  CHECK(s.code() == Code::kClosed);
  CHECK_THAT(s.message(), Contains("no handshake from"));
}

namespace {

// What the server made of raw client bytes, and the reason of the Refused it answered with.
struct ServerVerdict {
  Status server;
  std::string refusal;  // empty when it sent none
};

// Connects a plain socket, writes `bytes` (then half-closes unless keep_open), and lets the server
// authenticate whatever arrives.
ServerVerdict feed_server(std::span<const uint8_t> bytes, bool keep_open = false,
                          std::chrono::milliseconds timeout = std::chrono::milliseconds{0}) {
  auto listener = transport::listen("127.0.0.1:0");
  REQUIRE(listener.is_ok());
  auto server_side = std::async(std::launch::async, [&] {
    RGPU_ASSIGN_OR_RETURN(auto connection, listener.value()->accept());
    ClientIdentity who;
    return server_authenticate(*connection, server_identity("s3cret"), &who, timeout);
  });  // the server's connection closes when it returns, ending the raw client's read below
  test::RawSocket raw(listener.value()->address());
  raw.write_all(bytes);
  if (!keep_open) raw.close_write();
  ServerVerdict verdict;
  verdict.server = server_side.get();
  std::vector<uint8_t> reply = raw.read_to_end();
  wire::FrameHeader h{};
  if (reply.size() >= sizeof h) {
    std::memcpy(&h, reply.data(), sizeof h);
    REQUIRE(wire::validate(h).is_ok());
    REQUIRE(h.method == static_cast<uint32_t>(wire::fb::ControlType::Refused));
    REQUIRE(reply.size() == sizeof h + h.payload_len);
    std::vector<uint8_t> payload(reply.begin() + sizeof h, reply.end());
    auto refused = wire::verify_control<wire::fb::Refused>(payload);
    REQUIRE(refused.is_ok());
    verdict.refusal = wire::view(refused.value()->reason());
  }
  return verdict;
}

std::vector<uint8_t> frame_bytes(const wire::FrameHeader& h, std::span<const uint8_t> payload) {
  // Sized once, then filled: GCC 12's -Warray-bounds misreads insert() after a 32-byte vector.
  std::vector<uint8_t> bytes(sizeof h + payload.size());
  std::memcpy(bytes.data(), &h, sizeof h);
  if (!payload.empty()) std::memcpy(bytes.data() + sizeof h, payload.data(), payload.size());
  return bytes;
}

std::vector<uint8_t> hello_payload() {
  flatbuffers::FlatBufferBuilder b;
  b.Finish(wire::fb::CreateHelloDirect(b, 1, 0x1234abcd5678ef00ull, "0.1.0", "laptop", 1));
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

wire::FrameHeader hello_header(uint32_t payload_len, uint64_t bulk_len = 0) {
  return wire::make_header(wire::FrameKind::kControl, static_cast<uint32_t>(wire::fb::ControlType::Hello), 0,
                           payload_len, bulk_len);
}

}  // namespace

TEST_CASE("handshake: bytes that are not rgpu's are refused, not trusted") {
  // Exactly one header's worth, all of which the server reads: closing a socket with unread
  // input resets the connection, which could discard the refusal before the client reads it.
  const std::string http = "GET / HTTP/1.1\r\nHost: gpu-17\r\n\r\n";
  REQUIRE(http.size() == sizeof(wire::FrameHeader));
  ServerVerdict v = feed_server({reinterpret_cast<const uint8_t*>(http.data()), http.size()});
  CHECK(v.server.code() == Code::kProtocol);
  CHECK_THAT(v.server.message(), Contains("bad frame magic"));
  CHECK_THAT(v.refusal, Contains("bad frame magic"));
}

TEST_CASE("handshake: a Hello that is not a valid FlatBuffer is refused") {
  std::vector<uint8_t> junk(64, 0xA5);
  ServerVerdict v = feed_server(frame_bytes(hello_header(64), junk));
  CHECK(v.server.code() == Code::kProtocol);
  CHECK_THAT(v.server.message(), Contains("malformed control message Hello"));
  CHECK_THAT(v.refusal, Contains("malformed control message Hello"));
}

TEST_CASE("handshake: a truncated Hello ends the handshake with kClosed") {
  auto payload = hello_payload();
  auto bytes = frame_bytes(hello_header(static_cast<uint32_t>(payload.size())), payload);
  bytes.resize(bytes.size() - 5);
  ServerVerdict v = feed_server(bytes);
  CHECK(v.server.code() == Code::kClosed);
  CHECK(v.refusal.empty());  // nobody is left to tell
}

TEST_CASE("handshake: an oversized Hello is refused before anything is allocated for it") {
  ServerVerdict v = feed_server(frame_bytes(hello_header(kMaxHandshakePayload + 1), {}), /*keep_open=*/true);
  CHECK(v.server.code() == Code::kProtocol);
  CHECK_THAT(v.server.message(), Contains("exceeds the limit"));
  CHECK_THAT(v.refusal, Contains("exceeds the limit"));
}

TEST_CASE("handshake: a Hello with bulk data is refused") {
  ServerVerdict v = feed_server(frame_bytes(hello_header(100, 1 << 30), {}), /*keep_open=*/true);
  CHECK(v.server.code() == Code::kProtocol);
  CHECK_THAT(v.refusal, Contains("bulk"));
}

TEST_CASE("handshake: a client that says nothing is dropped after the timeout") {
  const auto start = std::chrono::steady_clock::now();
  ServerVerdict v = feed_server({}, /*keep_open=*/true, std::chrono::milliseconds(200));
  const auto waited = std::chrono::steady_clock::now() - start;
  CHECK(v.server.code() == Code::kClosed);
  CHECK_THAT(v.server.message(), Contains("no complete handshake within 200 ms"));
  CHECK(waited >= std::chrono::milliseconds(200));
  CHECK(waited < std::chrono::seconds(5));
}

TEST_CASE("handshake: a timeout that does not pass changes nothing") {
  auto pair = test::connect_pair("127.0.0.1:0");
  auto server_side = std::async(std::launch::async, [&] {
    ClientIdentity who;
    RGPU_TRY(server_authenticate(*pair.server, server_identity(""), &who, std::chrono::seconds(30)));
    return send_welcome(*pair.server, sample_welcome());
  });
  Welcome w;
  CHECK(client_handshake(*pair.client, client_identity(), "", &w).is_ok());
  CHECK(server_side.get().is_ok());
  CHECK(w.session_id == 77);
}

TEST_CASE("handshake: a peer's version string is clamped and cleaned before it reaches a message") {
  ClientIdentity hostile = client_identity();
  hostile.protocol_version = 9;
  hostile.client_version = "1.0\nrgpud: FAKE LOG LINE" + std::string(1000, 'x');
  Outcome o = run_handshake(hostile, "", server_identity(""));
  CHECK(o.server.code() == Code::kAuth);
  const std::string first_line = o.server.message().substr(0, o.server.message().find('\n'));
  CHECK_THAT(first_line, Contains("client rgpu 1.0?rgpud: FAKE LOG LINE"));
  CHECK_THAT(first_line, Contains("...,"));
  CHECK(first_line.size() < 400);
  CHECK(o.seen_by_server.client_version == hostile.client_version);  // the identity itself is kept as sent
}

TEST_CASE("handshake: a program name is kept as sent, cleaned in messages, and bounded by the Hello's limit") {
  ClientIdentity hostile = client_identity();
  hostile.program = "evil\nrgpud: FAKE";
  Outcome o = run_handshake(hostile, "", server_identity(""));
  REQUIRE(o.server.is_ok());
  CHECK(o.seen_by_server.program == hostile.program);  // the pool cleans it before printing

  ClientIdentity huge = client_identity();
  huge.program = std::string(kMaxHandshakePayload + 1, 'p');
  Outcome big = run_handshake(huge, "", server_identity(""));
  CHECK(big.server.code() == Code::kProtocol);
  CHECK_THAT(big.server.message(), Contains("exceeds the limit"));
  CHECK(big.client.code() != Code::kOk);
  CHECK(big.seen_by_server.program.empty());  // nothing of it was read
}

// rgpud drops pending handshakes past its bounds when flooded, and a client's Hello may not have
// reached it yet: the client connects again.
TEST_CASE("handshake: a connection the server closes unanswered is made again") {
  auto listener = transport::listen("127.0.0.1:0");
  REQUIRE(listener.is_ok());
  auto server = std::async(std::launch::async, [&] {
    for (int dropped = 0; dropped < kHandshakeAttempts - 1; ++dropped) {
      auto conn = (*listener)->accept();  // closed unread as it goes out of scope
      if (!conn.is_ok()) return conn.status();
    }
    auto conn = (*listener)->accept();
    if (!conn.is_ok()) return conn.status();
    ClientIdentity seen;
    Status s = server_authenticate(**conn, server_identity(""), &seen);
    if (s.is_ok()) s = send_welcome(**conn, sample_welcome());
    return s;
  });
  Welcome welcome;
  auto conn = connect_and_handshake((*listener)->address(), client_identity(), "", &welcome, std::chrono::seconds(10));
  REQUIRE(conn.is_ok());
  CHECK(welcome.session_id == 77);
  CHECK(server.get().is_ok());
}

TEST_CASE("handshake: the client says at once why it failed when past its attempts or refused") {
  auto listener = transport::listen("127.0.0.1:0");
  REQUIRE(listener.is_ok());
  auto dropper = std::async(std::launch::async, [&] {
    for (int i = 0; i < kHandshakeAttempts; ++i) (void)(*listener)->accept();
  });
  Welcome welcome;
  auto dropped = connect_and_handshake((*listener)->address(), client_identity(), "", &welcome, std::chrono::seconds(10));
  dropper.get();
  REQUIRE_FALSE(dropped.is_ok());
  CHECK(dropped.status().code() == Code::kClosed);

  // A refusal is an answer: one connection, one refusal, no second try.
  test::Running refusing({}, {"s3cret"});
  auto refused = connect_and_handshake(refusing.address(), client_identity(), "wrong", &welcome, std::chrono::seconds(10));
  REQUIRE_FALSE(refused.is_ok());
  CHECK(refused.status().code() == Code::kAuth);
  CHECK(refusing.wait_for([](const auto& c) { return c.refused == 1 && c.pending == 0; }));
  CHECK(refusing.counts().refused == 1);
}
