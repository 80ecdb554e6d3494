// cuSPARSE through the libcusparse.so.12 shim against rgpud --emulate (whose cuSPARSE multiplies on
// the CPU): a handle on a stream, its settings answered locally, CSR and COO matrices and dense
// vectors as descriptors made without a round trip and read back, SpMV's buffer size, then
// y = alpha A x + beta y in single and double precision, plain and transposed, with alpha and beta
// in host memory and in device memory (the pointer mode), each checked against the product computed
// here; the not-supported and not-available answers, and everything destroyed. Prints "ok: ..."
// per check and "ok: cusparse_tour" last.
//
// `cusparse_tour async N` asks SpMV's buffer size once, then N times sets the handle's stream and
// pointer mode, reads them back, asks SpMV's buffer size about the round's descriptors (with
// device scalars: another question than the first), multiplies with alpha and beta in device
// memory, destroys the descriptors and makes them again alike (as PyTorch does for each product);
// then asks three questions no earlier one answers (another algorithm, a vector changed by a
// setter) and one again, and synchronizes once. Run with RGPU_STATS=1 its round trips do not grow
// with N: settings, descriptors and SpMV are sent without waiting, the getters answer locally, and
// a buffer-size question asked before about descriptors made alike is answered on the client.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tour_checks.h"

#define CHECK_SPARSE(x) CHECK_STATUS(#x, x, CUSPARSE_STATUS_SUCCESS, cusparseGetErrorName)

