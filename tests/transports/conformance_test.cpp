// The transport conformance suite: written against the abstract Connection/Listener interface and
// run for every transport address family below. A new transport adds its listen address here.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <future>
#include <thread>
#include <vector>

#include "tests/transports/connected_pair.h"

using namespace rgpu;
using rgpu::test::connect_pair;
using rgpu::test::fill_pattern;
using wire::FrameHeader;
using wire::FrameKind;

namespace {

// Every transport under test, as the address its listener is opened on (port 0: any free port; a
// socket file in the test's own directory). Built with RGPU_CONFORMANCE_UCX (transports_ucx_test),
// the suite runs against UCX instead, over whichever of UCX's transports UCX_TLS names (ctest runs
// it with tcp and with sm). "shm://unix:PATH" is a Unix socket continued over shared-memory rings.
std::string transport_under_test() {
#ifdef RGPU_CONFORMANCE_UCX
  return GENERATE(as<std::string>{}, "ucx://127.0.0.1:0", "ucx://" + rgpu::test::unix_address("conformance-ucx.sock"));
#else
  return GENERATE(as<std::string>{}, "tcp://127.0.0.1:0", "[::1]:0", rgpu::test::unix_address("conformance.sock"),
                  "shm://" + rgpu::test::unix_address("conformance-shm.sock"));
#endif
}

std::vector<uint8_t> pattern(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  fill_pattern(v.data(), n, seed);
  return v;
}

// Sends one frame of `payload` and the given bulk segments, with a header that matches them.
Status send(transport::Connection& c, uint64_t seq, const std::vector<uint8_t>& payload,
            const std::vector<std::vector<uint8_t>>& segments) {
  std::vector<iovec> bulk;
  uint64_t bulk_len = 0;
  for (const auto& s : segments) {
    bulk.push_back(iovec{const_cast<uint8_t*>(s.data()), s.size()});
    bulk_len += s.size();
  }
  FrameHeader h = wire::make_header(FrameKind::kCall, 7, seq, static_cast<uint32_t>(payload.size()), bulk_len);
  return c.send_frame(h, payload, bulk);
}

// Reads a frame's bulk of `sizes` (the sender's segments) in pieces of `piece` bytes, which cross
// the segments' boundaries, and checks it against the patterns of `seeds`.
void check_bulk_in_pieces(transport::Connection& c, const std::vector<std::vector<uint8_t>>& want, size_t piece) {
  std::vector<uint8_t> expected;
  for (const auto& s : want) expected.insert(expected.end(), s.begin(), s.end());
  std::vector<uint8_t> got(expected.size());
  for (size_t done = 0; done < got.size();) {
    const size_t n = std::min(piece, got.size() - done);
    REQUIRE(c.recv_exact(got.data() + done, n).is_ok());
    done += n;
  }
  CHECK(got == expected);
}

// A peer in another process (the test binary again, running the hidden case below), so that it can
// die as a process does: its sockets closed by the kernel, nothing said.
constexpr size_t kPeerBulk = 64 << 20;
constexpr size_t kPeerFirstPart = 1 << 20;

pid_t start_peer(const std::string& address, const char* role) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("RGPU_CONFORMANCE_PEER", address.c_str(), 1);
    ::setenv("RGPU_CONFORMANCE_PEER_ROLE", role, 1);
    ::execl("/proc/self/exe", "conformance-peer", "conformance: a peer process (run by the tests above)", nullptr);
    ::_exit(127);
  }
  return pid;
}

// The peer process's connection; fails the test, rather than hanging, if it never comes.
std::unique_ptr<transport::Connection> accept_peer(transport::Listener& listener) {
  auto accepted = std::async(std::launch::async, [&] { return listener.accept(); });
  if (accepted.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    ::shutdown(listener.native_handle(), SHUT_RDWR);  // wakes the blocked accept
    accepted.wait();
    FAIL("the peer process did not connect");
  }
  auto connection = accepted.get();
  REQUIRE(connection.is_ok());
  return std::move(connection.value());
}

}  // namespace

TEST_CASE("conformance: a peer process (run by the tests above)", "[.]") {
  const char* address = std::getenv("RGPU_CONFORMANCE_PEER");
  const char* role = std::getenv("RGPU_CONFORMANCE_PEER_ROLE");
  REQUIRE(address);
  REQUIRE(role);
  auto connection = transport::connect(address);
  REQUIRE(connection.is_ok());
  transport::Connection& c = *connection.value();
  if (std::string(role) == "send") {
    // Sends one frame with a large bulk segment; the test kills this process while it is read.
    (void)send(c, 1, {}, {pattern(kPeerBulk, 11)});
    ::pause();
  }
  // "receive": reads the start of the frame's bulk, then dies without a word.
  FrameHeader h{};
  REQUIRE(c.recv_header(h).is_ok());
  std::vector<uint8_t> part(kPeerFirstPart);
  REQUIRE(c.recv_exact(part.data(), part.size()).is_ok());
  ::_exit(0);
}

