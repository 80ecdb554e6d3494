// What only the shared-memory pipe has (the conformance suite runs against it too): a hostile peer
// scribbling on the rings, a peer that dies while this end sleeps, frames far bigger than the ring,
// descriptors riding the lifeline, and either end declining.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <thread>
#include <vector>

#include "tests/transports/connected_pair.h"
#include "transports/shm/shm_connection.h"
#include "transports/shm/shm_ring.h"
#include "transports/unix/unix_connection.h"

namespace rgpu::transport::shm {
// The rings as the peer sees them: a test plays the hostile peer through this.
struct ShmTestAccess {
  static uint8_t* mapping(Connection& c) { return static_cast<uint8_t*>(dynamic_cast<ShmConnection&>(c).mapping_); }
  static uint32_t ring(Connection& c) { return dynamic_cast<ShmConnection&>(c).ring_bytes_; }
  static RingControl* control(Connection& c, int direction) {
    return reinterpret_cast<RingControl*>(mapping(c) + direction * kControlBytes);
  }
};
}  // namespace rgpu::transport::shm

using namespace rgpu;
using rgpu::test::connect_pair;
using rgpu::test::fill_pattern;
using transport::shm::ShmTestAccess;
using wire::FrameHeader;
using wire::FrameKind;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<uint8_t> pattern(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  fill_pattern(v.data(), n, seed);
  return v;
}

// Sets an environment variable for one scope.
struct ScopedEnv {
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_) ::setenv(name_, old_.c_str(), 1);
    else ::unsetenv(name_);
  }
  const char* name_;
  std::string old_;
  bool had_ = false;
};

std::string shm_address(const std::string& name) { return "shm://" + test::unix_address(name); }

bool is_shm(const transport::Connection& c) { return c.peer().starts_with("shm"); }

}  // namespace

TEST_CASE("shm: both ends are on shared memory, and the pipe says so") {
  auto pair = connect_pair(shm_address("says.sock"));
  CHECK(is_shm(*pair.client));
  CHECK(is_shm(*pair.server));
  CHECK_THAT(pair.server->peer(), Catch::Contains("unix"));
  CHECK_FALSE(pair.server->input_pending());
  REQUIRE(pair.client->send_frame(wire::make_header(FrameKind::kCall, 1, 1, 0, 0), {}, {}).is_ok());
  CHECK(pair.server->wait_input(std::chrono::milliseconds(5000)));
  CHECK(pair.server->input_pending());
  CHECK_FALSE(pair.client->wait_input(std::chrono::milliseconds(20)));  // nothing for it: times out
}

TEST_CASE("shm: frames far bigger than a small ring stream through it, wrapping at odd offsets") {
  ScopedEnv ring("RGPU_SHM_RING_KB", "64");
  auto pair = connect_pair(shm_address("big.sock"));
  REQUIRE(ShmTestAccess::ring(*pair.client) == 64u << 10);
  const std::vector<std::vector<uint8_t>> frames = {pattern(7, 1), pattern(65536 + 13, 2), pattern(8 << 20, 3),
                                                    pattern(1, 4), pattern(100003, 5)};
  auto sent = std::async(std::launch::async, [&] {
    for (size_t i = 0; i < frames.size(); ++i) {
      iovec bulk{const_cast<uint8_t*>(frames[i].data()), frames[i].size()};
      RGPU_TRY(pair.client->send_frame(wire::make_header(FrameKind::kCall, 2, i, 0, frames[i].size()), {}, {&bulk, 1}));
    }
    return Status::ok();
  });
  for (size_t i = 0; i < frames.size(); ++i) {
    FrameHeader h{};
    REQUIRE(pair.server->recv_header(h).is_ok());
    REQUIRE(h.seq == i);
    REQUIRE(h.bulk_len == frames[i].size());
    std::vector<uint8_t> got(h.bulk_len);
    // Read in pieces of a size that does not divide the ring.
    for (size_t off = 0; off < got.size();) {
      const size_t n = std::min<size_t>(got.size() - off, 4999);
      REQUIRE(pair.server->recv_exact(got.data() + off, n).is_ok());
      off += n;
    }
    CHECK(got == frames[i]);
  }
  CHECK(sent.get().is_ok());
}

