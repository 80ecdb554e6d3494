// The session loop fed hostile call frames (after a real handshake, a client can send anything):
// random call ids with random or truncated argument bytes, bulk of the wrong size, malformed module
// uploads. The session must end with a clear status or keep serving -- never crash -- and the
// emulated backend must never be handed an unchecked device pointer (ASan watches in CI).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <random>
#include <vector>

#include "common/wire/frame.h"
#include "common/wire/internal_calls.h"
#include "gen/cudart/cudart_ids.h"
#include "server/backends/backend.h"
#include "server/session/session.h"
#include "tests/fuzz/scripted_connection.h"

namespace {

using rgpu::wire::FrameHeader;
using rgpu::wire::FrameKind;

void append(std::vector<uint8_t>& out, const FrameHeader& h, const std::vector<uint8_t>& payload, size_t bulk_bytes) {
  const auto* hb = reinterpret_cast<const uint8_t*>(&h);
  out.insert(out.end(), hb, hb + sizeof h);
  out.insert(out.end(), payload.begin(), payload.end());
  out.insert(out.end(), bulk_bytes, 0x5A);
}

// A script of well-formed calls (cudaProfilerStart takes no arguments), which must run to the end:
// the random scripts below are almost never all well-formed, so the clean outcome is made sure of
// here, whatever the call table the random ids are drawn from.
std::vector<uint8_t> well_formed_script(std::mt19937_64& rng) {
  std::vector<uint8_t> out;
  const int frames = 1 + static_cast<int>(rng() % 3);
  for (int f = 0; f < frames; ++f)
    append(out, rgpu::wire::make_header(FrameKind::kCall, rgpu::gen::cudart::k_cudaProfilerStart, f + 1, 0, 0,
                                        rgpu::wire::kFlagWantsReply), {}, 0);
  return out;
}

// A random script of frames: mostly calls with plausible ids, some control frames; one in 16 is
// well-formed.
std::vector<uint8_t> script(std::mt19937_64& rng) {
  if (rng() % 16 == 0) return well_formed_script(rng);
  std::vector<uint8_t> out;
  int frames = 1 + static_cast<int>(rng() % 12);
  for (int f = 0; f < frames; ++f) {
    uint32_t id = rgpu::gen::cudart::kCallIds[rng() % rgpu::gen::cudart::kCallCount];
    // Blocking calls run on detached helper threads that outlive this test's session object.
    if (rgpu::gen::cudart::is_blocking(id)) continue;
    if (rng() % 10 == 0) id = rgpu::wire::kCallErrorText + static_cast<uint32_t>(rng() % 3);
    if (rng() % 20 == 0) id = rng() % 2 ? rgpu::wire::kCallModuleGlobal : rgpu::wire::kCallModuleUnload;
    if (rng() % 20 == 0) id = rgpu::wire::kCallMappedExpose + static_cast<uint32_t>(rng() % 4);
    if (rng() % 20 == 0) id = rgpu::wire::kCallLogsRead;
    if (rng() % 20 == 0) id = rgpu::wire::kCallStreamSignal;
    std::vector<uint8_t> payload(rng() % 96);
    for (auto& b : payload) b = static_cast<uint8_t>(rng() % 4 == 0 ? rng() : 0);  // mostly zeros: small values
    size_t bulk = rng() % 8 == 0 ? rng() % 256 : 0;
    FrameKind kind = rng() % 16 == 0 ? FrameKind::kControl : FrameKind::kCall;
    uint32_t method = kind == FrameKind::kControl ? static_cast<uint32_t>(rng() % 10) : id;
    auto h = rgpu::wire::make_header(kind, method, f + 1, static_cast<uint32_t>(payload.size()), bulk,
                                     rng() % 2 ? rgpu::wire::kFlagWantsReply : 0);
    append(out, h, payload, bulk);
  }
  return out;
}

}  // namespace

TEST_CASE("the session survives hostile call frames") {
  setenv("RGPU_EMULATED_MEMORY_MB", "64", 1);  // random sizes must not allocate gigabytes
  auto backend = rgpu::server::make_emulated_backend();
  REQUIRE(backend->init().is_ok());
  std::mt19937_64 rng(20261129);
  int ended_with_error = 0, ended_cleanly = 0;
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint8_t> input = script(rng);
    rgpu::fuzz::ScriptedConnection conn(input);
    rgpu::server::Session session(1, conn, *backend, nullptr);
    rgpu::Status st = session.run();
    (st.is_ok() ? ended_cleanly : ended_with_error)++;
    if (!st.is_ok()) CHECK_FALSE(st.message().empty());
  }
  // Both outcomes occur: well-formed scripts run to the end, malformed ones are refused.
  CHECK(ended_cleanly > 0);
  CHECK(ended_with_error > 0);
}
