// The fuzz targets shared by the seeded unit test and the libFuzzer binary: peer bytes go through
// the server and client sides of the handshake and through a frame reader loop. Each run returns
// its status; invariant_violation() says what a run did that it never may.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"
#include "transports/handshake.h"

namespace rgpu::fuzz {

inline constexpr uint32_t kProtocolVersion = 1;
inline constexpr uint64_t kApiHash = 0x5eedf00dcafe0001ull;
inline constexpr char kToken[] = "fuzz-token";

transport::ClientIdentity fuzz_client();
transport::ServerIdentity fuzz_server(bool with_token);

enum class Target { kServerWithToken, kServerWithoutToken, kClient, kFrameReader };

struct Run {
  Target target;
  Status status;
  std::vector<uint8_t> sent;  // what our side wrote back
};

// Feeds `input` as everything the peer sends, then the peer hangs up.
Run run_target(Target target, std::span<const uint8_t> input);

// Empty when the run behaved: a clean error of a peer-input kind (or success where input can
// earn it), and, for a server that failed with the connection still up, a Refused frame that
// carries the error's reason.
std::string invariant_violation(const Run& run);

// The checks of the fuzz_handshake and fuzz_frames targets. A handshake input's first byte picks
// the side (server with a token, server without, client); the rest is what the peer sends.
std::string handshake_violation(std::span<const uint8_t> input);
std::string frames_violation(std::span<const uint8_t> input);
inline constexpr Target kHandshakeSides[] = {Target::kServerWithToken, Target::kServerWithoutToken, Target::kClient};

// Valid byte streams the fuzzers start from and mutate.
std::vector<uint8_t> valid_client_stream();  // Hello + empty Proof: accepted without a token
std::vector<uint8_t> valid_server_stream();  // Challenge (no auth) + Welcome
std::vector<uint8_t> valid_frame_stream();   // control and call frames with payload and bulk

}  // namespace rgpu::fuzz
