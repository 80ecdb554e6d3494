// Peer bytes never crash the generated cudart and cuBLAS dispatchers: random and near-valid payloads
// for every call id, against a backend with no entry points (nothing is ever called), under the
// sanitizers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <random>
#include <vector>

#include "common/log.h"
#include "common/wire/codec.h"
#include "gen/cublas/cublas_api.h"
#include "gen/cublas/cublas_handlers.h"
#include "gen/cublas/cublas_ids.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "gen/cudart/cudart_ids.h"
#include "gen/cudnn/cudnn_api.h"
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

using Dispatch = bool (*)(rgpu::server::CallContext&, uint32_t, rgpu::wire::Decoder&, rgpu::wire::Encoder&, int32_t&);

Outcome dispatch(uint32_t id, const std::vector<uint8_t>& payload, rgpu::server::HandleTable& handles,
                 Dispatch library_dispatch = gen::dispatch) {
  static rgpu::server::Session session;
  static const gen::Api empty_api;  // every entry null: a decoded call answers not supported
  static const rgpu::gen::cublas::Api empty_cublas;
  static const rgpu::gen::cudnn::Api empty_cudnn;
  std::vector<iovec> bulk_out;
  rgpu::server::CallContext ctx{session, empty_api, empty_cublas, empty_cudnn, handles, {}, &bulk_out, 0};
  rgpu::wire::Decoder in(payload);
  rgpu::wire::Encoder out;
  int32_t status = -12345;
  bool ok = library_dispatch(ctx, id, in, out, status);
  CHECK(out.payload().empty());  // nothing succeeded, so nothing is sent back
  return {ok, status};
}

// Random and near-valid payloads for each id; returns how many decoded (and were answered with one
// of `statuses`).
template <size_t N>
int fuzz_ids(const uint32_t (&ids)[N], const char* (*name)(uint32_t), Dispatch library_dispatch,
             std::initializer_list<int32_t> statuses) {
  std::mt19937_64 rng(20261129);
  rgpu::server::HandleTable handles;
  handles.bind(rgpu::server::HandleKind::kStream, 0x100, reinterpret_cast<void*>(0x1000));
  handles.bind(rgpu::server::HandleKind::kCublas, 0x100, reinterpret_cast<void*>(0x2000));
  int answered = 0;
  for (uint32_t id : ids) {
    INFO(name(id));
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
      Outcome o = dispatch(id, payload, handles, library_dispatch);
      if (o.well_formed) {
        ++answered;
        CHECK(std::find(statuses.begin(), statuses.end(), o.status) != statuses.end());
      }
    }
  }
  return answered;
}

}  // namespace

TEST_CASE("random payloads for every cudart call id are rejected or answered, never crash") {
  rgpu::log_set_level(rgpu::LogLevel::kError);
  int answered = fuzz_ids(gen::kCallIds, gen::call_name, gen::dispatch,
                          {cudaErrorNotSupported, cudaErrorInvalidResourceHandle});
  CHECK(answered > 0);  // some payloads got past decoding, so the later stages ran too
}

TEST_CASE("random payloads for every cuBLAS call id are rejected or answered, never crash") {
  rgpu::log_set_level(rgpu::LogLevel::kError);
  int answered = fuzz_ids(rgpu::gen::cublas::kCallIds, rgpu::gen::cublas::call_name, rgpu::gen::cublas::dispatch,
                          {CUBLAS_STATUS_NOT_SUPPORTED, CUBLAS_STATUS_NOT_INITIALIZED});
  CHECK(answered > 0);
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