TEST_CASE("shm: many small frames both ways from concurrent sending and receiving threads") {
  ScopedEnv ring("RGPU_SHM_RING_KB", "64");
  auto pair = connect_pair(shm_address("concurrent.sock"));
  constexpr int kFrames = 20000;
  auto pump = [&](transport::Connection& c, uint32_t seed) {
    auto sender = std::async(std::launch::async, [&] {
      for (int i = 0; i < kFrames; ++i) {
        auto payload = pattern(static_cast<size_t>(i % 200), seed + static_cast<uint32_t>(i));
        RGPU_TRY(c.send_frame(wire::make_header(FrameKind::kCall, 3, static_cast<uint64_t>(i),
                                                static_cast<uint32_t>(payload.size()), 0),
                              payload, {}));
      }
      return Status::ok();
    });
    Status received;
    const uint32_t peer_seed = seed == 100 ? 200 : 100;
    for (int i = 0; i < kFrames && received.is_ok(); ++i) {
      FrameHeader h{};
      received = c.recv_header(h);
      std::vector<uint8_t> got(h.payload_len);
      if (received.is_ok()) received = c.recv_exact(got.data(), got.size());
      if (received.is_ok() && (h.seq != static_cast<uint64_t>(i) ||
                               got != pattern(static_cast<size_t>(i % 200), peer_seed + static_cast<uint32_t>(i))))
        received = Status(Code::kProtocol, "frame " + std::to_string(i) + " out of order or corrupted");
    }
    Status sent = sender.get();
    return received.is_ok() ? sent : received;
  };
  auto client_side = std::async(std::launch::async, [&] { return pump(*pair.client, 100); });
  CHECK(pump(*pair.server, 200).to_string() == "ok");
  CHECK(client_side.get().to_string() == "ok");
}

TEST_CASE("shm: a peer that breaks the ring's indices gets a clean error, not a crash") {
  ScopedEnv ring("RGPU_SHM_RING_KB", "64");
  auto pair = connect_pair(shm_address("hostile.sock"));
  const uint32_t capacity = ShmTestAccess::ring(*pair.client);
  // Direction 0 runs from the client to the server; direction 1 back.
  auto* to_server = ShmTestAccess::control(*pair.client, 0);
  auto* to_client = ShmTestAccess::control(*pair.client, 1);

  SECTION("a tail more than a ring ahead of the reader") {
    to_server->tail.store(uint64_t{capacity} + 1);
    FrameHeader h{};
    Status s = pair.server->recv_header(h);
    CHECK(s.code() == Code::kProtocol);
    CHECK_THAT(s.message(), Catch::Contains("broke the shared ring"));
  }
  SECTION("a tail that went backwards past the reader") {
    REQUIRE(pair.client->send_frame(wire::make_header(FrameKind::kCall, 1, 1, 0, 0), {}, {}).is_ok());
    FrameHeader h{};
    REQUIRE(pair.server->recv_header(h).is_ok());
    to_server->tail.store(1);
    Status s = pair.server->recv_header(h);
    CHECK(s.code() == Code::kProtocol);
  }
  SECTION("a head past what was written, seen by a sender needing room") {
    to_client->head.store(uint64_t{1} << 40);
    auto big = pattern(capacity * 2, 1);
    iovec bulk{big.data(), big.size()};
    Status s = pair.server->send_frame(wire::make_header(FrameKind::kCall, 1, 1, 0, big.size()), {}, {&bulk, 1});
    CHECK(s.code() == Code::kProtocol);
    // The connection stays failed: no later send or receive touches the rings.
    CHECK(pair.server->send_frame(wire::make_header(FrameKind::kCall, 1, 2, 0, 0), {}, {}).code() == Code::kProtocol);
  }
  SECTION("garbage in the data area is a bad frame") {
    std::memset(ShmTestAccess::mapping(*pair.client) + 2 * transport::shm::kControlBytes, 0xab, 64);
    to_server->tail.store(64);
    FrameHeader h{};
    CHECK(pair.server->recv_header(h).code() == Code::kProtocol);
  }
  SECTION("futex words and sleep flags scribbled on cost wake-ups, nothing else") {
    to_server->data_seq.store(12345);
    to_server->consumer_sleeps.store(1);
    to_client->producer_sleeps.store(7);
    auto payload = pattern(100, 3);
    REQUIRE(pair.client->send_frame(wire::make_header(FrameKind::kCall, 1, 9, 100, 0), payload, {}).is_ok());
    FrameHeader h{};
    REQUIRE(pair.server->recv_header(h).is_ok());
    std::vector<uint8_t> got(100);
    REQUIRE(pair.server->recv_exact(got.data(), got.size()).is_ok());
    CHECK(got == payload);
  }
}

