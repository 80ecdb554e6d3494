// cuSPARSE through the libcusparse.so.12 shim: the generic API's SpMV (CSR, single precision, alpha
// and beta in host memory; double precision with them in device memory), SpMM of a CSR matrix by a
// dense one, CSR to CSC (cusparseCsr2cscEx2), sparse to dense and back again
// (cusparseDenseToSparse_* with the nnz read from the descriptor), and the legacy API's matrix
// descriptor and cusparseXcsr2coo; each checked against the host, checksums printed to 4 decimals,
// so a remote run must print what the native one does.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cmath>
#include <vector>

#include "suite_check.h"

#define CHECK_SPARSE(call) check_sparse((call), #call, __LINE__)
inline void check_sparse(cusparseStatus_t status, const char* call, int line) {
  if (status != CUSPARSE_STATUS_SUCCESS) {
    say("FAIL: %s returned %s (line %d)\n", call, cusparseGetErrorName(status), line);
    exit(1);
  }
}

namespace {

void* buffer_of(size_t size) {
  void* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, size ? size : 1));
  return d;
}

// A rows x cols matrix, 0-based CSR, about one entry in four; its dense form is row-major.
struct Csr {
  int rows, cols;
  std::vector<int> offsets, columns;
  std::vector<float> values;
  std::vector<float> dense() const {
    std::vector<float> d(size_t(rows) * cols, 0.0f);
    for (int r = 0; r < rows; ++r)
      for (int k = offsets[r]; k < offsets[r + 1]; ++k) d[size_t(r) * cols + columns[k]] = values[k];
    return d;
  }
};

Csr sample(int rows, int cols) {
  Csr m{rows, cols, {0}, {}, {}};
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c)
      if ((r * 7 + c * 3) % 4 == 0) {
        m.columns.push_back(c);
        // Never an explicit zero: DenseToSparse counts only nonzero values (with -0.5 in place of
        // -0.4375, one entry in nine was 0 and the H200 counted 1706 of 1920, natively too).
        m.values.push_back(0.125f * float((r + 2 * c) % 9) - 0.4375f);
      }
    m.offsets.push_back(int(m.columns.size()));
  }
  return m;
}

template <typename T>
double max_error(const std::vector<double>& want, const std::vector<T>& got) {
  double e = 0;
  for (size_t i = 0; i < want.size(); ++i) e = std::fmax(e, std::fabs(want[i] - double(got[i])));
  return e;
}

template <typename T>
double checksum(const std::vector<T>& v) {
  double s = 0;
  for (size_t i = 0; i < v.size(); ++i) s += double(v[i]) * double(1 + i % 5);
  return s;
}

}  // namespace

