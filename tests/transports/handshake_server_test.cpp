// The handshake server: many handshakes in one event loop; only a client that proved its token
// comes out; pending handshakes are bounded per address, in all and in time, and a client that has
// sent its Hello is never pushed out by idle connections.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/wire/control.h"
#include "tests/transports/connected_pair.h"
#include "tests/transports/running_handshake_server.h"
#include "transports/descriptor_passing.h"
#include "transports/handshake.h"
#include "transports/handshake_server.h"

using namespace rgpu;
using namespace rgpu::transport;
using Catch::Contains;
using test::client_identity;
using test::kApi;
using test::Running;

namespace {

Status handshake_with(const std::string& address, std::string_view token, Welcome* welcome) {
  auto conn = transport::connect(address);
  if (!conn.is_ok()) return conn.status();
  return client_handshake(**conn, client_identity(), token, welcome, std::chrono::seconds(20));
}

std::vector<uint8_t> hello_frame() {
  flatbuffers::FlatBufferBuilder b;
  b.Finish(wire::fb::CreateHello(b, 1, kApi, b.CreateString("0.1.0"), b.CreateString("raw"), 1));
  const wire::FrameHeader h = wire::control_header(wire::fb::ControlType::Hello, b.GetSize());
  std::vector<uint8_t> frame(sizeof h + b.GetSize());
  std::memcpy(frame.data(), &h, sizeof h);
  std::memcpy(frame.data() + sizeof h, b.GetBufferPointer(), b.GetSize());
  return frame;
}

std::vector<std::unique_ptr<test::RawSocket>> idle_connections(const std::string& address, int n) {
  std::vector<std::unique_ptr<test::RawSocket>> out;
  for (int i = 0; i < n; ++i) out.push_back(std::make_unique<test::RawSocket>(address));
  return out;
}

// Whether the server closed the connection (waiting a little for its end to arrive).
bool closed_by_server(test::RawSocket& s) {
  for (int i = 0; i < 400 && s.open_now(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return !s.open_now();
}

}  // namespace

TEST_CASE("handshake server: a client that proves a token comes out, with who it is") {
  Running server({});
  Welcome welcome;
  REQUIRE(handshake_with(server.address(), "s3cret", &welcome).is_ok());
  CHECK(welcome.session_id == 77);
  auto seen = server.authenticated();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].token_index == 1);
  CHECK(seen[0].host == "laptop");
  CHECK(seen[0].pid == 4242);
  CHECK(server.counts().authenticated == 1);
  CHECK(server.counts().pending == 0);
}

TEST_CASE("handshake server: one loop serves TCP and a Unix socket, a Unix client's pid is the kernel's, TLS or not") {
  HandshakeServer::Limits limits;
  limits.tls = GENERATE(tls::Mode::kAuto, tls::Mode::kOn);  // --tls on takes a Unix client in plain all the same
  Running server(limits, {"other", "s3cret"}, Running::welcome, {"127.0.0.1:0", test::unix_address("hs.sock")});
  Welcome welcome;
  REQUIRE(handshake_with(server.address(1), "s3cret", &welcome).is_ok());
  CHECK(welcome.session_id == 77);
  if (limits.tls == tls::Mode::kAuto) REQUIRE(handshake_with(server.address(0), "s3cret", &welcome).is_ok());
  auto seen = server.authenticated();
  REQUIRE(seen.size() == (limits.tls == tls::Mode::kAuto ? 2u : 1u));
  CHECK(seen[0].pid == static_cast<uint32_t>(getpid()));  // it claimed 4242
  if (seen.size() == 2) CHECK(seen[1].pid == 4242);        // over TCP the claim is all there is
  // A wrong token over the Unix socket is refused as over TCP.
  CHECK(handshake_with(server.address(1), "wrong", &welcome).code() == Code::kAuth);
}

TEST_CASE("handshake server: a wrong token is refused with a reason and nothing comes out") {
  Running server({});
  Welcome welcome;
  Status st = handshake_with(server.address(), "wrong", &welcome);
  CHECK(st.code() == Code::kAuth);
  CHECK_THAT(st.message(), Contains("RGPU_TOKEN"));
  CHECK(server.wait_for([](const auto& c) { return c.refused == 1 && c.pending == 0; }));
  CHECK(server.authenticated().empty());
}

TEST_CASE("handshake server: bytes that are no handshake are refused, saying why") {
  Running server({});
  test::RawSocket raw(server.address());
  std::vector<uint8_t> junk(sizeof(wire::FrameHeader), 0xab);
  raw.write_all(junk);
  const std::vector<uint8_t> answer = raw.read_to_end();
  REQUIRE(answer.size() > sizeof(wire::FrameHeader));
  wire::FrameHeader h;
  std::memcpy(&h, answer.data(), sizeof h);
  CHECK(h.method == static_cast<uint32_t>(wire::fb::ControlType::Refused));
  CHECK(server.counts().refused == 1);
  CHECK(server.authenticated().empty());
}

