// The emulated cuSPARSE (cusparse.h): handles, generic descriptors, and SpMV of CSR and COO
// matrices on the virtual device's memory, issued in the handle's stream.
#include "server/backends/emulated/cusparse.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "server/backends/emulated/entry_table.h"
#include "server/backends/emulated/handle_table.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
namespace {

// What every emulated SpMV asks for as its buffer, so that callers' buffer handling runs.
constexpr size_t kBufferSize = 256;

struct Handle {
  cudaStream_t stream = nullptr;
  cusparsePointerMode_t pointer_mode = CUSPARSE_POINTER_MODE_HOST;
};

// A sparse matrix: CSR (offsets: rows + 1 row starts) or COO (offsets: nnz row indices).
struct SpMat {
  cusparseFormat_t format = CUSPARSE_FORMAT_CSR;
  int64_t rows = 0, cols = 0, nnz = 0;
  void* offsets = nullptr;
  void* columns = nullptr;
  void* values = nullptr;
  cusparseIndexType_t offset_type = CUSPARSE_INDEX_32I, column_type = CUSPARSE_INDEX_32I;
  cusparseIndexBase_t base = CUSPARSE_INDEX_BASE_ZERO;
  cudaDataType type = CUDA_R_32F;
};

struct DnVec {
  int64_t size = 0;
  void* values = nullptr;
  cudaDataType type = CUDA_R_32F;
};

struct DnMat {
  int64_t rows = 0, cols = 0, ld = 0;
  void* values = nullptr;
  cudaDataType type = CUDA_R_32F;
  cusparseOrder_t order = CUSPARSE_ORDER_COL;
};

HandleTable<cusparseHandle_t, Handle>& handles() {
  static HandleTable<cusparseHandle_t, Handle> table;
  return table;
}
HandleTable<cusparseSpMatDescr_t, SpMat>& sparse_matrices() {
  static HandleTable<cusparseSpMatDescr_t, SpMat> table;
  return table;
}
HandleTable<cusparseDnVecDescr_t, DnVec>& dense_vectors() {
  static HandleTable<cusparseDnVecDescr_t, DnVec> table;
  return table;
}
HandleTable<cusparseDnMatDescr_t, DnMat>& dense_matrices() {
  static HandleTable<cusparseDnMatDescr_t, DnMat> table;
  return table;
}

// A const descriptor is the same object as its mutable form (cuSPARSE's are one struct).
template <typename T>
T* mutable_of(const T* p) {
  return const_cast<T*>(p);
}

size_t index_bytes(cusparseIndexType_t t) { return t == CUSPARSE_INDEX_64I ? 8 : 4; }
bool known_index(cusparseIndexType_t t) { return t == CUSPARSE_INDEX_32I || t == CUSPARSE_INDEX_64I; }
// The value types SpMV is emulated in.
size_t value_bytes(cudaDataType t) { return t == CUDA_R_64F ? 8 : t == CUDA_R_32F ? 4 : 0; }

int64_t index_at(const uint8_t* base, cusparseIndexType_t t, int64_t i) {
  if (t == CUSPARSE_INDEX_64I) {
    int64_t v;
    std::memcpy(&v, base + i * 8, sizeof v);
    return v;
  }
  int32_t v;
  std::memcpy(&v, base + i * 4, sizeof v);
  return v;
}

// A new descriptor in `table` holding `state`, written to *out (a descriptor or its const form).
template <typename Out, typename Table, typename State>
cusparseStatus_t create(Out* out, Table& table, const State& state) {
  if (!out) return CUSPARSE_STATUS_INVALID_VALUE;
  auto d = table.create();
  table.update(d, [&](State& s) { s = state; });
  *out = d;
  return CUSPARSE_STATUS_SUCCESS;
}

template <typename Out>
cusparseStatus_t create_sparse(Out* out, const SpMat& m) {
  if (m.rows < 0 || m.cols < 0 || m.nnz < 0 || !known_index(m.offset_type) || !known_index(m.column_type))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (m.nnz > 0 && (!m.offsets || !m.columns || !m.values)) return CUSPARSE_STATUS_INVALID_VALUE;
  return create(out, sparse_matrices(), m);
}

SpMat csr(int64_t rows, int64_t cols, int64_t nnz, const void* offsets, const void* columns, const void* values,
          cusparseIndexType_t offset_type, cusparseIndexType_t column_type, cusparseIndexBase_t base,
          cudaDataType type) {
  return SpMat{CUSPARSE_FORMAT_CSR, rows, cols, nnz, const_cast<void*>(offsets), const_cast<void*>(columns),
               const_cast<void*>(values), offset_type, column_type, base, type};
}

SpMat coo(int64_t rows, int64_t cols, int64_t nnz, const void* row_ind, const void* col_ind, const void* values,
          cusparseIndexType_t index_type, cusparseIndexBase_t base, cudaDataType type) {
  return SpMat{CUSPARSE_FORMAT_COO, rows, cols, nnz, const_cast<void*>(row_ind), const_cast<void*>(col_ind),
               const_cast<void*>(values), index_type, index_type, base, type};
}

template <typename Out>
cusparseStatus_t create_dense_vector(Out* out, int64_t size, const void* values, cudaDataType type) {
  if (size < 0 || (size > 0 && !values)) return CUSPARSE_STATUS_INVALID_VALUE;
  return create(out, dense_vectors(), DnVec{size, const_cast<void*>(values), type});
}

template <typename Out>
cusparseStatus_t create_dense_matrix(Out* out, int64_t rows, int64_t cols, int64_t ld, const void* values,
                                     cudaDataType type, cusparseOrder_t order) {
  const int64_t inner = order == CUSPARSE_ORDER_COL ? rows : cols;
  if (rows < 0 || cols < 0 || ld < inner || (rows * cols > 0 && !values)) return CUSPARSE_STATUS_INVALID_VALUE;
  return create(out, dense_matrices(), DnMat{rows, cols, ld, const_cast<void*>(values), type, order});
}

// Writes each non-null output.
template <typename T>
void put(T* out, T value) {
  if (out) *out = value;
}

// A scalar of SpMV: its value now (host pointer mode), or its device address, read when it runs.
struct Scalar {
  double value = 0;
  DeviceRange device;
};

double load(const uint8_t* p, size_t bytes) {
  if (bytes == 8) {
    double d;
    std::memcpy(&d, p, sizeof d);
    return d;
  }
  float f;
  std::memcpy(&f, p, sizeof f);
  return f;
}

void store(uint8_t* p, size_t bytes, double v) {
  if (bytes == 8) {
    std::memcpy(p, &v, sizeof v);
  } else {
    const float f = static_cast<float>(v);
    std::memcpy(p, &f, sizeof f);
  }
}

std::optional<Scalar> scalar_of(const Handle& h, const void* p, size_t bytes) {
  if (!p) return std::nullopt;
  Scalar s;
  if (h.pointer_mode == CUSPARSE_POINTER_MODE_HOST) {
    s.value = load(static_cast<const uint8_t*>(p), bytes);
  } else if (!(s.device = state().memory.find(p, bytes))) {
    return std::nullopt;
  }
  return s;
}

double value_of(const Scalar& s, size_t bytes) { return s.device ? load(s.device.data, bytes) : s.value; }

// Everything SpMV reads and writes, checked against the virtual device's memory.
struct SpMVArgs {
  Handle handle;
  SpMat a;
  bool transpose = false;
  size_t bytes = 0;  // of one value
  DeviceRange offsets, columns, values, x, y;
  Scalar alpha, beta;
};

cusparseStatus_t check_spmv(cusparseHandle_t handle, cusparseOperation_t op, const void* alpha,
                            cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX, const void* beta,
                            cusparseDnVecDescr_t vecY, cudaDataType compute_type, SpMVArgs* args) {
  std::optional<Handle> h = handles().get(handle);
  if (!h) return CUSPARSE_STATUS_NOT_INITIALIZED;
  std::optional<SpMat> a = sparse_matrices().get(mutable_of(matA));
  std::optional<DnVec> x = dense_vectors().get(mutable_of(vecX));
  std::optional<DnVec> y = dense_vectors().get(vecY);
  if (!a || !x || !y) return CUSPARSE_STATUS_INVALID_VALUE;
  if (op != CUSPARSE_OPERATION_NON_TRANSPOSE && op != CUSPARSE_OPERATION_TRANSPOSE) return CUSPARSE_STATUS_NOT_SUPPORTED;
  const size_t bytes = value_bytes(compute_type);
  if (!bytes || a->type != compute_type || x->type != compute_type || y->type != compute_type)
    return CUSPARSE_STATUS_NOT_SUPPORTED;  // mixed and complex forms: not emulated
  args->transpose = op == CUSPARSE_OPERATION_TRANSPOSE;
  if (x->size != (args->transpose ? a->rows : a->cols) || y->size != (args->transpose ? a->cols : a->rows))
    return CUSPARSE_STATUS_INVALID_VALUE;
  args->handle = *h;
  args->a = *a;
  args->bytes = bytes;
  const int64_t offsets = a->format == CUSPARSE_FORMAT_CSR ? a->rows + 1 : a->nnz;
  args->offsets = state().memory.find(a->offsets, uint64_t(offsets) * index_bytes(a->offset_type));
  args->columns = state().memory.find(a->columns, uint64_t(a->nnz) * index_bytes(a->column_type));
  args->values = state().memory.find(a->values, uint64_t(a->nnz) * bytes);
  args->x = state().memory.find(x->values, uint64_t(x->size) * bytes);
  args->y = state().memory.find(y->values, uint64_t(y->size) * bytes);
  // A matrix without entries reads none of its arrays.
  if ((a->nnz && (!args->offsets || !args->columns || !args->values)) || (x->size && !args->x) || (y->size && !args->y))
    return CUSPARSE_STATUS_INVALID_VALUE;
  std::optional<Scalar> al = scalar_of(*h, alpha, bytes), be = scalar_of(*h, beta, bytes);
  if (!al || !be) return CUSPARSE_STATUS_INVALID_VALUE;
  args->alpha = *al;
  args->beta = *be;
  return CUSPARSE_STATUS_SUCCESS;
}

// y = alpha op(A) x + beta y, in double precision whatever the values' type.
void run_spmv(const SpMVArgs& s) {
  const SpMat& a = s.a;
  const int64_t ny = s.transpose ? a.cols : a.rows;
  const double alpha = value_of(s.alpha, s.bytes), beta = value_of(s.beta, s.bytes);
  std::vector<double> ax(size_t(ny), 0.0);
  const int64_t base = a.base == CUSPARSE_INDEX_BASE_ONE ? 1 : 0;
  auto add = [&](int64_t row, int64_t col, double v) {
    const int64_t from = s.transpose ? row : col, to = s.transpose ? col : row;
    ax[size_t(to)] += v * load(s.x.data + from * int64_t(s.bytes), s.bytes);
  };
  for (int64_t k = 0, row = 0; k < a.nnz; ++k) {
    if (a.format == CUSPARSE_FORMAT_CSR) {
      while (row + 1 <= a.rows && index_at(s.offsets.data, a.offset_type, row + 1) - base <= k) ++row;
    } else {
      row = index_at(s.offsets.data, a.offset_type, k) - base;
    }
    const int64_t col = index_at(s.columns.data, a.column_type, k) - base;
    if (row < 0 || row >= a.rows || col < 0 || col >= a.cols) continue;  // the GPU's would be undefined
    add(row, col, load(s.values.data + k * int64_t(s.bytes), s.bytes));
  }
  for (int64_t i = 0; i < ny; ++i) {
    uint8_t* yi = s.y.data + i * int64_t(s.bytes);
    // beta == 0 ignores y's old contents (it may hold NaNs), as cuSPARSE does.
    store(yi, s.bytes, alpha * ax[size_t(i)] + (beta == 0 ? 0.0 : beta * load(yi, s.bytes)));
  }
}

}  // namespace