TEST_CASE("shm: a peer process that dies while this end sleeps ends the receive with kClosed") {
  const std::string address = shm_address("dies.sock");
  auto listener = transport::listen(address);
  REQUIRE(listener.is_ok());
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    auto conn = transport::connect(address);
    if (!conn.is_ok()) ::_exit(3);
    (void)(*conn)->send_frame(wire::make_header(FrameKind::kCall, 1, 1, 0, 0), {}, {});
    ::usleep(300'000);      // the parent is asleep on its futex by now
    ::kill(::getpid(), SIGKILL);  // no destructor runs: only the kernel closes the socket
    ::_exit(4);
  }
  auto server = (*listener)->accept();
  REQUIRE(server.is_ok());
  REQUIRE(is_shm(**server));
  FrameHeader h{};
  REQUIRE((*server)->recv_header(h).is_ok());
  const auto start = Clock::now();
  Status s = (*server)->recv_header(h);
  const auto waited = Clock::now() - start;
  CHECK(s.code() == Code::kClosed);
  CHECK(waited >= std::chrono::milliseconds(100));  // it did wait for the peer
  CHECK(waited < std::chrono::seconds(5));
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));
  // A send to the dead peer fails too.
  CHECK((*server)->send_frame(wire::make_header(FrameKind::kCall, 1, 2, 0, 0), {}, {}).code() == Code::kClosed);
}

TEST_CASE("shm: while someone polls for the reply (spin_while), a receive spins and never sleeps on its futex") {
  auto pair = connect_pair(shm_address("spin.sock"));
  auto* to_client = ShmTestAccess::control(*pair.client, 1);
  std::atomic<uint32_t> polling{0};
  pair.client->spin_while(&polling);
  // Whether the client's receive slept while its frame was 50 ms away.
  auto slept_while_waiting = [&](uint64_t seq) {
    std::atomic<bool> slept{false}, received{false};
    std::thread watcher([&] {
      while (!received.load()) {
        if (to_client->consumer_sleeps.load() != 0) slept = true;
        std::this_thread::yield();
      }
    });
    auto sender = std::async(std::launch::async, [&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      return pair.server->send_frame(wire::make_header(FrameKind::kReply, 1, seq, 0, 0), {}, {});
    });
    FrameHeader h{};
    const bool ok = pair.client->recv_header(h).is_ok() && h.seq == seq;
    received = true;
    watcher.join();
    CHECK(ok);
    CHECK(sender.get().is_ok());
    return slept.load();
  };
  CHECK(slept_while_waiting(1));  // nobody polls: after its short spin the receive sleeps
  polling = 1;
  CHECK_FALSE(slept_while_waiting(2));
  polling = 0;
  CHECK(slept_while_waiting(3));
}

