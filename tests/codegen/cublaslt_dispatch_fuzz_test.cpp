// Peer bytes never crash the cuBLASLt dispatch, its hand-written handlers included: random
// payloads for every call id, and valid heuristic and matmul payloads with random bytes changed or
// cut, against a backend with no entry points (nothing is ever called), under the sanitizers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <initializer_list>
#include <random>
#include <vector>

#include "common/log.h"
#include "common/wire/codec.h"
#include "gen/cublasLt/cublasLt_api.h"
#include "gen/cublasLt/cublasLt_handlers.h"
#include "gen/cublasLt/cublasLt_ids.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cublas/cublas_api.h"
#include "gen/cudnn/cudnn_api.h"
#include "server/session/call_context.h"
#include "tests/fuzz/cublaslt_payloads.h"

namespace rgpu::server {
class Session {};  // the dispatch never touches it
}  // namespace rgpu::server

namespace {

namespace lt = rgpu::gen::cublasLt;

struct Outcome {
  bool well_formed;
  int32_t status;
};

Outcome dispatch(uint32_t id, const std::vector<uint8_t>& payload, rgpu::server::HandleTable& handles) {
  static rgpu::server::Session session;
  static const rgpu::gen::cudart::Api empty_cudart;
  static const rgpu::gen::cublas::Api empty_cublas;
  static const rgpu::gen::cudnn::Api empty_cudnn;
  std::vector<iovec> bulk_out;
  rgpu::server::CallContext ctx{session, empty_cudart, empty_cublas, empty_cudnn, handles, {}, &bulk_out, 0};
  rgpu::wire::Decoder in(payload);
  rgpu::wire::Encoder out;
  int32_t status = -12345;
  bool ok = lt::dispatch(ctx, id, in, out, status);
  CHECK(out.payload().empty());  // nothing succeeded, so nothing is sent back
  return {ok, status};
}

}  // namespace

TEST_CASE("valid cuBLASLt payloads decode and, with no library, answer not supported") {
  rgpu::server::HandleTable handles;
  handles.bind(rgpu::server::HandleKind::kCublas, 0x100, reinterpret_cast<void*>(0x2000));
  for (uint32_t id : {lt::k_cublasLtMatmulAlgoGetHeuristic, lt::k_cublasLtMatmul}) {
    Outcome o = dispatch(id, rgpu::fuzz::cublaslt_valid_payload(id, 0x100), handles);
    CHECK(o.well_formed);
    CHECK(o.status == CUBLAS_STATUS_NOT_SUPPORTED);
  }
}

TEST_CASE("changed and cut cuBLASLt payloads are rejected or answered, never crash") {
  rgpu::log_set_level(rgpu::LogLevel::kError);
  std::mt19937_64 rng(20261129);
  rgpu::server::HandleTable handles;
  handles.bind(rgpu::server::HandleKind::kCublas, 0x100, reinterpret_cast<void*>(0x2000));
  const auto statuses = {CUBLAS_STATUS_NOT_SUPPORTED, CUBLAS_STATUS_NOT_INITIALIZED, CUBLAS_STATUS_INVALID_VALUE};
  for (uint32_t id : lt::kCallIds) {
    INFO(lt::call_name(id));
    const bool described = id == lt::k_cublasLtMatmulAlgoGetHeuristic || id == lt::k_cublasLtMatmul;
    for (int round = 0; round < 2000; ++round) {
      std::vector<uint8_t> payload = described ? rgpu::fuzz::cublaslt_valid_payload(id, 0x100) : std::vector<uint8_t>(rng() % 96);
      if (described) {
        for (int changes = 1 + rng() % 3; changes > 0; --changes) payload[rng() % payload.size()] = uint8_t(rng());
        if (rng() % 4 == 0) payload.resize(rng() % payload.size());
      } else {
        for (auto& b : payload) b = static_cast<uint8_t>(rng() % 4 ? rng() % 3 : rng());
      }
      Outcome o = dispatch(id, payload, handles);
      if (o.well_formed) CHECK(std::find(statuses.begin(), statuses.end(), o.status) != statuses.end());
    }
  }
}
