// Host callbacks in order (session_input.h): a host function waits for the client's
// acknowledgement; the session thread lends its input while it executes a call, so a waiter can
// read the acknowledgement past a session thread stuck in a call, stashing other frames in order;
// the end of the session releases every wait at once; bad acknowledgements are protocol errors.
// Then the whole session on the emulated backend: later calls wait for the acknowledgement.
#include <catch2/catch.hpp>

#include <poll.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "common/wire/control.h"
#include "common/wire/frame.h"
#include "gen/cudart/cudart_ids.h"
#include "server/backends/backend.h"
#include "server/session/session.h"
#include "server/session/session_input.h"
#include "transports/transport.h"

namespace {

using namespace std::chrono_literals;
using rgpu::server::SessionInput;
using rgpu::wire::FrameHeader;
using rgpu::wire::FrameKind;
using Clock = std::chrono::steady_clock;

struct Pair {
  std::unique_ptr<rgpu::transport::Connection> server;
  std::unique_ptr<rgpu::transport::Connection> client;
};

Pair socket_pair() {
  int fds[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
  auto server = rgpu::transport::adopt(rgpu::transport::AcceptedConnection(fds[0], {}));
  auto client = rgpu::transport::adopt(rgpu::transport::AcceptedConnection(fds[1], {}));
  REQUIRE(server.is_ok());
  REQUIRE(client.is_ok());
  return {std::move(*server), std::move(*client)};
}

// No Catch2 assertion inside: the client's side may run on a thread of its own (Catch2 is not
// thread-safe); callers check the result.
bool sent(rgpu::transport::Connection& c, FrameKind kind, uint32_t method, uint64_t seq,
          const std::vector<uint8_t>& payload = {}, const std::vector<uint8_t>& bulk = {}, uint16_t flags = 0) {
  auto h = rgpu::wire::make_header(kind, method, seq, static_cast<uint32_t>(payload.size()), bulk.size(), flags);
  iovec v{const_cast<uint8_t*>(bulk.data()), bulk.size()};
  return c.send_frame(h, payload, bulk.empty() ? std::span<const iovec>() : std::span<const iovec>(&v, 1)).is_ok();
}
bool acknowledged(rgpu::transport::Connection& c, uint64_t number) {
  return sent(c, FrameKind::kCallbackReturned, 0, number);
}

void send(rgpu::transport::Connection& c, FrameKind kind, uint32_t method, uint64_t seq,
          const std::vector<uint8_t>& payload = {}, const std::vector<uint8_t>& bulk = {}, uint16_t flags = 0) {
  REQUIRE(sent(c, kind, method, seq, payload, bulk, flags));
}
void acknowledge(rgpu::transport::Connection& c, uint64_t number) { REQUIRE(acknowledged(c, number)); }

struct Frame {
  FrameHeader h{};
  std::vector<uint8_t> payload;
};

// The server's next frame but heartbeats (its watch thread sends them whatever the session does).
Frame receive(rgpu::transport::Connection& c) {
  for (;;) {
    Frame f;
    REQUIRE(c.recv_header(f.h).is_ok());
    f.payload.resize(f.h.payload_len);
    REQUIRE(c.recv_exact(f.payload.data(), f.payload.size()).is_ok());
    REQUIRE(c.skip(f.h.bulk_len).is_ok());
    if (f.h.kind != static_cast<uint16_t>(FrameKind::kHeartbeat)) return f;
  }
}

// Whether the server sent anything but heartbeats within `d`.
bool arrives_within(rgpu::transport::Connection& c, std::chrono::milliseconds d) {
  const auto until = Clock::now() + d;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{c.descriptor(), POLLIN, 0};
    if (!c.input_pending() && ::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    FrameHeader h;
    REQUIRE(c.recv_header(h).is_ok());
    if (h.kind != static_cast<uint16_t>(FrameKind::kHeartbeat)) return true;
    REQUIRE(c.skip(uint64_t{h.payload_len} + h.bulk_len).is_ok());
  }
}

}  // namespace

TEST_CASE("a host function's wait ends when the session thread reads the acknowledgement") {
  Pair p = socket_pair();
  SessionInput input(*p.server);
  input.read_on_this_thread();
  const uint64_t n = input.next_callback();
  CHECK(n == 1);
  auto waiter = std::async(std::launch::async, [&] { return input.wait_returned(n); });
  CHECK(waiter.wait_for(20ms) == std::future_status::timeout);  // the session thread reads: nobody pumps
  acknowledge(*p.client, 1);
  FrameHeader h;
  REQUIRE(p.server->recv_header(h).is_ok());
  REQUIRE(h.kind == static_cast<uint16_t>(FrameKind::kCallbackReturned));
  REQUIRE(input.callback_returned(h).is_ok());
  CHECK(waiter.get());
  CHECK_FALSE(input.has_stashed());
}

TEST_CASE("a waiter reads past a session thread stuck in a call, and stashes the frames before the acknowledgement") {
  Pair p = socket_pair();
  SessionInput input(*p.server);
  input.read_on_this_thread();
  const uint64_t n = input.next_callback();
  // The session thread executes a call that waits for the host function (a synchronous copy on its
  // stream, say): the frames behind it are a call, a control message, then the acknowledgement.
  input.lend();
  send(*p.client, FrameKind::kCall, 77, 5, {1, 2, 3}, {9, 9});
  send(*p.client, FrameKind::kControl, 3, 6, {4});
  acknowledge(*p.client, n);
  auto waiter = std::async(std::launch::async, [&] { return input.wait_returned(n); });
  REQUIRE(waiter.wait_for(5s) == std::future_status::ready);
  CHECK(waiter.get());
  input.reclaim();
  REQUIRE(input.has_stashed());
  SessionInput::Stashed f;
  REQUIRE(input.take_stashed(&f));
  CHECK(f.failure.is_ok());
  CHECK(f.header.kind == static_cast<uint16_t>(FrameKind::kCall));
  CHECK(f.header.seq == 5);
  CHECK(f.payload == std::vector<uint8_t>{1, 2, 3});
  CHECK(f.bulk == std::vector<uint8_t>{9, 9});
  REQUIRE(input.take_stashed(&f));
  CHECK(f.header.kind == static_cast<uint16_t>(FrameKind::kControl));
  CHECK(f.payload == std::vector<uint8_t>{4});
  CHECK_FALSE(input.take_stashed(&f));
  CHECK_FALSE(input.has_stashed());
}

TEST_CASE("a host function run by the session thread inside a call reads the acknowledgement itself") {
  // The emulated backend runs host functions inline, inside cudaLaunchHostFunc.
  Pair p = socket_pair();
  SessionInput input(*p.server);
  input.read_on_this_thread();
  const uint64_t n = input.next_callback();
  input.lend();
  bool client_ok = false;
  std::thread client([&] {
    std::this_thread::sleep_for(50ms);  // the client's function runs a while
    client_ok = sent(*p.client, FrameKind::kCall, 78, 7) && acknowledged(*p.client, n);
  });
  const auto start = Clock::now();
  const bool returned = input.wait_returned(n);
  const auto waited = Clock::now() - start;
  client.join();
  CHECK(client_ok);
  CHECK(returned);
  CHECK(waited >= 45ms);
  input.reclaim();
  SessionInput::Stashed f;
  REQUIRE(input.take_stashed(&f));
  CHECK(f.header.seq == 7);
}

TEST_CASE("the rest of a streamed call's bulk is read into memory to reach the acknowledgement") {
  Pair p = socket_pair();
  SessionInput input(*p.server);
  input.read_on_this_thread();
  const uint64_t n = input.next_callback();
  constexpr size_t kBulk = 3 << 20;  // more than the socket holds
  std::vector<uint8_t> bulk(kBulk);
  for (size_t i = 0; i < bulk.size(); ++i) bulk[i] = static_cast<uint8_t>(i * 7 + i / 4096);
  bool client_ok = false;
  std::thread client([&] { client_ok = sent(*p.client, FrameKind::kCall, 79, 8, {}, bulk) && acknowledged(*p.client, n); });
  FrameHeader h;
  REQUIRE(p.server->recv_header(h).is_ok());
  REQUIRE(h.bulk_len == kBulk);
  std::vector<uint8_t> got(kBulk);
  {
    SessionInput::StreamedBulk reader(input, h.bulk_len);
    input.lend();
    REQUIRE(reader.read(got.data(), 1 << 20).is_ok());
    // The handler now waits for the stream, behind the host function; the rest of its bulk and the
    // acknowledgement are still on the connection.
    auto waiter = std::async(std::launch::async, [&] { return input.wait_returned(n); });
    REQUIRE(waiter.wait_for(5s) == std::future_status::ready);
    CHECK(waiter.get());
    REQUIRE(reader.read(got.data() + (1 << 20), kBulk - (1 << 20)).is_ok());
    CHECK(reader.left() == 0);
    input.reclaim();
    CHECK(reader.finish().is_ok());
  }
  client.join();
  CHECK(client_ok);
  CHECK(got == bulk);
  CHECK_FALSE(input.has_stashed());
}

TEST_CASE("the end of the session releases a waiting host function at once") {
  Pair p = socket_pair();
  SessionInput input(*p.server);
  input.read_on_this_thread();
  const uint64_t n = input.next_callback();
  input.lend();  // even while the session thread is stuck in a call and nothing comes
  auto waiter = std::async(std::launch::async, [&] { return input.wait_returned(n); });
  CHECK(waiter.wait_for(20ms) == std::future_status::timeout);
  const auto start = Clock::now();
  input.end();
  REQUIRE(waiter.wait_for(1s) == std::future_status::ready);
  CHECK_FALSE(waiter.get());
  CHECK(Clock::now() - start < 500ms);
  CHECK_FALSE(input.wait_returned(input.next_callback()));  // later ones do not wait
  input.reclaim();
}

TEST_CASE("a client that hangs up releases a host function waiting past a stuck session thread") {
  Pair p = socket_pair();
  SessionInput input(*p.server);
  input.read_on_this_thread();
  const uint64_t n = input.next_callback();
  input.lend();
  auto waiter = std::async(std::launch::async, [&] { return input.wait_returned(n); });
  p.client.reset();
  REQUIRE(waiter.wait_for(2s) == std::future_status::ready);
  CHECK_FALSE(waiter.get());
  input.reclaim();
  SessionInput::Stashed f;
  REQUIRE(input.take_stashed(&f));
  CHECK(f.failure.code() == rgpu::Code::kClosed);
}

TEST_CASE("unexpected or malformed acknowledgements are protocol errors") {
  Pair p = socket_pair();
  SessionInput input(*p.server);
  input.read_on_this_thread();
  auto ack = [](uint64_t number, uint32_t payload = 0, uint64_t bulk = 0) {
    return rgpu::wire::make_header(FrameKind::kCallbackReturned, 0, number, payload, bulk);
  };
  CHECK(input.callback_returned(ack(1)).code() == rgpu::Code::kProtocol);  // none sent
  input.next_callback();
  input.next_callback();
  CHECK(input.callback_returned(ack(2)).code() == rgpu::Code::kProtocol);  // out of order
  CHECK(input.callback_returned(ack(1, 8)).code() == rgpu::Code::kProtocol);  // a payload
  CHECK(input.callback_returned(ack(1, 0, 1)).code() == rgpu::Code::kProtocol);  // bulk
  CHECK(input.callback_returned(ack(1)).is_ok());
  CHECK(input.callback_returned(ack(1)).code() == rgpu::Code::kProtocol);  // twice
  CHECK(input.callback_returned(ack(2)).is_ok());
  CHECK(input.callback_returned(ack(3)).code() == rgpu::Code::kProtocol);

  // Read by a waiting host function: the session ends with the error, after the frames before it.
  const uint64_t n = input.next_callback();
  input.lend();
  send(*p.client, FrameKind::kCall, 80, 9);
  acknowledge(*p.client, n + 1);
  auto waiter = std::async(std::launch::async, [&] { return input.wait_returned(n); });
  REQUIRE(waiter.wait_for(5s) == std::future_status::ready);
  CHECK_FALSE(waiter.get());
  input.reclaim();
  SessionInput::Stashed f;
  REQUIRE(input.take_stashed(&f));
  CHECK(f.header.seq == 9);
  REQUIRE(input.take_stashed(&f));
  CHECK(f.failure.code() == rgpu::Code::kProtocol);
}

// The whole session on the emulated backend, which runs the host function inline inside
// cudaLaunchHostFunc: the client's next call runs only once the client acknowledged the callback.
TEST_CASE("calls after a host function wait until the client's function returned (emulated backend)") {
  setenv("RGPU_EMULATED_MEMORY_MB", "64", 1);
  auto backend = rgpu::server::make_emulated_backend();
  REQUIRE(backend->init().is_ok());
  Pair p = socket_pair();
  rgpu::server::Session session(1, *p.server, *backend, nullptr);
  auto served = std::async(std::launch::async, [&] { return session.run(); });

  namespace ids = rgpu::gen::cudart;
  std::vector<uint8_t> host_func(16, 0);  // the legacy stream (id 0), then callback id 42
  host_func[8] = 42;
  const std::vector<uint8_t> device_count = {1};  // the count's out pointer is present
  send(*p.client, FrameKind::kCall, ids::k_cudaLaunchHostFunc, 1, host_func);
  send(*p.client, FrameKind::kCall, ids::k_cudaGetDeviceCount, 2, device_count, {}, rgpu::wire::kFlagWantsReply);

  Frame cb = receive(*p.client);
  REQUIRE(cb.h.kind == static_cast<uint16_t>(FrameKind::kCallback));
  CHECK(cb.h.seq == 1);
  REQUIRE(cb.payload.size() == 8);
  CHECK(cb.payload[0] == 42);
  // The client's function is still running: the call after it has not run.
  CHECK_FALSE(arrives_within(*p.client, 300ms));
  acknowledge(*p.client, 1);
  Frame reply = receive(*p.client);
  CHECK(reply.h.kind == static_cast<uint16_t>(FrameKind::kReply));
  CHECK(reply.h.seq == 2);

  // A second one, then the client goes away while its function runs: the session ends at once.
  send(*p.client, FrameKind::kCall, ids::k_cudaLaunchHostFunc, 3, host_func);
  cb = receive(*p.client);
  REQUIRE(cb.h.kind == static_cast<uint16_t>(FrameKind::kCallback));
  CHECK(cb.h.seq == 2);
  p.client->shutdown();
  p.client.reset();
  REQUIRE(served.wait_for(5s) == std::future_status::ready);
  CHECK(served.get().is_ok());
}

TEST_CASE("a session ends with a protocol error on an acknowledgement of a callback it did not send") {
  auto backend = rgpu::server::make_emulated_backend();
  REQUIRE(backend->init().is_ok());
  Pair p = socket_pair();
  rgpu::server::Session session(1, *p.server, *backend, nullptr);
  auto served = std::async(std::launch::async, [&] { return session.run(); });
  acknowledge(*p.client, 1);
  REQUIRE(served.wait_for(5s) == std::future_status::ready);
  rgpu::Status st = served.get();
  CHECK(st.code() == rgpu::Code::kProtocol);
  CHECK_THAT(st.message(), Catch::Contains("acknowledged host callback 1"));
}