namespace {

// A rows x cols matrix of 0-based CSR arrays with a few entries per row (row r: columns r, r+2, ...).
struct Csr {
  int rows, cols;
  std::vector<int> offsets, columns;
  std::vector<double> values;
};

Csr sample(int rows, int cols) {
  Csr m{rows, cols, {0}, {}, {}};
  for (int r = 0; r < rows; ++r) {
    for (int c = r % cols; c < cols; c += 3) {
      m.columns.push_back(c);
      m.values.push_back(0.25 * (r + 1) - 0.5 * c);
    }
    m.offsets.push_back(static_cast<int>(m.columns.size()));
  }
  return m;
}

// alpha op(A) x + beta y, here.
std::vector<double> reference(const Csr& a, bool transpose, double alpha, const std::vector<double>& x, double beta,
                              const std::vector<double>& y) {
  std::vector<double> ax(y.size(), 0.0);
  for (int r = 0; r < a.rows; ++r)
    for (int k = a.offsets[r]; k < a.offsets[r + 1]; ++k) {
      if (transpose) ax[a.columns[k]] += a.values[k] * x[r];
      else ax[r] += a.values[k] * x[a.columns[k]];
    }
  std::vector<double> out(y.size());
  for (size_t i = 0; i < y.size(); ++i) out[i] = alpha * ax[i] + beta * y[i];
  return out;
}

template <typename T>
T* upload(const std::vector<T>& host, cudaStream_t stream) {
  T* d = nullptr;
  if (cudaMalloc(&d, host.size() * sizeof(T)) != cudaSuccess) return nullptr;
  if (cudaMemcpyAsync(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream) != cudaSuccess)
    return nullptr;
  return d;
}

template <typename T>
std::vector<T> as(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

template <typename T>
double max_error(const std::vector<double>& want, const std::vector<T>& got) {
  double e = 0;
  for (size_t i = 0; i < want.size(); ++i) e = std::fmax(e, std::fabs(want[i] - double(got[i])));
  return e;
}

template <typename T>
constexpr cudaDataType kType = sizeof(T) == 8 ? CUDA_R_64F : CUDA_R_32F;

// SpMV on `a` (CSR, or COO built from it), op(A) x into y, once with alpha and beta in host memory
// and once in device memory; each result checked against the reference. `what` names the case.
template <typename T>
int spmv_case(cusparseHandle_t handle, cudaStream_t stream, const Csr& a, bool coo, bool transpose, const char* what) {
  const int nx = transpose ? a.rows : a.cols, ny = transpose ? a.cols : a.rows;
  const int nnz = static_cast<int>(a.values.size());
  std::vector<double> x(nx), y(ny);
  for (int i = 0; i < nx; ++i) x[i] = 1.0 + 0.125 * i;
  for (int i = 0; i < ny; ++i) y[i] = 0.5 - 0.25 * i;
  std::vector<int> coo_rows;
  for (int r = 0; r < a.rows; ++r)
    for (int k = a.offsets[r]; k < a.offsets[r + 1]; ++k) coo_rows.push_back(r);
  int* d_rows = upload(coo ? coo_rows : a.offsets, stream);
  int* d_cols = upload(a.columns, stream);
  T* d_vals = upload(as<T>(a.values), stream);
  T* d_x = upload(as<T>(x), stream);
  T* d_y = upload(as<T>(y), stream);
  EXPECT(d_rows && d_cols && d_vals && d_x && d_y, "the matrix and vectors are in device memory");

  cusparseConstSpMatDescr_t mat = nullptr;
  if (coo) {
    CHECK_SPARSE(cusparseCreateConstCoo(&mat, a.rows, a.cols, nnz, d_rows, d_cols, d_vals, CUSPARSE_INDEX_32I,
                                        CUSPARSE_INDEX_BASE_ZERO, kType<T>));
  } else {
    CHECK_SPARSE(cusparseCreateConstCsr(&mat, a.rows, a.cols, nnz, d_rows, d_cols, d_vals, CUSPARSE_INDEX_32I,
                                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, kType<T>));
  }
  cusparseConstDnVecDescr_t vec_x = nullptr;
  cusparseDnVecDescr_t vec_y = nullptr;
  CHECK_SPARSE(cusparseCreateConstDnVec(&vec_x, nx, d_x, kType<T>));
  CHECK_SPARSE(cusparseCreateDnVec(&vec_y, ny, d_y, kType<T>));
  const cusparseOperation_t op = transpose ? CUSPARSE_OPERATION_TRANSPOSE : CUSPARSE_OPERATION_NON_TRANSPOSE;

  // Host memory: the values travel with the call.
  CHECK_SPARSE(cusparseSetPointerMode(handle, CUSPARSE_POINTER_MODE_HOST));
  const T alpha = T(2), beta = T(0.5);
  size_t size = 0;
  CHECK_SPARSE(cusparseSpMV_bufferSize(handle, op, &alpha, mat, vec_x, &beta, vec_y, kType<T>, CUSPARSE_SPMV_ALG_DEFAULT,
                                       &size));
  void* buffer = nullptr;
  CHECK_CUDA(cudaMalloc(&buffer, size));
  CHECK_SPARSE(cusparseSpMV(handle, op, &alpha, mat, vec_x, &beta, vec_y, kType<T>, CUSPARSE_SPMV_ALG_DEFAULT, buffer));
  std::vector<T> got(ny);
  CHECK_CUDA(cudaMemcpyAsync(got.data(), d_y, ny * sizeof(T), cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  const std::vector<double> want = reference(a, transpose, 2.0, x, 0.5, y);
  const double tolerance = sizeof(T) == 8 ? 1e-12 : 1e-4;
  std::printf("   %s: host scalars, max error %.3g\n", what, max_error(want, got));
  EXPECT(max_error(want, got) < tolerance, "SpMV with alpha and beta in host memory is the product computed here");

  // Device memory: the addresses travel, and the library reads them when it runs, in the stream.
  const std::vector<T> scalars = {T(-1.5), T(0.25)};
  T* d_scalars = upload(scalars, stream);
  EXPECT(d_scalars != nullptr, "alpha and beta are in device memory");
  CHECK_SPARSE(cusparseSetPointerMode(handle, CUSPARSE_POINTER_MODE_DEVICE));
  cusparsePointerMode_t mode = CUSPARSE_POINTER_MODE_HOST;
  CHECK_SPARSE(cusparseGetPointerMode(handle, &mode));
  EXPECT(mode == CUSPARSE_POINTER_MODE_DEVICE, "cusparseGetPointerMode answers the mode set");
  CHECK_SPARSE(cusparseSpMV(handle, op, d_scalars, mat, vec_x, d_scalars + 1, vec_y, kType<T>,
                            CUSPARSE_SPMV_ALG_DEFAULT, buffer));
  std::vector<T> again(ny);
  CHECK_CUDA(cudaMemcpyAsync(again.data(), d_y, ny * sizeof(T), cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  const std::vector<double> want_again = reference(a, transpose, -1.5, x, 0.25, std::vector<double>(got.begin(), got.end()));
  std::printf("   %s: device scalars, max error %.3g\n", what, max_error(want_again, again));
  EXPECT(max_error(want_again, again) < tolerance, "SpMV with alpha and beta in device memory is the product computed here");
  CHECK_SPARSE(cusparseSetPointerMode(handle, CUSPARSE_POINTER_MODE_HOST));

  CHECK_SPARSE(cusparseDestroySpMat(mat));
  CHECK_SPARSE(cusparseDestroyDnVec(vec_x));
  CHECK_SPARSE(cusparseDestroyDnVec(vec_y));
  for (void* p : {static_cast<void*>(d_rows), static_cast<void*>(d_cols), static_cast<void*>(d_vals),
                  static_cast<void*>(d_x), static_cast<void*>(d_y), static_cast<void*>(d_scalars), buffer})
    CHECK_CUDA(cudaFree(p));
  std::printf("ok: %s\n", what);
  return 0;
}

// The `async N` mode (see the top).
int async_only(int rounds) {
  const Csr a = sample(6, 5);
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreate(&stream));
  int* d_offsets = upload(a.offsets, stream);
  int* d_columns = upload(a.columns, stream);
  float* d_values = upload(as<float>(a.values), stream);
  float* d_x = upload(std::vector<float>(a.cols, 1.0f), stream);
  float* d_y = upload(std::vector<float>(a.rows, 0.0f), stream);
  float* d_scalars = upload(std::vector<float>{1.0f, 0.0f}, stream);
  EXPECT(d_offsets && d_columns && d_values && d_x && d_y && d_scalars, "the matrix and vectors are in device memory");
  cusparseHandle_t handle = nullptr;
  CHECK_SPARSE(cusparseCreate(&handle));
  auto make = [&](cusparseConstSpMatDescr_t* mat, cusparseConstDnVecDescr_t* x, cusparseDnVecDescr_t* y) {
    cusparseStatus_t s = cusparseCreateConstCsr(mat, a.rows, a.cols, int64_t(a.values.size()), d_offsets, d_columns,
                                                d_values, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                                CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
    if (s == CUSPARSE_STATUS_SUCCESS) s = cusparseCreateConstDnVec(x, a.cols, d_x, CUDA_R_32F);
    if (s == CUSPARSE_STATUS_SUCCESS) s = cusparseCreateDnVec(y, a.rows, d_y, CUDA_R_32F);
    return s;
  };
  cusparseConstSpMatDescr_t mat = nullptr;
  cusparseConstDnVecDescr_t x = nullptr;
  cusparseDnVecDescr_t y = nullptr;
  CHECK_SPARSE(make(&mat, &x, &y));
  size_t size = 0;
  const float one = 1, zero = 0;
  CHECK_SPARSE(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, x, &zero, y, CUDA_R_32F,
                                       CUSPARSE_SPMV_ALG_DEFAULT, &size));
  void* buffer = nullptr;
  CHECK_CUDA(cudaMalloc(&buffer, size));
  for (int i = 0; i < rounds; ++i) {
    CHECK_SPARSE(cusparseSetStream(handle, stream));
    CHECK_SPARSE(cusparseSetPointerMode(handle, CUSPARSE_POINTER_MODE_DEVICE));
    cusparsePointerMode_t mode = CUSPARSE_POINTER_MODE_HOST;
    cudaStream_t got = nullptr;
    CHECK_SPARSE(cusparseGetPointerMode(handle, &mode));
    CHECK_SPARSE(cusparseGetStream(handle, &got));
    if (mode != CUSPARSE_POINTER_MODE_DEVICE || got != stream) return std::printf("FAIL settings\n"), 1;
    size_t again = 0;
    CHECK_SPARSE(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, d_scalars, mat, x, d_scalars + 1, y,
                                         CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &again));
    if (again != size) return std::printf("FAIL buffer size %zu, then %zu\n", size, again), 1;
    CHECK_SPARSE(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, d_scalars, mat, x, d_scalars + 1, y,
                              CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, buffer));
    CHECK_SPARSE(cusparseDestroySpMat(mat));
    CHECK_SPARSE(cusparseDestroyDnVec(x));
    CHECK_SPARSE(cusparseDestroyDnVec(y));
    CHECK_SPARSE(make(&mat, &x, &y));
  }
  // Questions no earlier one answers go to the server: another algorithm; a vector a setter changed
  // (then asked again: answered here).
  size_t other = 0;
  CHECK_SPARSE(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, d_scalars, mat, x, d_scalars + 1, y,
                                       CUDA_R_32F, CUSPARSE_SPMV_CSR_ALG1, &other));
  CHECK_SPARSE(cusparseDnVecSetValues(y, d_y));
  for (int i = 0; i < 2; ++i) {
    CHECK_SPARSE(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, d_scalars, mat, x, d_scalars + 1, y,
                                         CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &other));
  }
  CHECK_SPARSE(cusparseDestroySpMat(mat));
  CHECK_SPARSE(cusparseDestroyDnVec(x));
  CHECK_SPARSE(cusparseDestroyDnVec(y));
  CHECK_SPARSE(cusparseDestroy(handle));
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("ok: cusparse_tour async\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "async") return async_only(std::atoi(argv[2]));
  cusparseHandle_t handle = nullptr;
  CHECK_SPARSE(cusparseCreate(&handle));
  int version = 0;
  CHECK_SPARSE(cusparseGetVersion(handle, &version));
  EXPECT(version == CUSPARSE_VERSION, "cusparseGetVersion answers the library's version");
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreate(&stream));
  CHECK_SPARSE(cusparseSetStream(handle, stream));
  cudaStream_t got_stream = nullptr;
  CHECK_SPARSE(cusparseGetStream(handle, &got_stream));
  EXPECT(got_stream == stream, "cusparseGetStream answers the stream set");
  cusparsePointerMode_t mode = CUSPARSE_POINTER_MODE_DEVICE;
  CHECK_SPARSE(cusparseGetPointerMode(handle, &mode));
  EXPECT(mode == CUSPARSE_POINTER_MODE_HOST, "a new handle's pointer mode is host");
  EXPECT(cusparseSetPointerMode(handle, static_cast<cusparsePointerMode_t>(7)) == CUSPARSE_STATUS_INVALID_VALUE,
         "an unknown pointer mode is refused at once");

  // A descriptor read back: what it was made of, the device addresses as given.
  const Csr a = sample(6, 5);
  int* d_offsets = upload(a.offsets, stream);
  int* d_columns = upload(a.columns, stream);
  float* d_values = upload(as<float>(a.values), stream);
  EXPECT(d_offsets && d_columns && d_values, "a CSR matrix is in device memory");
  cusparseSpMatDescr_t mat = nullptr;
  CHECK_SPARSE(cusparseCreateCsr(&mat, a.rows, a.cols, static_cast<int64_t>(a.values.size()), d_offsets, d_columns,
                                 d_values, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  int64_t rows = 0, cols = 0, nnz = 0;
  void *offsets = nullptr, *columns = nullptr, *values = nullptr;
  cusparseIndexType_t offset_type = CUSPARSE_INDEX_64I, column_type = CUSPARSE_INDEX_64I;
  cusparseIndexBase_t base = CUSPARSE_INDEX_BASE_ONE;
  cudaDataType type = CUDA_R_64F;
  CHECK_SPARSE(cusparseCsrGet(mat, &rows, &cols, &nnz, &offsets, &columns, &values, &offset_type, &column_type, &base,
                              &type));
  EXPECT(rows == a.rows && cols == a.cols && nnz == int64_t(a.values.size()), "cusparseCsrGet answers the sizes");
  EXPECT(offsets == d_offsets && columns == d_columns && values == d_values,
         "cusparseCsrGet answers the device addresses the matrix was made of");
  EXPECT(offset_type == CUSPARSE_INDEX_32I && column_type == CUSPARSE_INDEX_32I && base == CUSPARSE_INDEX_BASE_ZERO &&
             type == CUDA_R_32F,
         "cusparseCsrGet answers the index and value types");
  CHECK_SPARSE(cusparseSpMatGetSize(mat, &rows, &cols, &nnz));
  EXPECT(rows == a.rows && cols == a.cols, "cusparseSpMatGetSize answers the sizes");

  // Not forwarded (the logger writes in the caller's process): refused on the client, named on stderr.
  float one = 1;
  EXPECT(cusparseLoggerSetLevel(1) == CUSPARSE_STATUS_NOT_SUPPORTED, "an unforwarded function answers not supported");
  // Forwarded but missing from the emulated backend: named in rgpud's log.
  cusparseDnMatDescr_t dense = nullptr;
  CHECK_SPARSE(cusparseCreateDnMat(&dense, a.cols, 2, a.cols, d_values, CUDA_R_32F, CUSPARSE_ORDER_COL));
  size_t size = 0;
  EXPECT(cusparseSpMM_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat,
                                 dense, &one, dense, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT,
                                 &size) == CUSPARSE_STATUS_NOT_SUPPORTED,
         "a function the backend lacks answers not supported");
  CHECK_SPARSE(cusparseDestroyDnMat(dense));
  CHECK_SPARSE(cusparseDestroySpMat(mat));
  for (void* p : {static_cast<void*>(d_offsets), static_cast<void*>(d_columns), static_cast<void*>(d_values)})
    CHECK_CUDA(cudaFree(p));

  if (spmv_case<float>(handle, stream, a, false, false, "float CSR SpMV") ||
      spmv_case<double>(handle, stream, a, false, false, "double CSR SpMV") ||
      spmv_case<float>(handle, stream, a, false, true, "float CSR SpMV, transposed") ||
      spmv_case<double>(handle, stream, sample(7, 9), true, false, "double COO SpMV"))
    return 1;

  EXPECT(std::string(cusparseGetErrorName(CUSPARSE_STATUS_INVALID_VALUE)) == "CUSPARSE_STATUS_INVALID_VALUE",
         "cusparseGetErrorName names a status");
  CHECK_SPARSE(cusparseDestroy(handle));
  EXPECT(cusparseSetStream(handle, stream) == CUSPARSE_STATUS_NOT_INITIALIZED, "a destroyed handle is refused");
  CHECK_CUDA(cudaStreamDestroy(stream));
  std::printf("ok: cusparse_tour\n");
  return 0;
}