TEST_CASE("shm: shutdown wakes a sender waiting for room") {
  ScopedEnv ring("RGPU_SHM_RING_KB", "64");
  auto pair = connect_pair(shm_address("room.sock"));
  auto big = pattern(1 << 20, 1);
  auto blocked = std::async(std::launch::async, [&] {
    iovec bulk{big.data(), big.size()};
    return pair.client->send_frame(wire::make_header(FrameKind::kCall, 1, 1, 0, big.size()), {}, {&bulk, 1});
  });
  CHECK(blocked.wait_for(std::chrono::milliseconds(100)) == std::future_status::timeout);  // the ring is full
  pair.client->shutdown();
  REQUIRE(blocked.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
  CHECK(blocked.get().code() == Code::kClosed);
}

TEST_CASE("shm: a descriptor rides the lifeline and is there once its bytes are read") {
  auto pair = connect_pair(shm_address("descriptors.sock"));
  int fds[2];
  REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
  struct stat sent {};
  REQUIRE(::fstat(fds[0], &sent) == 0);
  auto payload = pattern(24, 1);
  iovec v[2] = {};
  FrameHeader out = wire::make_header(FrameKind::kCall, 5, 1, 24, 0);
  v[0] = iovec{&out, sizeof out};
  v[1] = iovec{payload.data(), payload.size()};
  REQUIRE(pair.client->send_bytes_with_descriptor({v, 2}, fds[0]).is_ok());
  ::close(fds[0]);
  ::close(fds[1]);
  CHECK(pair.server->take_descriptor() >= -1);  // maybe not yet read: allowed either way
  FrameHeader h{};
  REQUIRE(pair.server->recv_header(h).is_ok());
  std::vector<uint8_t> got(24);
  REQUIRE(pair.server->recv_exact(got.data(), got.size()).is_ok());
  CHECK(got == payload);
  // The descriptor may have been taken by the early look above; take what there is.
  int fd = pair.server->take_descriptor();
  if (fd < 0) SUCCEED("taken early");
  if (fd >= 0) {
    struct stat received {};
    REQUIRE(::fstat(fd, &received) == 0);
    CHECK(received.st_ino == sent.st_ino);
    ::close(fd);
  }
  CHECK(pair.server->take_descriptor() == -1);
}

TEST_CASE("shm: a descriptor is taken after its frame") {
  auto pair = connect_pair(shm_address("descriptor-after.sock"));
  int fds[2];
  REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
  struct stat sent {};
  REQUIRE(::fstat(fds[1], &sent) == 0);
  FrameHeader out = wire::make_header(FrameKind::kCall, 5, 1, 0, 0);
  iovec v{&out, sizeof out};
  REQUIRE(pair.client->send_bytes_with_descriptor({&v, 1}, fds[1]).is_ok());
  ::close(fds[0]);
  ::close(fds[1]);
  FrameHeader h{};
  REQUIRE(pair.server->recv_header(h).is_ok());
  const int fd = pair.server->take_descriptor();
  REQUIRE(fd >= 0);
  struct stat received {};
  REQUIRE(::fstat(fd, &received) == 0);
  CHECK(received.st_ino == sent.st_ino);
  CHECK((::fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
  ::close(fd);
}

TEST_CASE("shm: RGPU_SHM_PIPE=0 on the accepting end keeps the connection on its socket") {
  auto listener = transport::listen(shm_address("declined.sock"));
  REQUIRE(listener.is_ok());
  std::future<Result<std::unique_ptr<transport::Connection>>> accepted;
  {
    ScopedEnv off("RGPU_SHM_PIPE", "0");
    accepted = std::async(std::launch::async, [&] { return (*listener)->accept(); });
    auto client = transport::connect((*listener)->address());
    REQUIRE(client.is_ok());
    auto server = accepted.get();
    REQUIRE(server.is_ok());
    CHECK_FALSE(is_shm(**client));
    CHECK_FALSE(is_shm(**server));
    auto payload = pattern(10, 1);
    REQUIRE((*client)->send_frame(wire::make_header(FrameKind::kCall, 1, 1, 10, 0), payload, {}).is_ok());
    FrameHeader h{};
    REQUIRE((*server)->recv_header(h).is_ok());
    std::vector<uint8_t> got(10);
    REQUIRE((*server)->recv_exact(got.data(), got.size()).is_ok());
    CHECK(got == payload);
  }
}

TEST_CASE("shm: a bad offer is declined and the socket goes on") {
  const std::string address = test::unix_address("bad-offer.sock");
  auto listener = transport::listen(address);
  REQUIRE(listener.is_ok());
  auto accepted = std::async(std::launch::async, [&]() -> Result<std::unique_ptr<transport::Connection>> {
    RGPU_ASSIGN_OR_RETURN(std::unique_ptr<transport::Connection> c, (*listener)->accept());
    return transport::shm::upgrade(std::move(c), /*accepting=*/true);
  });
  auto client = transport::connect(address);
  REQUIRE(client.is_ok());
  // An offer of a file too small and unsealed: the server must check before it maps.
  const int memfd = ::memfd_create("bad", MFD_CLOEXEC);
  REQUIRE(memfd >= 0);
  REQUIRE(::ftruncate(memfd, 4096) == 0);
  struct {
    uint32_t magic = 0x4d534752;
    uint16_t version = 1;
    uint16_t has_memory = 1;
    uint32_t ring_bytes = 64 << 10;
    uint32_t reserved = 0;
  } offer;
  iovec v{&offer, sizeof offer};
  REQUIRE((*client)->send_bytes_with_descriptor({&v, 1}, memfd).is_ok());
  ::close(memfd);
  struct {
    uint32_t magic, accepted, reason_len, reserved;
  } answer{};
  REQUIRE((*client)->recv_exact(&answer, sizeof answer).is_ok());
  CHECK(answer.accepted == 0);
  std::string reason(answer.reason_len, '\0');
  REQUIRE((*client)->recv_exact(reason.data(), reason.size()).is_ok());
  CHECK_THAT(reason, Catch::Contains("bytes, not"));
  auto server = accepted.get();
  REQUIRE(server.is_ok());
  CHECK_FALSE(is_shm(**server));
}

// Not run by ctest ([.]): the 64-byte ping-pong between two threads of this process over a Unix
// socket and over the rings, for a quick look at the wake-up path (rgpu bench transport measures
// the real thing, across processes).
TEST_CASE("shm: ping-pong figures", "[.bench]") {
  for (const std::string& address : {test::unix_address("pp.sock"), shm_address("pp-shm.sock")}) {
    auto pair = connect_pair(address);
    std::atomic<bool> done{false};
    std::thread echo([&] {
      uint8_t payload[32];
      for (;;) {
        FrameHeader h{};
        if (!pair.server->recv_header(h).is_ok()) return;
        if (!pair.server->recv_exact(payload, sizeof payload).is_ok()) return;
        if (!pair.server->send_frame(h, payload, {}).is_ok()) return;
      }
    });
    uint8_t payload[32] = {};
    std::vector<double> us;
    for (int i = 0; i < 3000; ++i) {
      const auto t0 = Clock::now();
      REQUIRE(pair.client->send_frame(wire::make_header(FrameKind::kCall, 1, i, 32, 0), payload, {}).is_ok());
      FrameHeader h{};
      REQUIRE(pair.client->recv_header(h).is_ok());
      REQUIRE(pair.client->recv_exact(payload, sizeof payload).is_ok());
      if (i >= 500) us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
    std::sort(us.begin(), us.end());
    std::printf("%-60s median %.2f us, p90 %.2f us\n", address.c_str(), us[us.size() / 2], us[us.size() * 9 / 10]);
    pair.client->shutdown();
    pair.server->shutdown();
    echo.join();
    done = true;
  }
}
