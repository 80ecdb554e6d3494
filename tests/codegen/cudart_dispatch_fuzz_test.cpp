// Peer bytes never crash the generated cudart dispatchers: random and near-valid payloads for every
// call id, against a backend with no entry points (nothing is ever called), under the sanitizers.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

#include "common/log.h"
#include "common/wire/codec.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "gen/cudart/cudart_ids.h"
#include "server/session/call_context.h"

namespace rgpu::server {
class Session {};  // the generated dispatchers never touch it
}  // namespace rgpu::server

// The hand-written handlers are not under test here: each one rejects its input.
#define RGPU_TEST_HANDLER_STUB(name)                                                           \
  bool rgpu::server::handlers::name(CallContext&, wire::Decoder&, wire::Encoder&, int32_t& status) { \
    status = 0;                                                                                \
    return false;                                                                              \
  }
RGPU_GEN_CUDART_HANDLERS(RGPU_TEST_HANDLER_STUB)

namespace {

namespace gen = rgpu::gen::cudart;

struct Outcome {
  bool well_formed;
  int32_t status;
};

Outcome dispatch(uint32_t id, const std::vector<uint8_t>& payload, rgpu::server::HandleTable& handles) {
  static rgpu::server::Session session;
  static const gen::Api empty_api;  // every entry null: a decoded call answers not supported
  std::vector<iovec> bulk_out;
  rgpu::server::CallContext ctx{session, empty_api, handles, {}, &bulk_out, 0};
  rgpu::wire::Decoder in(payload);
  rgpu::wire::Encoder out;
  int32_t status = -12345;
  bool ok = gen::dispatch(ctx, id, in, out, status);
  CHECK(out.payload().empty());  // nothing succeeded, so nothing is sent back
  return {ok, status};
}

}  // namespace

TEST_CASE("random payloads for every cudart call id are rejected or answered, never crash") {
  rgpu::log_set_level(rgpu::LogLevel::kError);
  std::mt19937_64 rng(20261129);
  rgpu::server::HandleTable handles;
  handles.bind(rgpu::server::HandleKind::kStream, 0x100, reinterpret_cast<void*>(0x1000));
  int answered = 0;
  for (uint32_t id : gen::kCallIds) {
    INFO(gen::call_name(id));
    for (int round = 0; round < 300; ++round) {
      std::vector<uint8_t> payload(rng() % 96);
      for (auto& b : payload) b = static_cast<uint8_t>(rng());
      if (round % 3 == 0) {
        // Near-valid: small numbers, present markers and known ids are likelier to decode.
        for (size_t i = 0; i + 8 <= payload.size(); i += 8) {
          uint64_t word = rng() % 4 == 0 ? 0x100 : rng() % 3;
          std::memcpy(&payload[i], &word, 8);
        }
      }
      Outcome o = dispatch(id, payload, handles);
      if (o.well_formed) {
        ++answered;
        CHECK((o.status == cudaErrorNotSupported || o.status == cudaErrorInvalidResourceHandle));
      }
    }
  }
  CHECK(answered > 0);  // some payloads got past decoding, so the later stages ran too
}

TEST_CASE("an empty payload decodes only for calls without arguments") {
  rgpu::server::HandleTable handles;
  Outcome sync = dispatch(gen::k_cudaDeviceSynchronize, {}, handles);
  CHECK(sync.well_formed);
  CHECK(sync.status == cudaErrorNotSupported);
  CHECK_FALSE(dispatch(gen::k_cudaMemGetInfo, {}, handles).well_formed);
}

TEST_CASE("an unknown call id is not supported") {
  rgpu::server::HandleTable handles;
  Outcome o = dispatch(0xdeadbeef, {}, handles);
  CHECK_FALSE(o.well_formed);
  CHECK(o.status == cudaErrorNotSupported);
}