TEST_CASE("conformance: a frame with payload and several bulk segments (one of 64 MiB) round-trips") {
  const std::string address = transport_under_test();
  auto pair = connect_pair(address);
  const auto payload = pattern(1000, 1);
  const std::vector<std::vector<uint8_t>> segments = {pattern(10, 2), pattern(1 << 20, 3), pattern(64 << 20, 4),
                                                      pattern(3, 5)};
  size_t bulk_len = 0;
  for (const auto& s : segments) bulk_len += s.size();

  auto sent = std::async(std::launch::async, [&] {
    Status first = send(*pair.client, 42, payload, segments);
    if (!first.is_ok()) return first;
    return send(*pair.client, 43, {}, {});  // a bare frame right after: the stream stays in step
  });

  FrameHeader h{};
  REQUIRE(pair.server->recv_header(h).is_ok());
  CHECK(h.kind == static_cast<uint16_t>(FrameKind::kCall));
  CHECK(h.method == 7);
  CHECK(h.seq == 42);
  REQUIRE(h.payload_len == payload.size());
  REQUIRE(h.bulk_len == bulk_len);
  std::vector<uint8_t> got_payload(h.payload_len);
  REQUIRE(pair.server->recv_exact(got_payload.data(), got_payload.size()).is_ok());
  CHECK(got_payload == payload);
  for (const auto& want : segments) {  // bulk lands straight in caller memory, segment by segment
    std::vector<uint8_t> got(want.size());
    REQUIRE(pair.server->recv_exact(got.data(), got.size()).is_ok());
    CHECK(got == want);
  }
  REQUIRE(pair.server->recv_header(h).is_ok());
  CHECK(h.seq == 43);
  CHECK(h.payload_len == 0);
  CHECK(h.bulk_len == 0);
  CHECK(sent.get().is_ok());
}

TEST_CASE("conformance: both ends send and receive at the same time") {
  const std::string address = transport_under_test();
  auto pair = connect_pair(address);
  // Each direction carries far more than the socket buffers hold, so this only finishes when
  // one thread's send runs while another thread receives on the same connection.
  constexpr int kFrames = 64;
  const auto chunk = pattern(1 << 20, 9);
  auto pump = [&](transport::Connection& c) {
    auto sender = std::async(std::launch::async, [&] {
      for (int i = 0; i < kFrames; ++i) RGPU_TRY(send(c, static_cast<uint64_t>(i), {}, {chunk}));
      return Status::ok();
    });
    std::vector<uint8_t> got(chunk.size());
    Status received;
    for (int i = 0; i < kFrames && received.is_ok(); ++i) {
      FrameHeader h{};
      received = c.recv_header(h);
      if (received.is_ok() && (h.seq != static_cast<uint64_t>(i) || h.bulk_len != chunk.size()))
        received = Status(Code::kProtocol, "frame out of order");
      if (received.is_ok()) received = c.recv_exact(got.data(), got.size());
      if (received.is_ok() && got != chunk) received = Status(Code::kProtocol, "bulk corrupted");
    }
    Status sent_status = sender.get();
    return received.is_ok() ? sent_status : received;
  };
  auto client_side = std::async(std::launch::async, [&] { return pump(*pair.client); });
  Status server_status = pump(*pair.server);
  Status client_status = client_side.get();
  CHECK(server_status.to_string() == "ok");
  CHECK(client_status.to_string() == "ok");
}

TEST_CASE("conformance: a peer that goes away gives kClosed") {
  const std::string address = transport_under_test();
  auto pair = connect_pair(address);

  SECTION("between frames") {
    pair.client.reset();
    FrameHeader h{};
    Status s = pair.server->recv_header(h);
    CHECK(s.code() == Code::kClosed);
    CHECK_THAT(s.message(), Catch::Contains("closed"));
  }
  SECTION("in the middle of a frame") {
    FrameHeader h = wire::make_header(FrameKind::kCall, 1, 1, 100, 0);
    REQUIRE(pair.client->send_frame(h, pattern(100, 1), {}).is_ok());
    pair.client.reset();
    REQUIRE(pair.server->recv_header(h).is_ok());
    std::vector<uint8_t> buf(200);
    Status s = pair.server->recv_exact(buf.data(), buf.size());  // the peer sent only 100
    CHECK(s.code() == Code::kClosed);
    CHECK_THAT(s.message(), Catch::Contains("after 100 of 200 bytes"));
  }
  SECTION("while we send") {
    pair.server.reset();
    const auto chunk = pattern(1 << 20, 2);
    Status s;
    // The first sends may still fit the socket buffers; the reset from the peer follows.
    for (int i = 0; i < 1000 && s.is_ok(); ++i) s = send(*pair.client, 0, {}, {chunk});
    CHECK(s.code() == Code::kClosed);
  }
}