int main() {
  cusparseHandle_t handle = nullptr;
  CHECK_SPARSE(cusparseCreate(&handle));
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreate(&stream));
  CHECK_SPARSE(cusparseSetStream(handle, stream));
  int version = 0;
  CHECK_SPARSE(cusparseGetVersion(handle, &version));
  expect(version == CUSPARSE_VERSION, "cusparseGetVersion is the headers' version");

  const Csr a = sample(96, 80);
  const int nnz = int(a.values.size());
  const std::vector<float> dense_a = a.dense();
  int* d_offsets = to_device(a.offsets);
  int* d_columns = to_device(a.columns);
  float* d_values = to_device(a.values);
  cusparseSpMatDescr_t mat = nullptr;
  CHECK_SPARSE(cusparseCreateCsr(&mat, a.rows, a.cols, nnz, d_offsets, d_columns, d_values, CUSPARSE_INDEX_32I,
                                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  int64_t rows = 0, cols = 0, got_nnz = 0;
  CHECK_SPARSE(cusparseSpMatGetSize(mat, &rows, &cols, &got_nnz));
  expect(rows == a.rows && cols == a.cols && got_nnz == nnz, "cusparseSpMatGetSize answers the matrix's sizes");

  // SpMV, single precision, host scalars: y = 2 A x - y.
  std::vector<float> x(a.cols), y(a.rows);
  for (int i = 0; i < a.cols; ++i) x[i] = 0.25f * float(i % 7) - 0.75f;
  for (int i = 0; i < a.rows; ++i) y[i] = 0.5f * float(i % 3);
  float* d_x = to_device(x);
  float* d_y = to_device(y);
  cusparseDnVecDescr_t vec_x = nullptr, vec_y = nullptr;
  CHECK_SPARSE(cusparseCreateDnVec(&vec_x, a.cols, d_x, CUDA_R_32F));
  CHECK_SPARSE(cusparseCreateDnVec(&vec_y, a.rows, d_y, CUDA_R_32F));
  const float alpha = 2.0f, beta = -1.0f;
  size_t size = 0;
  CHECK_SPARSE(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vec_x, &beta, vec_y,
                                       CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &size));
  void* buffer = buffer_of(size);
  CHECK_SPARSE(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vec_x, &beta, vec_y, CUDA_R_32F,
                            CUSPARSE_SPMV_ALG_DEFAULT, buffer));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  std::vector<double> want(a.rows);
  for (int r = 0; r < a.rows; ++r) {
    double ax = 0;
    for (int c = 0; c < a.cols; ++c) ax += double(dense_a[size_t(r) * a.cols + c]) * x[c];
    want[r] = 2.0 * ax - y[r];
  }
  const std::vector<float> got_y = to_host(d_y, a.rows);
  expect(max_error(want, got_y) < 1e-4, "SpMV (CSR, float, host alpha and beta) is the host's product");
  say("SpMV checksum: %.4f\n", checksum(got_y));
  CHECK_CUDA(cudaFree(buffer));

  // SpMV, double precision, scalars in device memory.
  std::vector<double> values64(a.values.begin(), a.values.end()), x64(x.begin(), x.end()), y64(a.rows, 1.0);
  double* d_values64 = to_device(values64);
  double* d_x64 = to_device(x64);
  double* d_y64 = to_device(y64);
  double* d_scalars = to_device(std::vector<double>{-0.5, 3.0});
  cusparseConstSpMatDescr_t mat64 = nullptr;
  CHECK_SPARSE(cusparseCreateConstCsr(&mat64, a.rows, a.cols, nnz, d_offsets, d_columns, d_values64,
                                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  cusparseConstDnVecDescr_t vec_x64 = nullptr;
  cusparseDnVecDescr_t vec_y64 = nullptr;
  CHECK_SPARSE(cusparseCreateConstDnVec(&vec_x64, a.cols, d_x64, CUDA_R_64F));
  CHECK_SPARSE(cusparseCreateDnVec(&vec_y64, a.rows, d_y64, CUDA_R_64F));
  CHECK_SPARSE(cusparseSetPointerMode(handle, CUSPARSE_POINTER_MODE_DEVICE));
  CHECK_SPARSE(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, d_scalars, mat64, vec_x64,
                                       d_scalars + 1, vec_y64, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &size));
  buffer = buffer_of(size);
  CHECK_SPARSE(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, d_scalars, mat64, vec_x64, d_scalars + 1,
                            vec_y64, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, buffer));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  for (int r = 0; r < a.rows; ++r) want[r] = -0.5 * ((want[r] + y[r]) / 2.0) + 3.0;
  const std::vector<double> got_y64 = to_host(d_y64, a.rows);
  expect(max_error(want, got_y64) < 1e-12, "SpMV (CSR, double, device alpha and beta) is the host's product");
  CHECK_SPARSE(cusparseSetPointerMode(handle, CUSPARSE_POINTER_MODE_HOST));
  cusparsePointerMode_t mode = CUSPARSE_POINTER_MODE_DEVICE;
  CHECK_SPARSE(cusparseGetPointerMode(handle, &mode));
  expect(mode == CUSPARSE_POINTER_MODE_HOST, "cusparseGetPointerMode answers the mode set");
  CHECK_CUDA(cudaFree(buffer));

  // SpMM: C (96 x 3, column-major) = A B, B 80 x 3.
  const int n = 3;
  std::vector<float> b(size_t(a.cols) * n), c(size_t(a.rows) * n, 0.0f);
  for (size_t i = 0; i < b.size(); ++i) b[i] = 0.0625f * float(i % 11) - 0.25f;
  float* d_b = to_device(b);
  float* d_c = to_device(c);
  cusparseDnMatDescr_t mat_b = nullptr, mat_c = nullptr;
  CHECK_SPARSE(cusparseCreateDnMat(&mat_b, a.cols, n, a.cols, d_b, CUDA_R_32F, CUSPARSE_ORDER_COL));
  CHECK_SPARSE(cusparseCreateDnMat(&mat_c, a.rows, n, a.rows, d_c, CUDA_R_32F, CUSPARSE_ORDER_COL));
  const float one = 1.0f, zero = 0.0f;
  CHECK_SPARSE(cusparseSpMM_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                       &one, mat, mat_b, &zero, mat_c, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, &size));
  buffer = buffer_of(size);
  CHECK_SPARSE(cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat,
                            mat_b, &zero, mat_c, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, buffer));
  std::vector<double> want_c(size_t(a.rows) * n, 0.0);
  for (int j = 0; j < n; ++j)
    for (int r = 0; r < a.rows; ++r)
      for (int k = 0; k < a.cols; ++k)
        want_c[size_t(j) * a.rows + r] += double(dense_a[size_t(r) * a.cols + k]) * b[size_t(j) * a.cols + k];
  const std::vector<float> got_c = to_host(d_c, c.size());
  expect(max_error(want_c, got_c) < 1e-4, "SpMM (CSR by a column-major dense matrix) is the host's product");
  say("SpMM checksum: %.4f\n", checksum(got_c));
  CHECK_CUDA(cudaFree(buffer));

  // CSR to CSC: the transpose's CSR arrays.
  int* d_csc_offsets = to_device(std::vector<int>(a.cols + 1, 0));
  int* d_csc_rows = to_device(std::vector<int>(nnz, 0));
  float* d_csc_values = to_device(std::vector<float>(nnz, 0.0f));
  CHECK_SPARSE(cusparseCsr2cscEx2_bufferSize(handle, a.rows, a.cols, nnz, d_values, d_offsets, d_columns, d_csc_values,
                                             d_csc_offsets, d_csc_rows, CUDA_R_32F, CUSPARSE_ACTION_NUMERIC,
                                             CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &size));
  buffer = buffer_of(size);
  CHECK_SPARSE(cusparseCsr2cscEx2(handle, a.rows, a.cols, nnz, d_values, d_offsets, d_columns, d_csc_values,
                                  d_csc_offsets, d_csc_rows, CUDA_R_32F, CUSPARSE_ACTION_NUMERIC,
                                  CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, buffer));
  const std::vector<int> csc_offsets = to_host(d_csc_offsets, a.cols + 1);
  const std::vector<int> csc_rows = to_host(d_csc_rows, nnz);
  const std::vector<float> csc_values = to_host(d_csc_values, nnz);
  bool transpose_ok = csc_offsets[a.cols] == nnz;
  for (int col = 0; transpose_ok && col < a.cols; ++col)
    for (int k = csc_offsets[col]; k < csc_offsets[col + 1]; ++k)
      transpose_ok = transpose_ok && dense_a[size_t(csc_rows[k]) * a.cols + col] == csc_values[k];
  expect(transpose_ok, "cusparseCsr2cscEx2 gives the matrix's CSC arrays");
  CHECK_CUDA(cudaFree(buffer));

  // Sparse to dense (row-major), then dense to sparse: the nnz comes back through the descriptor.
  float* d_dense = to_device(std::vector<float>(dense_a.size(), -1.0f));
  cusparseDnMatDescr_t dense = nullptr;
  CHECK_SPARSE(cusparseCreateDnMat(&dense, a.rows, a.cols, a.cols, d_dense, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  CHECK_SPARSE(cusparseSparseToDense_bufferSize(handle, mat, dense, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, &size));
  buffer = buffer_of(size);
  CHECK_SPARSE(cusparseSparseToDense(handle, mat, dense, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, buffer));
  expect(to_host(d_dense, dense_a.size()) == dense_a, "cusparseSparseToDense gives the dense matrix");
  CHECK_CUDA(cudaFree(buffer));
  int* d_back_offsets = to_device(std::vector<int>(a.rows + 1, 0));
  cusparseSpMatDescr_t back = nullptr;
  CHECK_SPARSE(cusparseCreateCsr(&back, a.rows, a.cols, 0, d_back_offsets, nullptr, nullptr, CUSPARSE_INDEX_32I,
                                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CHECK_SPARSE(cusparseDenseToSparse_bufferSize(handle, dense, back, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, &size));
  buffer = buffer_of(size);
  CHECK_SPARSE(cusparseDenseToSparse_analysis(handle, dense, back, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, buffer));
  // The analysis runs in the handle's stream (a stream of the program's own here), which is waited
  // for before the descriptor is read.
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_SPARSE(cusparseSpMatGetSize(back, &rows, &cols, &got_nnz));
  if (got_nnz != nnz) say("DenseToSparse's nnz: %lld of %d\n", static_cast<long long>(got_nnz), nnz);
  expect(got_nnz == nnz, "cusparseDenseToSparse_analysis counts the nonzeros");
  int* d_back_columns = to_device(std::vector<int>(nnz, 0));
  float* d_back_values = to_device(std::vector<float>(nnz, 0.0f));
  CHECK_SPARSE(cusparseCsrSetPointers(back, d_back_offsets, d_back_columns, d_back_values));
  CHECK_SPARSE(cusparseDenseToSparse_convert(handle, dense, back, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, buffer));
  expect(to_host(d_back_offsets, a.rows + 1) == a.offsets && to_host(d_back_columns, nnz) == a.columns &&
             to_host(d_back_values, nnz) == a.values,
         "cusparseDenseToSparse_convert gives the CSR arrays back");
  CHECK_CUDA(cudaFree(buffer));

  // The legacy API: a matrix descriptor's settings, and CSR row offsets to COO row indices.
  cusparseMatDescr_t descr = nullptr;
  CHECK_SPARSE(cusparseCreateMatDescr(&descr));
  CHECK_SPARSE(cusparseSetMatIndexBase(descr, CUSPARSE_INDEX_BASE_ONE));
  expect(cusparseGetMatIndexBase(descr) == CUSPARSE_INDEX_BASE_ONE, "a matrix descriptor keeps its index base");
  expect(cusparseGetMatType(descr) == CUSPARSE_MATRIX_TYPE_GENERAL, "a new matrix descriptor is general");
  int* d_coo_rows = to_device(std::vector<int>(nnz, -1));
  CHECK_SPARSE(cusparseXcsr2coo(handle, d_offsets, nnz, a.rows, d_coo_rows, CUSPARSE_INDEX_BASE_ZERO));
  const std::vector<int> coo_rows = to_host(d_coo_rows, nnz);
  bool coo_ok = true;
  for (int r = 0; r < a.rows; ++r)
    for (int k = a.offsets[r]; k < a.offsets[r + 1]; ++k) coo_ok = coo_ok && coo_rows[k] == r;
  expect(coo_ok, "cusparseXcsr2coo gives each entry's row");
  CHECK_SPARSE(cusparseDestroyMatDescr(descr));

  for (cusparseConstDnVecDescr_t v : {cusparseConstDnVecDescr_t(vec_x), cusparseConstDnVecDescr_t(vec_y), vec_x64,
                                      cusparseConstDnVecDescr_t(vec_y64)})
    CHECK_SPARSE(cusparseDestroyDnVec(v));
  for (cusparseConstDnMatDescr_t m : {cusparseConstDnMatDescr_t(mat_b), cusparseConstDnMatDescr_t(mat_c),
                                      cusparseConstDnMatDescr_t(dense)})
    CHECK_SPARSE(cusparseDestroyDnMat(m));
  for (cusparseConstSpMatDescr_t m : {cusparseConstSpMatDescr_t(mat), mat64, cusparseConstSpMatDescr_t(back)})
    CHECK_SPARSE(cusparseDestroySpMat(m));
  for (void* p : {static_cast<void*>(d_offsets), static_cast<void*>(d_columns), static_cast<void*>(d_values),
                  static_cast<void*>(d_x), static_cast<void*>(d_y), static_cast<void*>(d_values64),
                  static_cast<void*>(d_x64), static_cast<void*>(d_y64), static_cast<void*>(d_scalars),
                  static_cast<void*>(d_b), static_cast<void*>(d_c), static_cast<void*>(d_csc_offsets),
                  static_cast<void*>(d_csc_rows), static_cast<void*>(d_csc_values), static_cast<void*>(d_dense),
                  static_cast<void*>(d_back_offsets), static_cast<void*>(d_back_columns),
                  static_cast<void*>(d_back_values), static_cast<void*>(d_coo_rows)})
    CHECK_CUDA(cudaFree(p));
  CHECK_SPARSE(cusparseDestroy(handle));
  CHECK_CUDA(cudaStreamDestroy(stream));
  return finish("31_cusparse");
}
