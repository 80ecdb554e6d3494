// Peer bytes never crash the cuBLASLt dispatch, its hand-written handlers included: random
// payloads for every call id, and valid heuristic and matmul payloads with random bytes changed or
// cut, against a backend with no entry points (nothing is ever called), under the sanitizers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <initializer_list>
#include <random>
#include <vector>

#include "common/cublaslt/lt_descriptor.h"
#include "common/log.h"
#include "common/wire/codec.h"
#include "gen/cublasLt/cublasLt_api.h"
#include "gen/cublasLt/cublasLt_handlers.h"
#include "gen/cublasLt/cublasLt_ids.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cublas/cublas_api.h"
#include "gen/cudnn/cudnn_api.h"
#include "server/session/call_context.h"

namespace rgpu::server {
class Session {};  // the dispatch never touches it
}  // namespace rgpu::server

namespace {

namespace lt = rgpu::gen::cublasLt;
using rgpu::cublaslt::DescKind;
using rgpu::cublaslt::Descriptor;

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

void put_descriptor(rgpu::wire::Encoder& e, DescKind kind) {
  Descriptor d(kind);
  int32_t v = 1;
  if (kind == DescKind::kLayout) d.set(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &v, sizeof v);
  if (kind == DescKind::kMatmul) d.set(CUBLASLT_MATMUL_DESC_TRANSA, &v, sizeof v);
  std::vector<uint8_t> bytes;
  d.serialize(&bytes);
  e.put_bytes(bytes.data(), bytes.size());
}

// What the client sends for a heuristic query and a matmul (lt_matmul.cpp), handle id 0x100.
std::vector<uint8_t> valid_payload(uint32_t id) {
  rgpu::wire::Encoder e;
  e.put<uint64_t>(0x100);
  for (DescKind k : {DescKind::kMatmul, DescKind::kLayout, DescKind::kLayout, DescKind::kLayout, DescKind::kLayout})
    put_descriptor(e, k);
  if (id == lt::k_cublasLtMatmulAlgoGetHeuristic) {
    put_descriptor(e, DescKind::kPreference);
    e.put<int32_t>(1);
  } else {
    float one = 1;
    for (int s = 0; s < 2; ++s) {
      e.put<uint8_t>(1);
      e.put_bytes(&one, sizeof one);
    }
    for (int p = 0; p < 4; ++p) e.put<uint64_t>(0x7000 + p);
    e.put_bytes(nullptr, 0);
    e.put<uint64_t>(0);
    e.put<uint64_t>(0);
    e.put<uint64_t>(0);
  }
  auto p = e.payload();
  return {p.begin(), p.end()};
}

}  // namespace

TEST_CASE("valid cuBLASLt payloads decode and, with no library, answer not supported") {
  rgpu::server::HandleTable handles;
  handles.bind(rgpu::server::HandleKind::kCublas, 0x100, reinterpret_cast<void*>(0x2000));
  for (uint32_t id : {lt::k_cublasLtMatmulAlgoGetHeuristic, lt::k_cublasLtMatmul}) {
    Outcome o = dispatch(id, valid_payload(id), handles);
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
      std::vector<uint8_t> payload = described ? valid_payload(id) : std::vector<uint8_t>(rng() % 96);
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
