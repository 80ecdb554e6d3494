// The session's cuBLASLt descriptor cache fed descriptor bytes as a client sends them, and bytes
// no client would: real (here emulated) descriptors for the former, kept by their bytes; a clear
// error and no call into the library for the latter.
#include <catch2/catch.hpp>

#include "common/cublaslt/lt_objects.h"
#include "gen/cublasLt/cublasLt_api.h"
#include "server/backends/emulated/cublaslt.h"
#include "server/session/cublaslt_descriptors.h"

using rgpu::cublaslt::DescKind;
using rgpu::cublaslt::Descriptor;

namespace {

// Descriptor bytes length-prefixed, as they travel in a call.
std::vector<uint8_t> framed(const std::vector<uint8_t>& bytes) {
  rgpu::wire::Encoder e;
  e.put_bytes(bytes.data(), bytes.size());
  auto p = e.payload();
  return {p.begin(), p.end()};
}

std::vector<uint8_t> layout_bytes(uint64_t rows) {
  Descriptor d(DescKind::kLayout);
  uint32_t type = CUDA_R_32F;
  int32_t batch = 2;
  d.set(CUBLASLT_MATRIX_LAYOUT_TYPE, &type, sizeof type);
  d.set(CUBLASLT_MATRIX_LAYOUT_ROWS, &rows, sizeof rows);
  d.set(CUBLASLT_MATRIX_LAYOUT_COLS, &rows, sizeof rows);
  d.set(CUBLASLT_MATRIX_LAYOUT_LD, &rows, sizeof rows);
  d.set(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch);
  std::vector<uint8_t> out;
  d.serialize(&out);
  return out;
}

struct Taken {
  bool ok;
  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  void* real = nullptr;
  std::string error;
};

Taken take(const rgpu::gen::cublasLt::Api& api, const std::vector<uint8_t>& wire, DescKind kind) {
  rgpu::wire::Decoder in(wire);
  Taken t{};
  t.ok = rgpu::server::lt_descriptor_cache().take(api, in, kind, &t.real, &t.status, &t.error);
  return t;
}

}  // namespace

TEST_CASE("descriptor bytes become real descriptors, made once per distinct bytes") {
  rgpu::gen::cublasLt::Api api;
  rgpu::gen::cublasLt::load_api(api, &rgpu::server::emulated::resolve_cublasLt, nullptr);
  Taken first = take(api, framed(layout_bytes(9)), DescKind::kLayout);
  REQUIRE(first.ok);
  REQUIRE(first.status == CUBLAS_STATUS_SUCCESS);
  Descriptor real;
  REQUIRE(rgpu::cublaslt::objects::snapshot(first.real, DescKind::kLayout, &real));
  CHECK(real.value(CUBLASLT_MATRIX_LAYOUT_ROWS) == 9);
  CHECK(real.value(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT) == 2);  // set after creation
  CHECK(take(api, framed(layout_bytes(9)), DescKind::kLayout).real == first.real);
  CHECK(take(api, framed(layout_bytes(10)), DescKind::kLayout).real != first.real);
}

TEST_CASE("malformed descriptor bytes are an error that says why, not a call") {
  rgpu::gen::cublasLt::Api api;  // empty: any call into it would crash
  auto refused = [&](const std::vector<uint8_t>& wire, DescKind kind, const char* why) {
    Taken t = take(api, wire, kind);
    INFO(why << ": " << t.error);
    CHECK_FALSE(t.ok);
    CHECK(t.error.find(why) != std::string::npos);
  };
  refused({1, 0}, DescKind::kLayout, "missing");                                 // a cut length prefix
  refused({5, 0, 0, 0, 2, 2, 8}, DescKind::kLayout, "missing");                  // longer than what follows
  refused(framed(layout_bytes(3)), DescKind::kMatmul, "kind");
  refused(framed({2, 40, 4, 0, 0, 0, 0}), DescKind::kLayout, "not one of this kind");
  refused(framed({2, 2, 8, 1, 2}), DescKind::kLayout, "truncated");
}

TEST_CASE("well-formed descriptors on a backend without cuBLASLt answer not supported") {
  rgpu::gen::cublasLt::Api api;
  Taken t = take(api, framed(layout_bytes(11)), DescKind::kLayout);
  CHECK(t.ok);
  CHECK(t.status == CUBLAS_STATUS_NOT_SUPPORTED);
}
