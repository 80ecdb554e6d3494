// cublasLtMatmulAlgoGetHeuristic and cublasLtMatmul: the descriptors come serialized with the call
// (client/cublaslt/lt_matmul.cpp) and become real ones through the session's cache
// (cublaslt_descriptors.h). The handle id may be a cuBLASLt or a cuBLAS handle's (one id table:
// a cublasHandle_t is a valid cublasLtHandle_t, and torch passes one).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "codegen/support/gen_marshal.h"
#include "common/log.h"
#include "gen/cublasLt/cublasLt_api.h"
#include "gen/cublasLt/cublasLt_handlers.h"
#include "server/session/call_context.h"
#include "server/session/cublaslt_descriptors.h"

namespace rgpu::server::handlers {
namespace {

using cublaslt::DescKind;
using cublaslt::Descriptor;

// Reads the call's descriptors in order into real[]; false (logged) for bytes that are not
// descriptors, else *status says whether every one could be made.
bool take_descriptors(CallContext& ctx, wire::Decoder& in, const char* call, std::initializer_list<DescKind> kinds,
                      void** real, cublasStatus_t* status, Descriptor* matmul_attrs = nullptr) {
  *status = CUBLAS_STATUS_SUCCESS;
  lt_descriptor_cache().trim(ctx.cublasLt);
  size_t i = 0;
  for (DescKind kind : kinds) {
    std::string error;
    cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
    Descriptor* attrs = kind == DescKind::kMatmul ? matmul_attrs : nullptr;
    if (!lt_descriptor_cache().take(ctx.cublasLt, in, kind, &real[i++], &st, &error, attrs)) {
      RGPU_LOG_WARN("%s: malformed descriptor from the client: %s", call, error.c_str());
      return false;
    }
    if (*status == CUBLAS_STATUS_SUCCESS) *status = st;
  }
  return true;
}

// Whether the call can run: every descriptor was made and the server's library has the entry
// point (a missing one is logged once per call: `logged`). If not, `status` says why.
bool runnable(cublasStatus_t made, bool available, std::atomic<bool>& logged, const char* call, int32_t& status) {
  if (made != CUBLAS_STATUS_SUCCESS) {
    status = made;
    return false;
  }
  if (!available) {
    gen::report_not_available(logged, call);
    status = CUBLAS_STATUS_NOT_SUPPORTED;
    return false;
  }
  return true;
}

}  // namespace

bool cublasLtMatmulAlgoGetHeuristic(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  const char* name = "cublasLtMatmulAlgoGetHeuristic";
  const uint64_t handle_id = in.get<uint64_t>();
  void* real[6] = {};
  cublasStatus_t made = CUBLAS_STATUS_SUCCESS;
  if (!in.ok() || !take_descriptors(ctx, in, name,
                                    {DescKind::kMatmul, DescKind::kLayout, DescKind::kLayout, DescKind::kLayout,
                                     DescKind::kLayout, DescKind::kPreference},
                                    real, &made))
    return false;
  const int32_t requested = in.get<int32_t>();
  if (!in.ok() || !in.at_end()) return false;
  if (requested <= 0 || static_cast<size_t>(requested) > gen::kMaxArrayBytes / sizeof(cublasLtMatmulHeuristicResult_t)) {
    status = CUBLAS_STATUS_INVALID_VALUE;
    return true;
  }
  cublasLtHandle_t handle = nullptr;
  if (!ctx.handles.resolve(HandleKind::kCublas, handle_id, &handle)) {
    status = CUBLAS_STATUS_NOT_INITIALIZED;
    return true;
  }
  static std::atomic<bool> logged{false};
  if (!runnable(made, ctx.cublasLt.cublasLtMatmulAlgoGetHeuristic != nullptr, logged, name, status)) return true;
  std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<size_t>(requested));
  int returned = 0;
  const cublasStatus_t st = ctx.cublasLt.cublasLtMatmulAlgoGetHeuristic(
      handle, static_cast<cublasLtMatmulDesc_t>(real[0]), static_cast<cublasLtMatrixLayout_t>(real[1]),
      static_cast<cublasLtMatrixLayout_t>(real[2]), static_cast<cublasLtMatrixLayout_t>(real[3]),
      static_cast<cublasLtMatrixLayout_t>(real[4]), static_cast<cublasLtMatmulPreference_t>(real[5]), requested,
      results.data(), &returned);
  status = st;
  if (st == CUBLAS_STATUS_SUCCESS) {
    returned = std::clamp(returned, 0, requested);
    out.put<int32_t>(returned);
    out.put_bytes(results.data(), static_cast<size_t>(returned) * sizeof(cublasLtMatmulHeuristicResult_t));
  }
  return true;
}

bool cublasLtMatmul(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  const char* name = "cublasLtMatmul";
  const uint64_t handle_id = in.get<uint64_t>();
  void* real[5] = {};
  Descriptor desc;
  cublasStatus_t made = CUBLAS_STATUS_SUCCESS;
  if (!in.ok() || !take_descriptors(ctx, in, name,
                                    {DescKind::kMatmul, DescKind::kLayout, DescKind::kLayout, DescKind::kLayout,
                                     DescKind::kLayout},
                                    real, &made, &desc))
    return false;
  gen::Scalar<uint8_t> alpha, beta;
  if (!alpha.read_in(in) || !beta.read_in(in)) return false;
  const uint64_t a = in.get<uint64_t>(), b = in.get<uint64_t>(), c = in.get<uint64_t>(), d = in.get<uint64_t>();
  bool has_algo = false;
  auto algo_bytes = in.get_bytes(&has_algo);
  const uint64_t workspace = in.get<uint64_t>(), workspace_size = in.get<uint64_t>(), stream_id = in.get<uint64_t>();
  if (!in.ok() || !in.at_end() || (has_algo && algo_bytes.size() != sizeof(cublasLtMatmulAlgo_t))) return false;
  // Host scalars hold exactly what the library reads: one of the descriptor's scale type.
  const size_t scalar = cublaslt::scalar_bytes(static_cast<int32_t>(desc.value(CUBLASLT_MATMUL_DESC_SCALE_TYPE)));
  if (!alpha.has_count(scalar) || !beta.has_count(scalar)) return false;
  cublasLtHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;
  if (!ctx.handles.resolve(HandleKind::kCublas, handle_id, &handle)) {
    status = CUBLAS_STATUS_NOT_INITIALIZED;
    return true;
  }
  if (!ctx.handles.resolve(HandleKind::kStream, stream_id, &stream)) {
    status = CUBLAS_STATUS_INVALID_VALUE;
    return true;
  }
  static std::atomic<bool> logged{false};
  if (!runnable(made, ctx.cublasLt.cublasLtMatmul != nullptr, logged, name, status)) return true;
  cublasLtMatmulAlgo_t algo{};
  if (has_algo) std::memcpy(&algo, algo_bytes.data(), sizeof algo);
  auto address = [](uint64_t v) { return reinterpret_cast<void*>(static_cast<uintptr_t>(v)); };
  status = ctx.cublasLt.cublasLtMatmul(
      handle, static_cast<cublasLtMatmulDesc_t>(real[0]), alpha.get(), address(a),
      static_cast<cublasLtMatrixLayout_t>(real[1]), address(b), static_cast<cublasLtMatrixLayout_t>(real[2]), beta.get(),
      address(c), static_cast<cublasLtMatrixLayout_t>(real[3]), address(d), static_cast<cublasLtMatrixLayout_t>(real[4]),
      has_algo ? &algo : nullptr, address(workspace), workspace_size, stream);
  return true;
}

}  // namespace rgpu::server::handlers
