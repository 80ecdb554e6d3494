// Liveness: when a peer counts as gone, from what the kernel says of its silence.
#include <catch2/catch.hpp>

#include <chrono>
#include <optional>

#include "transports/liveness.h"

using namespace rgpu::transport;
using std::chrono::milliseconds;
using Catch::Contains;

namespace {

// A connection that reports a given silence and moves no bytes.
class SilentConnection final : public Connection {
 public:
  explicit SilentConnection(std::optional<PeerSilence> s) : silence_(s) {}
  rgpu::Status send_bytes(std::span<const iovec>) override { return rgpu::Status::ok(); }
  rgpu::Status recv_exact(void*, size_t) override { return rgpu::Status::ok(); }
  rgpu::Status skip(uint64_t) override { return rgpu::Status::ok(); }
  void shutdown() override {}
  std::string peer() const override { return "tcp 127.0.0.1:7070"; }
  std::optional<PeerSilence> peer_silence() const override { return silence_; }

 private:
  std::optional<PeerSilence> silence_;
};

std::string gone(milliseconds since_data, milliseconds unacked, bool expect_data, milliseconds timeout = milliseconds(5000)) {
  return peer_gone(SilentConnection(PeerSilence{since_data, unacked}), timeout, expect_data);
}

}  // namespace

TEST_CASE("liveness: the default heartbeat is a tenth of the 5 s timeout") {
  CHECK(peer_timeout() == milliseconds(5000));
  CHECK(heartbeat_interval() == milliseconds(500));
}

TEST_CASE("liveness: a server silent for the timeout less one heartbeat counts as gone, sooner not") {
  CHECK(gone(milliseconds(4400), milliseconds(0), true).empty());
  const std::string why = gone(milliseconds(4500), milliseconds(0), true);
  CHECK_THAT(why, Contains("not even a heartbeat"));
  CHECK_THAT(why, Contains("RGPU_PEER_TIMEOUT_S"));
}

TEST_CASE("liveness: a client that sends nothing but acknowledges is alive, one that acknowledges nothing is not") {
  // The server expects no data from its client: a quiet client is not a gone one.
  CHECK(gone(milliseconds(60000), milliseconds(0), false).empty());
  CHECK(gone(milliseconds(60000), milliseconds(4400), false).empty());
  CHECK_THAT(gone(milliseconds(100), milliseconds(4500), false), Contains("acknowledged nothing"));
}

TEST_CASE("liveness: a zero timeout, or a connection that cannot tell, never counts a peer as gone") {
  CHECK(gone(milliseconds(600000), milliseconds(600000), true, milliseconds(0)).empty());
  CHECK(peer_gone(SilentConnection(std::nullopt), milliseconds(5000), true).empty());
}
