// Seeded fuzzing in the unit suite: random, truncated, mutated and oversized frames through both
// sides of the handshake and a frame reader loop. Every run must end in a clean error (or an
// earned success), never a crash; run under ASan+UBSan to make "never a crash" mean something.
#include <catch2/catch.hpp>

#include <cstring>
#include <limits>
#include <random>

#include "common/wire/control.h"
#include "tests/fuzz/fuzz_targets.h"

using namespace rgpu;
using namespace rgpu::fuzz;

namespace {

constexpr int kIterationsPerTarget = 3000;

class InputMaker {
 public:
  InputMaker(uint64_t seed, std::vector<uint8_t> valid) : rng_(seed), valid_(std::move(valid)) {}

  std::vector<uint8_t> next() {
    switch (pick(6)) {
      case 0: return random_bytes(pick(256));
      case 1: return truncated();
      case 2: return flipped();
      case 3: return header_with(random_payload_len(), random_bulk_len(), random_bytes(pick(128)));
      case 4: return spliced();
      default: return valid_control_with_foreign_payload();
    }
  }

 private:
  size_t pick(size_t n) { return n ? static_cast<size_t>(rng_() % n) : 0; }

  std::vector<uint8_t> random_bytes(size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = static_cast<uint8_t>(rng_());
    return v;
  }
  std::vector<uint8_t> truncated() { return {valid_.begin(), valid_.begin() + static_cast<ptrdiff_t>(pick(valid_.size()))}; }
  std::vector<uint8_t> flipped() {
    std::vector<uint8_t> v = valid_;
    for (size_t i = 0, n = 1 + pick(8); i < n; ++i) v[pick(v.size())] ^= static_cast<uint8_t>(1u << pick(8));
    return v;
  }
  // A valid prefix, then random bytes: a good first frame followed by garbage.
  std::vector<uint8_t> spliced() {
    std::vector<uint8_t> v(valid_.begin(), valid_.begin() + static_cast<ptrdiff_t>(pick(valid_.size())));
    auto tail = random_bytes(pick(128));
    v.insert(v.end(), tail.begin(), tail.end());
    return v;
  }
  uint32_t random_payload_len() {
    static const uint32_t interesting[] = {0, 1, 4, 7, 8, 31, 32, 64, transport::kMaxHandshakePayload,
                                           transport::kMaxHandshakePayload + 1, wire::kMaxPayload + 1,
                                           std::numeric_limits<uint32_t>::max()};
    return pick(2) ? static_cast<uint32_t>(pick(200)) : interesting[pick(std::size(interesting))];
  }
  uint64_t random_bulk_len() {
    static const uint64_t interesting[] = {0, 1, wire::kMaxBulk, wire::kMaxBulk + 1,
                                           std::numeric_limits<uint64_t>::max()};
    return pick(2) ? 0 : interesting[pick(std::size(interesting))];
  }
  // A header with any kind/method (magic usually right) and the given lengths, then `payload`.
  std::vector<uint8_t> header_with(uint32_t payload_len, uint64_t bulk_len, const std::vector<uint8_t>& payload) {
    wire::FrameHeader h{pick(8) ? wire::kFrameMagic : static_cast<uint32_t>(rng_()),
                        static_cast<uint16_t>(pick(10)),
                        static_cast<uint16_t>(pick(3)),
                        static_cast<uint32_t>(pick(12)),
                        payload_len,
                        rng_(),
                        bulk_len};
    // Sized once, then filled: GCC 12's -Warray-bounds misreads insert() after a 32-byte vector.
    std::vector<uint8_t> v(sizeof h + payload.size());
    std::memcpy(v.data(), &h, sizeof h);
    if (!payload.empty()) std::memcpy(v.data() + sizeof h, payload.data(), payload.size());
    return v;
  }
  // A well-formed FlatBuffer of one message type sent as another (e.g. a Welcome as the Hello).
  std::vector<uint8_t> valid_control_with_foreign_payload() {
    flatbuffers::FlatBufferBuilder b;
    switch (pick(4)) {
      case 0: b.Finish(wire::fb::CreateWelcomeDirect(b, rng_(), "cuda")); break;
      case 1: wire::build_refused(b, "nope"); break;
      case 2: b.Finish(wire::fb::CreateModuleLoadDirect(b, nullptr, nullptr, rng_())); break;
      default: b.Finish(wire::fb::CreateChallengeDirect(b, 1, rng_())); break;
    }
    std::vector<uint8_t> payload(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
    auto v = header_with(static_cast<uint32_t>(payload.size()), 0, payload);
    wire::FrameHeader h;
    std::memcpy(&h, v.data(), sizeof h);
    h.magic = wire::kFrameMagic;
    h.kind = static_cast<uint16_t>(wire::FrameKind::kControl);
    h.method = 1 + static_cast<uint32_t>(pick(9));
    std::memcpy(v.data(), &h, sizeof h);
    return v;
  }

  std::mt19937_64 rng_;
  std::vector<uint8_t> valid_;
};

// Runs a target over many generated inputs; returns how many runs succeeded.
int fuzz_runs(Target target, uint64_t seed, std::vector<uint8_t> valid) {
  InputMaker maker(seed, std::move(valid));
  int successes = 0;
  for (int i = 0; i < kIterationsPerTarget; ++i) {
    const std::vector<uint8_t> input = maker.next();
    const Run run = run_target(target, input);
    const std::string violation = invariant_violation(run);
    if (!violation.empty()) {
      INFO("iteration " << i << ", input of " << input.size() << " bytes");
      FAIL(violation);
    }
    successes += run.status.is_ok();
  }
  return successes;
}

}  // namespace

TEST_CASE("fuzz: the valid streams the fuzzers mutate really are valid") {
  CHECK(run_target(Target::kServerWithoutToken, valid_client_stream()).status.is_ok());
  CHECK(run_target(Target::kClient, valid_server_stream()).status.is_ok());
  // The reader consumes every frame and stops only where the stream ends, between frames.
  Run reader = run_target(Target::kFrameReader, valid_frame_stream());
  CHECK(reader.status.code() == Code::kClosed);
  CHECK_THAT(reader.status.message(), Catch::Contains("after 0 of 32 bytes"));
  // Against a token it cannot know, the same client is refused, with the reason sent back.
  Run refused = run_target(Target::kServerWithToken, valid_client_stream());
  CHECK(refused.status.code() == Code::kAuth);
  CHECK(invariant_violation(refused).empty());
}

TEST_CASE("fuzz: the server side of the handshake survives hostile clients") {
  CHECK(fuzz_runs(Target::kServerWithToken, 1, valid_client_stream()) == 0);
  // Some mutations keep the stream valid (a flipped bit in a version string): without a token
  // those clients are let in, which shows the inputs reach the end of the handshake.
  CHECK(fuzz_runs(Target::kServerWithoutToken, 2, valid_client_stream()) > 0);
}

TEST_CASE("fuzz: the client side of the handshake survives a hostile server") {
  CHECK(fuzz_runs(Target::kClient, 3, valid_server_stream()) > 0);
}

TEST_CASE("fuzz: the frame reader loop survives random, truncated and oversized frames") {
  CHECK(fuzz_runs(Target::kFrameReader, 4, valid_frame_stream()) == 0);  // it always ends in an error
}
