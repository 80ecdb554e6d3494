// The payloads of cublasLtMatmulAlgoGetHeuristic and cublasLtMatmul: descriptors serialized as the
// client's, then the call's scalars, pointers and workspace.
#include "tests/fuzz/cublaslt_payloads.h"

#include "common/cublaslt/lt_descriptor.h"
#include "common/wire/codec.h"
#include "gen/cublasLt/cublasLt_ids.h"

namespace rgpu::fuzz {
namespace {

using cublaslt::DescKind;
using cublaslt::Descriptor;

void put_descriptor(wire::Encoder& e, DescKind kind) {
  Descriptor d(kind);
  int32_t v = 1;
  if (kind == DescKind::kLayout) d.set(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &v, sizeof v);
  if (kind == DescKind::kMatmul) d.set(CUBLASLT_MATMUL_DESC_TRANSA, &v, sizeof v);
  std::vector<uint8_t> bytes;
  d.serialize(&bytes);
  e.put_bytes(bytes.data(), bytes.size());
}

}  // namespace

std::vector<uint8_t> cublaslt_valid_payload(uint32_t id, uint64_t handle) {
  wire::Encoder e;
  e.put<uint64_t>(handle);
  for (DescKind k : {DescKind::kMatmul, DescKind::kLayout, DescKind::kLayout, DescKind::kLayout, DescKind::kLayout})
    put_descriptor(e, k);
  if (id == gen::cublasLt::k_cublasLtMatmulAlgoGetHeuristic) {
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

}  // namespace rgpu::fuzz
