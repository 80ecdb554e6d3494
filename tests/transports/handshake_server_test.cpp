// The handshake server: many handshakes in one event loop; only a client that proved its token
// comes out; pending handshakes are bounded per address, in all and in time, and a client that has
// sent its Hello is never pushed out by idle connections.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
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
#include "transports/descriptor_passing.h"
#include "transports/handshake.h"
#include "transports/handshake_server.h"

using namespace rgpu;
using namespace rgpu::transport;
using Catch::Contains;

namespace {

constexpr uint64_t kApi = 0x1234abcd5678ef00ull;

ClientIdentity client_identity() { return ClientIdentity{1, kApi, "0.1.0", "laptop", 4242}; }

// A handshake server on a loopback port, run on a thread of its own; an authenticated client is
// welcomed (session 77) so its side of the handshake completes.
class Running {
 public:
  explicit Running(HandshakeServer::Limits limits, std::vector<std::string> tokens = {"other", "s3cret"}) {
    auto listener = transport::listen("127.0.0.1:0");
    REQUIRE(listener.is_ok());
    listener_ = std::move(*listener);
    server_ = std::make_unique<HandshakeServer>(
        *listener_, ServerIdentity{1, kApi, "0.1.0", std::move(tokens)}, limits,
        [this](int fd, const ClientIdentity& client, const std::string&) {
          auto conn = adopt_descriptor(fd);
          if (conn.is_ok()) (void)send_welcome(**conn, Welcome{77, "emulated", {}, {}});
          std::lock_guard lock(mu_);
          authenticated_.push_back(client);
        });
    thread_ = std::thread([this] { server_->run(); });
  }
  ~Running() {
    server_->stop();
    thread_.join();
  }

  std::string address() const { return listener_->address(); }
  HandshakeServer::Counts counts() const { return server_->counts(); }
  std::vector<ClientIdentity> authenticated() {
    std::lock_guard lock(mu_);
    return authenticated_;
  }
  // Waits (bounded) until the server's counts satisfy `done`.
  bool wait_for(const std::function<bool(const HandshakeServer::Counts&)>& done) const {
    for (int i = 0; i < 2000; ++i) {
      if (done(counts())) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return done(counts());
  }

 private:
  std::unique_ptr<Listener> listener_;
  std::unique_ptr<HandshakeServer> server_;
  std::thread thread_;
  std::mutex mu_;
  std::vector<ClientIdentity> authenticated_;
};

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