cusparseStatus_t cusparseCreate(cusparseHandle_t* handle) {
  if (!handle) return CUSPARSE_STATUS_INVALID_VALUE;
  *handle = handles().create();
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDestroy(cusparseHandle_t handle) {
  return handles().destroy(handle) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_NOT_INITIALIZED;
}

cusparseStatus_t cusparseGetVersion(cusparseHandle_t handle, int* version) {
  if (!handles().get(handle)) return CUSPARSE_STATUS_NOT_INITIALIZED;
  if (!version) return CUSPARSE_STATUS_INVALID_VALUE;
  *version = CUSPARSE_VERSION;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSetStream(cusparseHandle_t handle, cudaStream_t streamId) {
  return handles().update(handle, [&](Handle& h) { h.stream = streamId; }) ? CUSPARSE_STATUS_SUCCESS
                                                                           : CUSPARSE_STATUS_NOT_INITIALIZED;
}

cusparseStatus_t cusparseSetPointerMode(cusparseHandle_t handle, cusparsePointerMode_t mode) {
  if (mode != CUSPARSE_POINTER_MODE_HOST && mode != CUSPARSE_POINTER_MODE_DEVICE) return CUSPARSE_STATUS_INVALID_VALUE;
  return handles().update(handle, [&](Handle& h) { h.pointer_mode = mode; }) ? CUSPARSE_STATUS_SUCCESS
                                                                             : CUSPARSE_STATUS_NOT_INITIALIZED;
}

cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t* spMatDescr, int64_t rows, int64_t cols, int64_t nnz,
                                   void* csrRowOffsets, void* csrColInd, void* csrValues,
                                   cusparseIndexType_t csrRowOffsetsType, cusparseIndexType_t csrColIndType,
                                   cusparseIndexBase_t idxBase, cudaDataType valueType) {
  return create_sparse(spMatDescr, csr(rows, cols, nnz, csrRowOffsets, csrColInd, csrValues, csrRowOffsetsType,
                                       csrColIndType, idxBase, valueType));
}

cusparseStatus_t cusparseCreateConstCsr(cusparseConstSpMatDescr_t* spMatDescr, int64_t rows, int64_t cols, int64_t nnz,
                                        const void* csrRowOffsets, const void* csrColInd, const void* csrValues,
                                        cusparseIndexType_t csrRowOffsetsType, cusparseIndexType_t csrColIndType,
                                        cusparseIndexBase_t idxBase, cudaDataType valueType) {
  return create_sparse(spMatDescr, csr(rows, cols, nnz, csrRowOffsets, csrColInd, csrValues, csrRowOffsetsType, csrColIndType,
                           idxBase, valueType));
}

cusparseStatus_t cusparseCreateCoo(cusparseSpMatDescr_t* spMatDescr, int64_t rows, int64_t cols, int64_t nnz,
                                   void* cooRowInd, void* cooColInd, void* cooValues, cusparseIndexType_t cooIdxType,
                                   cusparseIndexBase_t idxBase, cudaDataType valueType) {
  return create_sparse(spMatDescr, coo(rows, cols, nnz, cooRowInd, cooColInd, cooValues, cooIdxType, idxBase, valueType));
}

cusparseStatus_t cusparseCreateConstCoo(cusparseConstSpMatDescr_t* spMatDescr, int64_t rows, int64_t cols, int64_t nnz,
                                        const void* cooRowInd, const void* cooColInd, const void* cooValues,
                                        cusparseIndexType_t cooIdxType, cusparseIndexBase_t idxBase,
                                        cudaDataType valueType) {
  return create_sparse(spMatDescr, coo(rows, cols, nnz, cooRowInd, cooColInd, cooValues, cooIdxType, idxBase, valueType));
}

cusparseStatus_t cusparseDestroySpMat(cusparseConstSpMatDescr_t spMatDescr) {
  // A null descriptor is accepted, as cuSPARSE does.
  return !spMatDescr || sparse_matrices().destroy(mutable_of(spMatDescr)) ? CUSPARSE_STATUS_SUCCESS
                                                                          : CUSPARSE_STATUS_INVALID_VALUE;
}

cusparseStatus_t cusparseCsrGet(cusparseSpMatDescr_t spMatDescr, int64_t* rows, int64_t* cols, int64_t* nnz,
                                void** csrRowOffsets, void** csrColInd, void** csrValues,
                                cusparseIndexType_t* csrRowOffsetsType, cusparseIndexType_t* csrColIndType,
                                cusparseIndexBase_t* idxBase, cudaDataType* valueType) {
  std::optional<SpMat> m = sparse_matrices().get(spMatDescr);
  if (!m || m->format != CUSPARSE_FORMAT_CSR) return CUSPARSE_STATUS_INVALID_VALUE;
  put(rows, m->rows), put(cols, m->cols), put(nnz, m->nnz);
  put(csrRowOffsets, m->offsets), put(csrColInd, m->columns), put(csrValues, m->values);
  put(csrRowOffsetsType, m->offset_type), put(csrColIndType, m->column_type);
  put(idxBase, m->base), put(valueType, m->type);
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMatGetSize(cusparseConstSpMatDescr_t spMatDescr, int64_t* rows, int64_t* cols, int64_t* nnz) {
  std::optional<SpMat> m = sparse_matrices().get(mutable_of(spMatDescr));
  if (!m) return CUSPARSE_STATUS_INVALID_VALUE;
  put(rows, m->rows), put(cols, m->cols), put(nnz, m->nnz);
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMatGetFormat(cusparseConstSpMatDescr_t spMatDescr, cusparseFormat_t* format) {
  std::optional<SpMat> m = sparse_matrices().get(mutable_of(spMatDescr));
  if (!m || !format) return CUSPARSE_STATUS_INVALID_VALUE;
  *format = m->format;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseCreateDnVec(cusparseDnVecDescr_t* dnVecDescr, int64_t size, void* values,
                                     cudaDataType valueType) {
  return create_dense_vector(dnVecDescr, size, values, valueType);
}

cusparseStatus_t cusparseCreateConstDnVec(cusparseConstDnVecDescr_t* dnVecDescr, int64_t size, const void* values,
                                          cudaDataType valueType) {
  return create_dense_vector(dnVecDescr, size, values, valueType);
}

cusparseStatus_t cusparseDestroyDnVec(cusparseConstDnVecDescr_t dnVecDescr) {
  return !dnVecDescr || dense_vectors().destroy(mutable_of(dnVecDescr)) ? CUSPARSE_STATUS_SUCCESS
                                                                        : CUSPARSE_STATUS_INVALID_VALUE;
}

cusparseStatus_t cusparseDnVecGet(cusparseDnVecDescr_t dnVecDescr, int64_t* size, void** values,
                                  cudaDataType* valueType) {
  std::optional<DnVec> v = dense_vectors().get(dnVecDescr);
  if (!v) return CUSPARSE_STATUS_INVALID_VALUE;
  put(size, v->size), put(values, v->values), put(valueType, v->type);
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDnVecSetValues(cusparseDnVecDescr_t dnVecDescr, void* values) {
  if (!values) return CUSPARSE_STATUS_INVALID_VALUE;
  return dense_vectors().update(dnVecDescr, [&](DnVec& v) { v.values = values; }) ? CUSPARSE_STATUS_SUCCESS
                                                                                  : CUSPARSE_STATUS_INVALID_VALUE;
}

cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t* dnMatDescr, int64_t rows, int64_t cols, int64_t ld,
                                     void* values, cudaDataType valueType, cusparseOrder_t order) {
  return create_dense_matrix(dnMatDescr, rows, cols, ld, values, valueType, order);
}

cusparseStatus_t cusparseCreateConstDnMat(cusparseConstDnMatDescr_t* dnMatDescr, int64_t rows, int64_t cols,
                                          int64_t ld, const void* values, cudaDataType valueType,
                                          cusparseOrder_t order) {
  return create_dense_matrix(dnMatDescr, rows, cols, ld, values, valueType, order);
}

cusparseStatus_t cusparseDestroyDnMat(cusparseConstDnMatDescr_t dnMatDescr) {
  return !dnMatDescr || dense_matrices().destroy(mutable_of(dnMatDescr)) ? CUSPARSE_STATUS_SUCCESS
                                                                         : CUSPARSE_STATUS_INVALID_VALUE;
}

cusparseStatus_t cusparseDnMatGet(cusparseDnMatDescr_t dnMatDescr, int64_t* rows, int64_t* cols, int64_t* ld,
                                  void** values, cudaDataType* type, cusparseOrder_t* order) {
  std::optional<DnMat> m = dense_matrices().get(dnMatDescr);
  if (!m) return CUSPARSE_STATUS_INVALID_VALUE;
  put(rows, m->rows), put(cols, m->cols), put(ld, m->ld), put(values, m->values), put(type, m->type),
      put(order, m->order);
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMV_bufferSize(cusparseHandle_t handle, cusparseOperation_t opA, const void* alpha,
                                         cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX,
                                         const void* beta, cusparseDnVecDescr_t vecY, cudaDataType computeType,
                                         cusparseSpMVAlg_t, size_t* bufferSize) {
  if (!bufferSize) return CUSPARSE_STATUS_INVALID_VALUE;
  SpMVArgs args;
  const cusparseStatus_t r = check_spmv(handle, opA, alpha, matA, vecX, beta, vecY, computeType, &args);
  if (r == CUSPARSE_STATUS_SUCCESS) *bufferSize = kBufferSize;
  return r;
}

cusparseStatus_t cusparseSpMV(cusparseHandle_t handle, cusparseOperation_t opA, const void* alpha,
                              cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX, const void* beta,
                              cusparseDnVecDescr_t vecY, cudaDataType computeType, cusparseSpMVAlg_t,
                              void* externalBuffer) {
  SpMVArgs args;
  const cusparseStatus_t r = check_spmv(handle, opA, alpha, matA, vecX, beta, vecY, computeType, &args);
  if (r != CUSPARSE_STATUS_SUCCESS) return r;
  // The library works in the buffer it asked for: it must be that much device memory.
  if (!state().memory.find(externalBuffer, kBufferSize)) return CUSPARSE_STATUS_INVALID_VALUE;
  const cudaError_t err = state().enqueue(args.handle.stream, cudaGraphNodeTypeKernel, [args] {
    run_spmv(args);
    return cudaSuccess;
  });
  return err == cudaSuccess ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_EXECUTION_FAILED;
}

namespace {

const Entry kTable[] = {
    RGPU_EMULATED(cusparseCreate),          RGPU_EMULATED(cusparseDestroy),
    RGPU_EMULATED(cusparseGetVersion),      RGPU_EMULATED(cusparseSetStream),
    RGPU_EMULATED(cusparseSetPointerMode),  RGPU_EMULATED(cusparseCreateCsr),
    RGPU_EMULATED(cusparseCreateConstCsr),  RGPU_EMULATED(cusparseCreateCoo),
    RGPU_EMULATED(cusparseCreateConstCoo),  RGPU_EMULATED(cusparseDestroySpMat),
    RGPU_EMULATED(cusparseCsrGet),          RGPU_EMULATED(cusparseSpMatGetSize),
    RGPU_EMULATED(cusparseSpMatGetFormat),  RGPU_EMULATED(cusparseCreateDnVec),
    RGPU_EMULATED(cusparseCreateConstDnVec), RGPU_EMULATED(cusparseDestroyDnVec),
    RGPU_EMULATED(cusparseDnVecGet),        RGPU_EMULATED(cusparseDnVecSetValues),
    RGPU_EMULATED(cusparseCreateDnMat),     RGPU_EMULATED(cusparseCreateConstDnMat),
    RGPU_EMULATED(cusparseDestroyDnMat),    RGPU_EMULATED(cusparseDnMatGet),
    RGPU_EMULATED(cusparseSpMV_bufferSize), RGPU_EMULATED(cusparseSpMV),
};

}  // namespace

void* resolve_cusparse(const char* name, void*) {
  if (!name) return nullptr;
  return find_entry(kTable, name);
}

}  // namespace rgpu::server::emulated