TEST_CASE("handshake server: past the bound per address the oldest idle connections go, and a client still gets in") {
  Running server({std::chrono::seconds(10), 4, 100});
  auto idle = idle_connections(server.address(), 12);
  REQUIRE(server.wait_for([](const auto& c) { return c.dropped == 8 && c.pending == 4; }));
  for (int i = 0; i < 12; ++i) CHECK((i < 8 ? closed_by_server(*idle[i]) : idle[i]->open_now()));
  Welcome welcome;
  REQUIRE(handshake_with(server.address(), "s3cret", &welcome).is_ok());
  CHECK(server.counts().authenticated == 1);
  CHECK(server.counts().dropped == 9);  // the connection made room for itself
}

TEST_CASE("handshake server: a client whose Hello arrived is not pushed out by idle connections") {
  Running server({std::chrono::seconds(10), 3, 100});
  test::RawSocket talking(server.address());
  talking.write_all(hello_frame());
  const std::vector<uint8_t> header = talking.read_exact(sizeof(wire::FrameHeader));  // the Challenge
  wire::FrameHeader h;
  std::memcpy(&h, header.data(), sizeof h);
  REQUIRE(h.method == static_cast<uint32_t>(wire::fb::ControlType::Challenge));
  (void)talking.read_exact(h.payload_len);
  auto idle = idle_connections(server.address(), 5);
  REQUIRE(server.wait_for([](const auto& c) { return c.dropped == 3 && c.pending == 3; }));
  CHECK(talking.open_now());
  for (int i = 0; i < 5; ++i) CHECK((i < 3 ? closed_by_server(*idle[i]) : idle[i]->open_now()));
}

// Under a flood the loop accepts connections between the steps of one handshake: a Hello that has
// reached the socket, unread, already counts. The loop is held (in an authenticated client's
// serve) while the Hello arrives and the idle connections queue up behind it.
TEST_CASE("handshake server: a client whose Hello waits unread is not pushed out by idle connections") {
  std::mutex mu;
  std::condition_variable cv;
  bool holding = false, released = false;
  Running server({std::chrono::seconds(10), 2, 100}, {"other", "s3cret"},
                 [&](Connection& conn, const ClientIdentity& client) {
                   std::unique_lock lock(mu);
                   holding = true;
                   cv.notify_all();
                   cv.wait(lock, [&] { return released; });
                   Running::welcome(conn, client);
                 });
  test::RawSocket talking(server.address());
  REQUIRE(server.wait_for([](const auto& c) { return c.pending == 1; }));  // accepted, nothing sent yet
  Status holder;
  std::thread hold([&] {
    Welcome welcome;
    holder = handshake_with(server.address(), "s3cret", &welcome);
  });
  {
    std::unique_lock lock(mu);
    REQUIRE(cv.wait_for(lock, std::chrono::seconds(20), [&] { return holding; }));
  }
  talking.write_all(hello_frame());
  auto idle = idle_connections(server.address(), 8);
  {
    std::lock_guard lock(mu);
    released = true;
  }
  cv.notify_all();
  hold.join();
  CHECK(holder.is_ok());
  const std::vector<uint8_t> header = talking.read_exact(sizeof(wire::FrameHeader));  // fails if closed
  wire::FrameHeader h;
  std::memcpy(&h, header.data(), sizeof h);
  CHECK(h.method == static_cast<uint32_t>(wire::fb::ControlType::Challenge));
  CHECK(server.wait_for([](const auto& c) { return c.dropped == 7 && c.pending == 2; }));
  CHECK(talking.open_now());
}

TEST_CASE("handshake server: past the bound in all the oldest idle connections go") {
  Running server({std::chrono::seconds(10), 100, 5});
  auto idle = idle_connections(server.address(), 8);
  REQUIRE(server.wait_for([](const auto& c) { return c.dropped == 3 && c.pending == 5; }));
  for (int i = 0; i < 8; ++i) CHECK((i < 3 ? closed_by_server(*idle[i]) : idle[i]->open_now()));
}

TEST_CASE("handshake server: a connection that completes no handshake in time is closed") {
  Running server({std::chrono::milliseconds(200), 64, 1024});
  test::RawSocket idle(server.address());
  CHECK(idle.read_to_end().empty());  // returns once the server closes
  CHECK(server.wait_for([](const auto& c) { return c.timed_out == 1 && c.pending == 0; }));
  CHECK(server.authenticated().empty());
}
