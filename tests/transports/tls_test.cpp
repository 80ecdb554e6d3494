// TLS: who may speak plain TCP, frames both ways at once over one encrypted connection, and the
// proofs that make a man in the middle useless: both ends prove the token, bound to the channel.
#include <catch2/catch.hpp>

#include <sys/socket.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "tests/transports/connected_pair.h"
#include "tests/transports/running_handshake_server.h"
#include "transports/handshake.h"
#include "transports/tcp/tcp_connection.h"
#include "transports/tls/tls_connection.h"

using namespace rgpu;
using namespace rgpu::transport;
using Catch::Contains;
using test::client_identity;
using test::Running;

namespace {

HandshakeServer::Limits tls_only() {
  HandshakeServer::Limits limits;
  limits.tls = tls::Mode::kOn;
  return limits;
}

Status handshake(Connection& conn, std::string_view token, Welcome* welcome) {
  return client_handshake(conn, client_identity(), token, welcome, std::chrono::seconds(20));
}

constexpr size_t kBulk = 24 << 20;

// Sends one frame of kBulk patterned bytes.
Status send_bulk(Connection& conn, uint32_t seed) {
  std::vector<uint8_t> bytes(kBulk);
  test::fill_pattern(bytes.data(), bytes.size(), seed);
  const iovec segment{bytes.data(), bytes.size()};
  return conn.send_frame(wire::FrameHeader{wire::kFrameMagic, static_cast<uint16_t>(wire::FrameKind::kCall), 0, 1, 0,
                                           seed, bytes.size()},
                         {}, {&segment, 1});
}

// Receives such a frame and checks its bytes.
bool received_bulk(Connection& conn, uint32_t seed) {
  wire::FrameHeader header{};
  if (!conn.recv_header(header).is_ok() || header.bulk_len != kBulk || header.seq != seed) return false;
  std::vector<uint8_t> got(kBulk), want(kBulk);
  if (!conn.recv_exact(got.data(), got.size()).is_ok()) return false;
  test::fill_pattern(want.data(), want.size(), seed);
  return got == want;
}

// Both ends send a large frame while they receive the other's: neither direction waits for the
// other (one lock, held only inside OpenSSL).
void exchange_both_ways(Connection& conn, uint32_t send_seed, uint32_t receive_seed, bool* ok) {
  Status sent;
  std::thread sender([&] { sent = send_bulk(conn, send_seed); });
  *ok = received_bulk(conn, receive_seed);
  sender.join();
  *ok = *ok && sent.is_ok();
}

}  // namespace

TEST_CASE("tls: who may speak plain TCP") {
  CHECK(tls::plaintext_allowed(tls::Mode::kAuto, true));
  CHECK_FALSE(tls::plaintext_allowed(tls::Mode::kAuto, false));
  CHECK_FALSE(tls::plaintext_allowed(tls::Mode::kOn, true));
  CHECK(tls::plaintext_allowed(tls::Mode::kOff, false));
  CHECK(tls::parse_mode("on").is_ok());
  CHECK_FALSE(tls::parse_mode("yes").is_ok());
}

TEST_CASE("tls: a session over TLS proves the token both ways, and frames cross both ways at once") {
  bool server_ok = false;
  Running server(tls_only(), {"other", "s3cret"}, [&](Connection& conn, const ClientIdentity& client) {
    Running::welcome(conn, client);
    exchange_both_ways(conn, 2, 1, &server_ok);
  });
  auto conn = transport::connect(server.address(), tls::Mode::kOn);
  REQUIRE(conn.is_ok());
  CHECK((*conn)->encrypted());
  CHECK_THAT((*conn)->peer(), Contains("tls 127.0.0.1:"));
  Welcome welcome;
  REQUIRE(handshake(**conn, "s3cret", &welcome).is_ok());
  CHECK(welcome.server_proof.size() == 32);
  bool client_ok = false;
  exchange_both_ways(**conn, 1, 2, &client_ok);
  CHECK(client_ok);
  CHECK(server.wait_for([&](const auto&) { return server_ok; }));
  REQUIRE(server.authenticated().size() == 1);
  CHECK(server.authenticated()[0].token_index == 1);
}

TEST_CASE("tls: in auto mode a loopback connection stays plain TCP") {
  Running server({});
  auto conn = transport::connect(server.address(), tls::Mode::kAuto);
  REQUIRE(conn.is_ok());
  CHECK_FALSE((*conn)->encrypted());
  Welcome welcome;
  CHECK(handshake(**conn, "s3cret", &welcome).is_ok());
}

TEST_CASE("tls: a server that takes TLS only refuses plain TCP, saying how to connect") {
  Running server(tls_only());
  auto conn = transport::connect(server.address(), tls::Mode::kOff);
  REQUIRE(conn.is_ok());
  Welcome welcome;
  Status st = handshake(**conn, "s3cret", &welcome);
  CHECK(st.code() == Code::kAuth);
  CHECK_THAT(st.message(), Contains("RGPU_TLS=on"));
  CHECK(server.authenticated().empty());
}

TEST_CASE("tls: a client with a token takes no Welcome from a server that does not prove it") {
  Running server(tls_only(), {"other", "s3cret"}, [](Connection& conn, const ClientIdentity&) {
    (void)send_welcome(conn, Welcome{77, "emulated", {}, {}, {}});
  });
  auto conn = transport::connect(server.address(), tls::Mode::kOn);
  REQUIRE(conn.is_ok());
  Welcome welcome;
  Status st = handshake(**conn, "s3cret", &welcome);
  CHECK(st.code() == Code::kAuth);
  CHECK_THAT(st.message(), Contains("did not prove it holds RGPU_TOKEN"));
}

TEST_CASE("tls: a man in the middle who relays the handshake gets nothing: the proof is bound to the channel") {
  Running server(tls_only());
  // The relay: TLS with the client on one side, TLS with rgpud on the other, frames copied across.
  auto listener = transport::listen("127.0.0.1:0");
  REQUIRE(listener.is_ok());
  std::thread relay([&] {
    auto accepted = (*listener)->accept();
    REQUIRE(accepted.is_ok());
    const int fd = ::dup((*accepted)->descriptor());
    accepted->reset();
    auto client_side = tls::TlsConnection::connect(fd, "client", std::chrono::seconds(10), /*as_server=*/true);
    auto server_side = transport::connect(server.address(), tls::Mode::kOn);
    REQUIRE(client_side.is_ok());
    REQUIRE(server_side.is_ok());
    auto forward = [](Connection& from, Connection& to) {
      wire::FrameHeader header{};
      if (!from.recv_header(header).is_ok()) return false;
      std::vector<uint8_t> payload(header.payload_len);
      if (!from.recv_exact(payload.data(), payload.size()).is_ok()) return false;
      return to.send_frame(header, payload, {}).is_ok();
    };
    // Hello, Challenge, Proof, and rgpud's answer to it.
    forward(**client_side, **server_side) && forward(**server_side, **client_side) &&
        forward(**client_side, **server_side) && forward(**server_side, **client_side);
  });
  auto conn = transport::connect((*listener)->address(), tls::Mode::kOn);
  REQUIRE(conn.is_ok());
  Welcome welcome;
  Status st = handshake(**conn, "s3cret", &welcome);
  relay.join();
  CHECK(st.code() == Code::kAuth);
  CHECK_THAT(st.message(), Contains("does not match"));
  CHECK(server.wait_for([](const auto& c) { return c.refused == 1; }));
  CHECK(server.authenticated().empty());
}
