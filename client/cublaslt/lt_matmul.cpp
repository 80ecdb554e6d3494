// cublasLtMatmulAlgoGetHeuristic and cublasLtMatmul on the client: the descriptors they name travel
// serialized with them (common/cublaslt). The heuristic waits for its answer, which is cached per
// process by the descriptors' bytes: PyTorch asks the same question before every GEMM of a shape,
// and the second time costs no round trip. The matmul is sent without waiting.
#include <cublasLt.h>

#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "client/runtime/call.h"
#include "codegen/support/gen_marshal.h"
#include "common/cublaslt/lt_objects.h"
#include "gen/cublasLt/cublasLt_ids.h"

namespace {

using rgpu::cublaslt::DescKind;
using rgpu::cublaslt::Descriptor;
using rgpu::cublaslt::objects::snapshot;

// The serialized descriptors of one call, each length-prefixed (the wire form, also the cache key).
// One per thread, reused: a call allocates nothing once warm.
class Descriptors {
 public:
  static Descriptors& for_this_thread() {
    thread_local Descriptors d;
    d.bytes_.clear();
    return d;
  }

  // Appends the descriptor at p; false when p is not a live descriptor of `kind`.
  bool add(const void* p, DescKind kind, Descriptor* copy = nullptr) {
    Descriptor d;
    if (!snapshot(p, kind, &d)) return false;
    scratch_.clear();
    d.serialize(&scratch_);
    uint32_t n = static_cast<uint32_t>(scratch_.size());
    bytes_.append(reinterpret_cast<const char*>(&n), sizeof n);
    bytes_.append(reinterpret_cast<const char*>(scratch_.data()), scratch_.size());
    if (copy) *copy = d;
    return true;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
  std::vector<uint8_t> scratch_;
};

// The answers of the heuristic so far, by handle, request and descriptors. Bounded: a program that
// asks about ever new shapes starts over now and then rather than growing without limit.
struct HeuristicCache {
  struct Answer {
    cublasStatus_t status;
    std::vector<cublasLtMatmulHeuristicResult_t> results;
  };
  static constexpr size_t kMaxEntries = 4096;
  std::mutex mu;
  std::unordered_map<std::string, Answer> answers;
};

HeuristicCache& heuristic_cache() {
  static HeuristicCache* c = new HeuristicCache;  // never destroyed: calls may come from exit handlers
  return *c;
}

cublasStatus_t answer(const HeuristicCache::Answer& a, int requested, cublasLtMatmulHeuristicResult_t* results,
                      int* count) {
  *count = 0;
  if (a.status != CUBLAS_STATUS_SUCCESS) return a.status;
  size_t n = std::min(a.results.size(), static_cast<size_t>(requested));
  if (n) std::memcpy(results, a.results.data(), n * sizeof *results);
  *count = static_cast<int>(n);
  return CUBLAS_STATUS_SUCCESS;
}

// Whether the heuristic's answer is a fact about the descriptors (cached) rather than a passing
// failure (not cached: asked again next time).
bool lasting(cublasStatus_t status) {
  return status == CUBLAS_STATUS_SUCCESS || status == CUBLAS_STATUS_NOT_SUPPORTED ||
         status == CUBLAS_STATUS_INVALID_VALUE;
}

}  // namespace

extern "C" {  // exported by the shim's version script

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,
                                              cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
                                              cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                                              cublasLtMatmulPreference_t preference, int requestedAlgoCount,
                                              cublasLtMatmulHeuristicResult_t heuristicResultsArray[],
                                              int* returnAlgoCount) {
  if (requestedAlgoCount <= 0 || !heuristicResultsArray || !returnAlgoCount ||
      static_cast<size_t>(requestedAlgoCount) > rgpu::gen::kMaxArrayBytes / sizeof(cublasLtMatmulHeuristicResult_t))
    return CUBLAS_STATUS_INVALID_VALUE;
  Descriptors& d = Descriptors::for_this_thread();
  if (!d.add(operationDesc, DescKind::kMatmul) || !d.add(Adesc, DescKind::kLayout) ||
      !d.add(Bdesc, DescKind::kLayout) || !d.add(Cdesc, DescKind::kLayout) || !d.add(Ddesc, DescKind::kLayout) ||
      !d.add(preference, DescKind::kPreference))
    return CUBLAS_STATUS_INVALID_VALUE;
  const uint64_t handle = rgpu::gen::handle_id(lightHandle);
  thread_local std::string key;  // reused: the lookup allocates nothing once warm
  key.assign(reinterpret_cast<const char*>(&handle), sizeof handle);
  key.append(reinterpret_cast<const char*>(&requestedAlgoCount), sizeof requestedAlgoCount);
  key += d.bytes();
  HeuristicCache& cache = heuristic_cache();
  {
    std::lock_guard lock(cache.mu);
    auto it = cache.answers.find(key);
    if (it != cache.answers.end()) return answer(it->second, requestedAlgoCount, heuristicResultsArray, returnAlgoCount);
  }

  rgpu::client::Call call(rgpu::gen::cublasLt::k_cublasLtMatmulAlgoGetHeuristic, rgpu::client::CallClass::kSync);
  call.args().put<uint64_t>(handle);
  call.args().put_raw(d.bytes().data(), d.bytes().size());
  call.args().put<int32_t>(requestedAlgoCount);
  const int32_t rc = call.invoke();
  if (rc == rgpu::client::kStatusUnavailable) return CUBLAS_STATUS_NOT_INITIALIZED;
  HeuristicCache::Answer a{static_cast<cublasStatus_t>(rc), {}};
  if (a.status == CUBLAS_STATUS_SUCCESS) {
    rgpu::wire::Decoder& r = call.results();
    const int32_t n = r.get<int32_t>();
    auto bytes = r.get_bytes();
    if (!r.ok() || n < 0 || n > requestedAlgoCount || bytes.size() != size_t(n) * sizeof(cublasLtMatmulHeuristicResult_t))
      return CUBLAS_STATUS_INTERNAL_ERROR;
    a.results.resize(static_cast<size_t>(n));
    if (n) std::memcpy(a.results.data(), bytes.data(), bytes.size());
  }
  if (lasting(a.status)) {
    std::lock_guard lock(cache.mu);
    if (cache.answers.size() >= HeuristicCache::kMaxEntries) cache.answers.clear();
    cache.answers.emplace(key, a);
  }
  return answer(a, requestedAlgoCount, heuristicResultsArray, returnAlgoCount);
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc, const void* alpha,
                              const void* A, cublasLtMatrixLayout_t Adesc, const void* B,
                              cublasLtMatrixLayout_t Bdesc, const void* beta, const void* C,
                              cublasLtMatrixLayout_t Cdesc, void* D, cublasLtMatrixLayout_t Ddesc,
                              const cublasLtMatmulAlgo_t* algo, void* workspace, size_t workspaceSizeInBytes,
                              cudaStream_t stream) {
  // The descriptors first: alpha and beta travel as values or addresses as the matmul descriptor's
  // pointer mode says, and their size is its scale type's.
  Descriptor desc;
  Descriptors& d = Descriptors::for_this_thread();
  if (!d.add(computeDesc, DescKind::kMatmul, &desc) || !d.add(Adesc, DescKind::kLayout) ||
      !d.add(Bdesc, DescKind::kLayout) || !d.add(Cdesc, DescKind::kLayout) || !d.add(Ddesc, DescKind::kLayout))
    return CUBLAS_STATUS_INVALID_VALUE;
  const size_t scalar = rgpu::cublaslt::scalar_bytes(static_cast<int32_t>(desc.value(CUBLASLT_MATMUL_DESC_SCALE_TYPE)));
  if (scalar == 0) return CUBLAS_STATUS_NOT_SUPPORTED;
  const int64_t mode = desc.value(CUBLASLT_MATMUL_DESC_POINTER_MODE);
  const bool alpha_host = mode == CUBLASLT_POINTER_MODE_HOST;
  const bool beta_host = alpha_host || mode == CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST;

  rgpu::client::Call call(rgpu::gen::cublasLt::k_cublasLtMatmul, rgpu::client::CallClass::kAsync);
  rgpu::wire::Encoder& e = call.args();
  e.put<uint64_t>(rgpu::gen::handle_id(lightHandle));
  e.put_raw(d.bytes().data(), d.bytes().size());  // desc, A, B, C, D layouts
  rgpu::gen::put_scalar_in(e, alpha_host, alpha, scalar);
  rgpu::gen::put_scalar_in(e, beta_host, beta, scalar);
  rgpu::gen::put_device(e, A);
  rgpu::gen::put_device(e, B);
  rgpu::gen::put_device(e, C);
  rgpu::gen::put_device(e, D);
  e.put_bytes(algo, algo ? sizeof *algo : 0);  // absent: the library picks
  rgpu::gen::put_device(e, workspace);
  e.put<uint64_t>(workspaceSizeInBytes);
  e.put<uint64_t>(rgpu::gen::handle_id(stream));
  const int32_t rc = call.post();
  if (rc == rgpu::client::kStatusUnavailable) return CUBLAS_STATUS_NOT_INITIALIZED;
  return static_cast<cublasStatus_t>(rc);
}

}  // extern "C"
