// Real cuBLASLt descriptors made from client bytes, cached by those bytes (see the header).
#include "server/session/cublaslt_descriptors.h"

#include <initializer_list>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "gen/cublasLt/cublasLt_api.h"

namespace rgpu::server {
namespace {

using cublaslt::DescKind;
using cublaslt::Descriptor;

struct Entry {
  Descriptor attrs;
  void* real;
};

std::mutex& cache_mu() {
  static std::mutex mu;
  return mu;
}

// Looked up by the bytes as they lie in the call (string_view): no allocation for a known descriptor.
struct BytesHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};
using Entries = std::unordered_map<std::string, Entry, BytesHash, std::equal_to<>>;

Entries& entries() {
  static auto* m = new Entries;  // lives as long as the worker
  return *m;
}

}  // namespace

LtDescriptorCache& lt_descriptor_cache() {
  static LtDescriptorCache cache;
  return cache;
}

bool LtDescriptorCache::take(const gen::cublasLt::Api& api, wire::Decoder& in, DescKind kind, void** real,
                             cublasStatus_t* status, std::string* error, Descriptor* attrs) {
  auto bytes = in.get_bytes();
  if (!in.ok()) {
    *error = "descriptor bytes missing";
    return false;
  }
  std::string_view key(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  std::lock_guard lock(cache_mu());
  auto it = entries().find(key);
  if (it != entries().end()) {
    *real = it->second.real;
    if (attrs) *attrs = it->second.attrs;
    *status = CUBLAS_STATUS_SUCCESS;
    return true;
  }
  Descriptor d;
  if (!cublaslt::parse(bytes, kind, &d, error)) return false;
  if (attrs) *attrs = d;
  *status = make(api, d, real);
  if (*status != CUBLAS_STATUS_SUCCESS) return true;
  entries().emplace(std::string(key), Entry{d, *real});
  return true;
}

void LtDescriptorCache::trim(const gen::cublasLt::Api& api) {
  std::lock_guard lock(cache_mu());
  if (entries().size() < kMaxEntries) return;
  for (auto& [k, e] : entries()) destroy(api, e.attrs.kind(), e.real);
  entries().clear();
}

cublasStatus_t LtDescriptorCache::make(const gen::cublasLt::Api& api, const Descriptor& d, void** real) {
  if (!api.cublasLtMatmulDescCreate || !api.cublasLtMatmulDescSetAttribute || !api.cublasLtMatmulDescDestroy ||
      !api.cublasLtMatrixLayoutCreate || !api.cublasLtMatrixLayoutSetAttribute || !api.cublasLtMatrixLayoutDestroy ||
      !api.cublasLtMatmulPreferenceCreate || !api.cublasLtMatmulPreferenceSetAttribute ||
      !api.cublasLtMatmulPreferenceDestroy)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
  // Sets each attribute of d not in `taken` (the creation's) with `set` on `r`.
  auto set_rest = [&](auto r, auto set, std::initializer_list<uint32_t> taken) {
    d.for_each_set([&](uint32_t attr, const void* bytes, size_t size) {
      for (uint32_t t : taken)
        if (t == attr) return;
      if (st == CUBLAS_STATUS_SUCCESS) st = set(r, attr, bytes, size);
    });
  };
  switch (d.kind()) {
    case DescKind::kMatmul: {
      cublasLtMatmulDesc_t m = nullptr;
      st = api.cublasLtMatmulDescCreate(&m, static_cast<cublasComputeType_t>(d.value(CUBLASLT_MATMUL_DESC_COMPUTE_TYPE)),
                                        static_cast<cudaDataType_t>(d.value(CUBLASLT_MATMUL_DESC_SCALE_TYPE)));
      if (st != CUBLAS_STATUS_SUCCESS) return st;
      set_rest(m, [&](cublasLtMatmulDesc_t r, uint32_t a, const void* b, size_t n) {
        return api.cublasLtMatmulDescSetAttribute(r, static_cast<cublasLtMatmulDescAttributes_t>(a), b, n);
      }, {CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, CUBLASLT_MATMUL_DESC_SCALE_TYPE});
      *real = m;
      break;
    }
    case DescKind::kLayout: {
      cublasLtMatrixLayout_t l = nullptr;
      st = api.cublasLtMatrixLayoutCreate(&l, static_cast<cudaDataType>(d.value(CUBLASLT_MATRIX_LAYOUT_TYPE)),
                                          static_cast<uint64_t>(d.value(CUBLASLT_MATRIX_LAYOUT_ROWS)),
                                          static_cast<uint64_t>(d.value(CUBLASLT_MATRIX_LAYOUT_COLS)),
                                          d.value(CUBLASLT_MATRIX_LAYOUT_LD));
      if (st != CUBLAS_STATUS_SUCCESS) return st;
      set_rest(l, [&](cublasLtMatrixLayout_t r, uint32_t a, const void* b, size_t n) {
        return api.cublasLtMatrixLayoutSetAttribute(r, static_cast<cublasLtMatrixLayoutAttribute_t>(a), b, n);
      }, {CUBLASLT_MATRIX_LAYOUT_TYPE, CUBLASLT_MATRIX_LAYOUT_ROWS, CUBLASLT_MATRIX_LAYOUT_COLS, CUBLASLT_MATRIX_LAYOUT_LD});
      *real = l;
      break;
    }
    case DescKind::kPreference: {
      cublasLtMatmulPreference_t p = nullptr;
      st = api.cublasLtMatmulPreferenceCreate(&p);
      if (st != CUBLAS_STATUS_SUCCESS) return st;
      set_rest(p, [&](cublasLtMatmulPreference_t r, uint32_t a, const void* b, size_t n) {
        return api.cublasLtMatmulPreferenceSetAttribute(r, static_cast<cublasLtMatmulPreferenceAttributes_t>(a), b, n);
      }, {});
      *real = p;
      break;
    }
  }
  if (st != CUBLAS_STATUS_SUCCESS) destroy(api, d.kind(), *real);
  return st;
}

void LtDescriptorCache::destroy(const gen::cublasLt::Api& api, DescKind kind, void* real) {
  switch (kind) {
    case DescKind::kMatmul: api.cublasLtMatmulDescDestroy(static_cast<cublasLtMatmulDesc_t>(real)); break;
    case DescKind::kLayout: api.cublasLtMatrixLayoutDestroy(static_cast<cublasLtMatrixLayout_t>(real)); break;
    case DescKind::kPreference: api.cublasLtMatmulPreferenceDestroy(static_cast<cublasLtMatmulPreference_t>(real)); break;
  }
}

}  // namespace rgpu::server