TEST_CASE("conformance: shutdown wakes a blocked receive with kClosed") {
  const std::string address = transport_under_test();
  auto pair = connect_pair(address);
  auto blocked = std::async(std::launch::async, [&] {
    uint8_t byte;
    return pair.server->recv_exact(&byte, 1);
  });
  CHECK(blocked.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout);  // really blocked
  pair.server->shutdown();
  REQUIRE(blocked.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  Status s = blocked.get();
  CHECK(s.code() == Code::kClosed);
  CHECK_THAT(s.message(), Catch::Contains("shut down"));
  CHECK(send(*pair.server, 0, pattern(8, 1), {}).code() == Code::kClosed);
  // The peer sees the connection end too.
  FrameHeader h{};
  CHECK(pair.client->recv_header(h).code() == Code::kClosed);
}

TEST_CASE("conformance: a listener reports the address it got (port 0: the port)") {
  const std::string address = transport_under_test();
  auto listener = transport::listen(address);
  REQUIRE(listener.is_ok());
  const std::string bound = listener.value()->address();
  CHECK_FALSE(bound.ends_with(":0"));
  if (address.starts_with("unix:") || address.starts_with("ucx://unix:") || address.starts_with("shm://"))
    CHECK(bound == address);
  CHECK(listener.value()->is_loopback());
  CHECK(listener.value()->native_handle() >= 0);
  auto accepted = std::async(std::launch::async, [&] { return listener.value()->accept(); });
  auto client = transport::connect(bound);
  REQUIRE(client.is_ok());
  auto server = accepted.get();
  REQUIRE(server.is_ok());
  CHECK_FALSE(client.value()->peer().empty());
  CHECK_FALSE(server.value()->peer().empty());
}

TEST_CASE("conformance: skip discards bulk and the next frame reads cleanly") {
  const std::string address = transport_under_test();
  auto pair = connect_pair(address);
  auto sent = std::async(std::launch::async, [&] {
    RGPU_TRY(send(*pair.client, 1, {}, {pattern(3 << 20, 1), pattern(12345, 2)}));
    return send(*pair.client, 2, pattern(16, 3), {});
  });
  FrameHeader h{};
  REQUIRE(pair.server->recv_header(h).is_ok());
  REQUIRE(pair.server->skip(h.bulk_len).is_ok());
  REQUIRE(pair.server->recv_header(h).is_ok());
  CHECK(h.seq == 2);
  std::vector<uint8_t> payload(h.payload_len);
  REQUIRE(pair.server->recv_exact(payload.data(), payload.size()).is_ok());
  CHECK(payload == pattern(16, 3));
  CHECK(sent.get().is_ok());
}

TEST_CASE("conformance: recv_header rejects a frame that is not rgpu's") {
  const std::string address = transport_under_test();
  auto pair = connect_pair(address);
  FrameHeader bad = wire::make_header(FrameKind::kCall, 1, 1, 0, 0);
  bad.magic = 0x50545448;  // "HTTP"
  REQUIRE(pair.client->send_frame(bad, {}, {}).is_ok());
  FrameHeader h{};
  Status s = pair.server->recv_header(h);
  CHECK(s.code() == Code::kProtocol);
  CHECK_THAT(s.message(), Catch::Contains("magic"));
}

TEST_CASE("conformance: send_frame refuses a header whose lengths disagree with the data") {
  const std::string address = transport_under_test();
  auto pair = connect_pair(address);
  const auto payload = pattern(10, 1);
  FrameHeader h = wire::make_header(FrameKind::kCall, 1, 1, 11, 0);
  CHECK(pair.client->send_frame(h, payload, {}).code() == Code::kInvalidArgument);
  h = wire::make_header(FrameKind::kCall, 1, 1, 10, 5);
  CHECK(pair.client->send_frame(h, payload, {}).code() == Code::kInvalidArgument);
}

TEST_CASE("conformance: bulk segments around 256 KiB, read in pieces across their boundaries") {
  // 256 KiB is where the UCX transport stops streaming a segment and has the peer read it by RMA:
  // segments either side of it, read in pieces that start and end inside them.
  const std::string address = transport_under_test();
  auto pair = connect_pair(address);
  const std::vector<std::vector<uint8_t>> segments = {
      pattern(3, 1),          pattern((256 << 10) - 1, 2), pattern(256 << 10, 3), pattern((256 << 10) + 1, 4),
      pattern(17, 5),         pattern(5 << 20, 6),         pattern(1 << 20, 7),   pattern(4093, 8)};
  size_t total = 0;
  for (const auto& s : segments) total += s.size();
  for (const size_t piece : {size_t{100'003}, size_t{1} << 20, total}) {
    auto sent = std::async(std::launch::async, [&] { return send(*pair.client, piece, pattern(40, 9), segments); });
    FrameHeader h{};
    REQUIRE(pair.server->recv_header(h).is_ok());
    REQUIRE(h.seq == piece);
    REQUIRE(h.bulk_len == total);
    std::vector<uint8_t> payload(h.payload_len);
    // The payload and the first bytes of bulk in one read: a read may span records too.
    std::vector<uint8_t> head(payload.size() + 3);
    REQUIRE(pair.server->recv_exact(head.data(), head.size()).is_ok());
    CHECK(std::vector<uint8_t>(head.begin(), head.begin() + 40) == pattern(40, 9));
    CHECK(std::vector<uint8_t>(head.begin() + 40, head.end()) == segments[0]);
    check_bulk_in_pieces(*pair.server, {segments.begin() + 1, segments.end()}, piece);
    CHECK(sent.get().is_ok());
  }
}

TEST_CASE("conformance: many large segments in flight in one frame, then the stream goes on") {
  const std::string address = transport_under_test();
  auto pair = connect_pair(address);
  std::vector<std::vector<uint8_t>> segments;
  for (uint32_t i = 0; i < 48; ++i) segments.push_back(pattern((300 << 10) + i, 100 + i));
  auto sent = std::async(std::launch::async, [&] {
    for (uint64_t seq = 1; seq <= 3; ++seq) RGPU_TRY(send(*pair.client, seq, {}, segments));
    return send(*pair.client, 4, pattern(8, 1), {});
  });
  for (uint64_t seq = 1; seq <= 3; ++seq) {
    FrameHeader h{};
    REQUIRE(pair.server->recv_header(h).is_ok());
    REQUIRE(h.seq == seq);
    if (seq == 2) {
      REQUIRE(pair.server->skip(h.bulk_len).is_ok());  // skipped, not read: the sender goes on all the same
      continue;
    }
    for (const auto& want : segments) {
      std::vector<uint8_t> got(want.size());
      REQUIRE(pair.server->recv_exact(got.data(), got.size()).is_ok());
      CHECK(got == want);
    }
  }
  FrameHeader h{};
  REQUIRE(pair.server->recv_header(h).is_ok());
  CHECK(h.seq == 4);
  std::vector<uint8_t> payload(h.payload_len);
  REQUIRE(pair.server->recv_exact(payload.data(), payload.size()).is_ok());
  CHECK(payload == pattern(8, 1));
  CHECK(sent.get().is_ok());
}

TEST_CASE("conformance: a peer process that dies in the middle of a large transfer gives kClosed") {
  const std::string address = transport_under_test();
  auto listener = transport::listen(address);
  REQUIRE(listener.is_ok());

  SECTION("the sender dies while its bulk is read") {
    const pid_t peer = start_peer(listener.value()->address(), "send");
    REQUIRE(peer > 0);
    auto accepted = accept_peer(*listener.value());
    transport::Connection& c = *accepted;
    FrameHeader h{};
    REQUIRE(c.recv_header(h).is_ok());
    REQUIRE(h.bulk_len == kPeerBulk);
    std::vector<uint8_t> got(kPeerBulk);
    REQUIRE(c.recv_exact(got.data(), kPeerFirstPart).is_ok());
    CHECK(std::equal(got.begin(), got.begin() + kPeerFirstPart, pattern(kPeerBulk, 11).begin()));
    ::kill(peer, SIGKILL);
    REQUIRE(::waitpid(peer, nullptr, 0) == peer);
    const auto start = std::chrono::steady_clock::now();
    Status s = c.recv_exact(got.data() + kPeerFirstPart, kPeerBulk - kPeerFirstPart);
    CHECK(s.code() == Code::kClosed);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
  }
  SECTION("the receiver dies while it reads our bulk") {
    const pid_t peer = start_peer(listener.value()->address(), "receive");
    REQUIRE(peer > 0);
    auto accepted = accept_peer(*listener.value());
    const auto start = std::chrono::steady_clock::now();
    Status s = send(*accepted, 1, {}, {pattern(kPeerBulk, 12)});
    int status = 0;
    REQUIRE(::waitpid(peer, &status, 0) == peer);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(s.code() == Code::kClosed);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
  }
}
