// The registry of live cuBLASLt descriptors (opaque pointer -> Descriptor) and the cublasLt.h
// functions over it. A reader-writer lock: matmuls only read.
#include "common/cublaslt/lt_objects.h"

#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

namespace rgpu::cublaslt::objects {
namespace {

struct Registry {
  std::shared_mutex mu;
  std::unordered_map<const void*, std::unique_ptr<Descriptor>> live;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: calls may come from other libraries' exit handlers
  return *r;
}

// A created descriptor is keyed by its own address, which is the handle the caller gets.
template <typename Handle>
cublasStatus_t create(Handle* out, const Descriptor& initial) {
  if (!out) return CUBLAS_STATUS_INVALID_VALUE;
  auto d = std::make_unique<Descriptor>(initial);
  const void* key = d.get();
  std::unique_lock lock(registry().mu);
  registry().live[key] = std::move(d);
  *out = reinterpret_cast<Handle>(const_cast<void*>(key));
  return CUBLAS_STATUS_SUCCESS;
}

// An initialized descriptor lives in the caller's storage of at least the library's opaque size.
cublasStatus_t init(const void* storage, size_t size, size_t opaque_size, const Descriptor& initial) {
  if (!storage || size < opaque_size) return CUBLAS_STATUS_INVALID_VALUE;
  std::unique_lock lock(registry().mu);
  registry().live[storage] = std::make_unique<Descriptor>(initial);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t destroy(const void* p) {
  if (!p) return CUBLAS_STATUS_SUCCESS;  // as the library: destroying nothing is fine
  std::unique_lock lock(registry().mu);
  return registry().live.erase(p) ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

cublasStatus_t set(const void* p, DescKind kind, uint32_t attr, const void* buf, size_t size) {
  std::unique_lock lock(registry().mu);
  auto it = registry().live.find(p);
  if (it == registry().live.end() || it->second->kind() != kind) return CUBLAS_STATUS_INVALID_VALUE;
  return it->second->set(attr, buf, size);
}

cublasStatus_t get(const void* p, DescKind kind, uint32_t attr, void* buf, size_t size, size_t* written) {
  std::shared_lock lock(registry().mu);
  auto it = registry().live.find(p);
  if (it == registry().live.end() || it->second->kind() != kind) return CUBLAS_STATUS_INVALID_VALUE;
  return it->second->get(attr, buf, size, written);
}

Descriptor matmul(cublasComputeType_t compute, cudaDataType_t scale) {
  Descriptor d(DescKind::kMatmul);
  int32_t c = compute, s = scale;
  d.set(CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, &c, sizeof c);
  d.set(CUBLASLT_MATMUL_DESC_SCALE_TYPE, &s, sizeof s);
  return d;
}

Descriptor layout(cudaDataType type, uint64_t rows, uint64_t cols, int64_t ld) {
  Descriptor d(DescKind::kLayout);
  uint32_t t = type;
  d.set(CUBLASLT_MATRIX_LAYOUT_TYPE, &t, sizeof t);
  d.set(CUBLASLT_MATRIX_LAYOUT_ROWS, &rows, sizeof rows);
  d.set(CUBLASLT_MATRIX_LAYOUT_COLS, &cols, sizeof cols);
  d.set(CUBLASLT_MATRIX_LAYOUT_LD, &ld, sizeof ld);
  return d;
}

}  // namespace

bool snapshot(const void* p, DescKind kind, Descriptor* out) {
  std::shared_lock lock(registry().mu);
  auto it = registry().live.find(p);
  if (it == registry().live.end() || it->second->kind() != kind) return false;
  *out = *it->second;
  return true;
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* matmulDesc, cublasComputeType_t computeType,
                                        cudaDataType_t scaleType) {
  return create(matmulDesc, matmul(computeType, scaleType));
}

cublasStatus_t cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t matmulDesc, size_t size,
                                               cublasComputeType_t computeType, cudaDataType_t scaleType) {
  return init(matmulDesc, size, sizeof(cublasLtMatmulDescOpaque_t), matmul(computeType, scaleType));
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc) { return destroy(matmulDesc); }

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc, cublasLtMatmulDescAttributes_t attr,
                                              const void* buf, size_t sizeInBytes) {
  return set(matmulDesc, DescKind::kMatmul, attr, buf, sizeInBytes);
}

cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t matmulDesc, cublasLtMatmulDescAttributes_t attr,
                                              void* buf, size_t sizeInBytes, size_t* sizeWritten) {
  return get(matmulDesc, DescKind::kMatmul, attr, buf, sizeInBytes, sizeWritten);
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* matLayout, cudaDataType type, uint64_t rows,
                                          uint64_t cols, int64_t ld) {
  return create(matLayout, layout(type, rows, cols, ld));
}

cublasStatus_t cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t matLayout, size_t size, cudaDataType type,
                                                 uint64_t rows, uint64_t cols, int64_t ld) {
  return init(matLayout, size, sizeof(cublasLtMatrixLayoutOpaque_t), layout(type, rows, cols, ld));
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t matLayout) { return destroy(matLayout); }

cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t matLayout, cublasLtMatrixLayoutAttribute_t attr,
                                                const void* buf, size_t sizeInBytes) {
  return set(matLayout, DescKind::kLayout, attr, buf, sizeInBytes);
}

cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t matLayout, cublasLtMatrixLayoutAttribute_t attr,
                                                void* buf, size_t sizeInBytes, size_t* sizeWritten) {
  return get(matLayout, DescKind::kLayout, attr, buf, sizeInBytes, sizeWritten);
}

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* pref) {
  return create(pref, Descriptor(DescKind::kPreference));
}

cublasStatus_t cublasLtMatmulPreferenceInit_internal(cublasLtMatmulPreference_t pref, size_t size) {
  return init(pref, size, sizeof(cublasLtMatmulPreferenceOpaque_t), Descriptor(DescKind::kPreference));
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) { return destroy(pref); }

cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr, const void* buf,
                                                    size_t sizeInBytes) {
  return set(pref, DescKind::kPreference, attr, buf, sizeInBytes);
}

cublasStatus_t cublasLtMatmulPreferenceGetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr, void* buf,
                                                    size_t sizeInBytes, size_t* sizeWritten) {
  return get(pref, DescKind::kPreference, attr, buf, sizeInBytes, sizeWritten);
}

}  // namespace rgpu::cublaslt::objects
