// The emulated cuSOLVER (cusolver.h): dense handles and parameters, LU (getrf/getrs, legacy and
// generic) and Cholesky (potrf/potrs) with partial pivoting as LAPACK defines them, column-major,
// computed in double precision on the virtual device's memory and issued in the handle's stream.
#include "server/backends/emulated/cusolver.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>
#include <vector>

#include "server/backends/emulated/entry_table.h"
#include "server/backends/emulated/handle_table.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
namespace {

// The workspaces every emulated routine asks for, so that callers' buffer handling runs: the host
// one is not zero, so the generic API's host workspace reaches the library.
constexpr int kWorkElements = 64;
constexpr size_t kDeviceWorkBytes = 256;
constexpr size_t kHostWorkBytes = 64;

struct Handle {
  cudaStream_t stream = nullptr;
};
struct Params {};

HandleTable<cusolverDnHandle_t, Handle>& handles() {
  static HandleTable<cusolverDnHandle_t, Handle> table;
  return table;
}
HandleTable<cusolverDnParams_t, Params>& params_table() {
  static HandleTable<cusolverDnParams_t, Params> table;
  return table;
}

// A column-major rows x cols matrix (leading dimension ld) of `bytes`-wide reals in device memory,
// read into and written from double precision.
struct Matrix {
  DeviceRange range;
  int64_t rows = 0, cols = 0, ld = 0;
  size_t bytes = 0;

  double get(int64_t i, int64_t j) const {
    const uint8_t* p = range.data + (j * ld + i) * int64_t(bytes);
    if (bytes == 8) {
      double d;
      std::memcpy(&d, p, sizeof d);
      return d;
    }
    float f;
    std::memcpy(&f, p, sizeof f);
    return f;
  }
  void set(int64_t i, int64_t j, double v) const {
    uint8_t* p = range.data + (j * ld + i) * int64_t(bytes);
    if (bytes == 8) {
      std::memcpy(p, &v, sizeof v);
    } else {
      const float f = static_cast<float>(v);
      std::memcpy(p, &f, sizeof f);
    }
  }
};

// The matrix at `a`, checked against the virtual device's memory (an empty one reads nothing).
std::optional<Matrix> matrix(const void* a, int64_t rows, int64_t cols, int64_t ld, size_t bytes) {
  if (rows < 0 || cols < 0 || ld < std::max<int64_t>(1, rows)) return std::nullopt;
  Matrix m{{}, rows, cols, ld, bytes};
  if (rows == 0 || cols == 0) return m;
  if (!(m.range = state().memory.find(a, uint64_t((cols - 1) * ld + rows) * bytes))) return std::nullopt;
  return m;
}

// Device memory of `count` elements of `bytes` each (a pivot vector, info).
std::optional<DeviceRange> vector_of(const void* p, int64_t count, size_t bytes) {
  if (count == 0) return DeviceRange{};
  DeviceRange r = state().memory.find(p, uint64_t(count) * bytes);
  if (!r) return std::nullopt;
  return r;
}

void store_int(const DeviceRange& r, int64_t i, int64_t v, size_t bytes) {
  if (bytes == 8) {
    std::memcpy(r.data + i * 8, &v, 8);
  } else {
    const int32_t w = static_cast<int32_t>(v);
    std::memcpy(r.data + i * 4, &w, 4);
  }
}

int64_t load_int(const DeviceRange& r, int64_t i, size_t bytes) {
  if (bytes == 8) {
    int64_t v;
    std::memcpy(&v, r.data + i * 8, 8);
    return v;
  }
  int32_t v;
  std::memcpy(&v, r.data + i * 4, 4);
  return v;
}

// LU with partial pivoting of A in place (getrf): 1-based pivots, info = the first zero pivot's
// column (1-based) or 0.
void lu(const Matrix& a, const DeviceRange& ipiv, size_t ipiv_bytes, const DeviceRange& info) {
  const int64_t steps = std::min(a.rows, a.cols);
  int64_t first_zero = 0;
  for (int64_t k = 0; k < steps; ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < a.rows; ++i)
      if (std::fabs(a.get(i, k)) > std::fabs(a.get(p, k))) p = i;
    store_int(ipiv, k, p + 1, ipiv_bytes);
    if (a.get(p, k) == 0) {
      if (!first_zero) first_zero = k + 1;
      continue;
    }
    for (int64_t j = 0; j < a.cols && p != k; ++j) {
      const double t = a.get(k, j);
      a.set(k, j, a.get(p, j));
      a.set(p, j, t);
    }
    for (int64_t i = k + 1; i < a.rows; ++i) a.set(i, k, a.get(i, k) / a.get(k, k));
    for (int64_t j = k + 1; j < a.cols; ++j)
      for (int64_t i = k + 1; i < a.rows; ++i) a.set(i, j, a.get(i, j) - a.get(i, k) * a.get(k, j));
  }
  store_int(info, 0, first_zero, 4);
}

// Solves A X = B with getrf's factors (getrs, no transpose).
void lu_solve(const Matrix& a, const DeviceRange& ipiv, const Matrix& b, const DeviceRange& info) {
  const int64_t n = a.rows;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t p = load_int(ipiv, k, 4) - 1;
    if (p == k || p < 0 || p >= n) continue;  // a pivot out of range: the GPU's would be undefined
    for (int64_t j = 0; j < b.cols; ++j) {
      const double t = b.get(k, j);
      b.set(k, j, b.get(p, j));
      b.set(p, j, t);
    }
  }
  for (int64_t j = 0; j < b.cols; ++j) {
    for (int64_t i = 0; i < n; ++i)  // L (unit diagonal)
      for (int64_t k = 0; k < i; ++k) b.set(i, j, b.get(i, j) - a.get(i, k) * b.get(k, j));
    for (int64_t i = n - 1; i >= 0; --i) {  // U
      for (int64_t k = i + 1; k < n; ++k) b.set(i, j, b.get(i, j) - a.get(i, k) * b.get(k, j));
      b.set(i, j, b.get(i, j) / a.get(i, i));
    }
  }
  store_int(info, 0, 0, 4);
}

// The factor L of A = L L^T, seen in the triangle `uplo` names (the upper one holds L^T).
struct Triangle {
  const Matrix& a;
  bool lower;
  double get(int64_t i, int64_t j) const { return lower ? a.get(i, j) : a.get(j, i); }
  void set(int64_t i, int64_t j, double v) const { lower ? a.set(i, j, v) : a.set(j, i, v); }
};

// Cholesky in place (potrf): info = the order of the first minor that is not positive definite.
void cholesky(const Triangle& l, const DeviceRange& info) {
  const int64_t n = l.a.rows;
  for (int64_t j = 0; j < n; ++j) {
    double d = l.get(j, j);
    for (int64_t k = 0; k < j; ++k) d -= l.get(j, k) * l.get(j, k);
    if (!(d > 0)) {
      store_int(info, 0, j + 1, 4);
      return;
    }
    l.set(j, j, std::sqrt(d));
    for (int64_t i = j + 1; i < n; ++i) {
      double v = l.get(i, j);
      for (int64_t k = 0; k < j; ++k) v -= l.get(i, k) * l.get(j, k);
      l.set(i, j, v / l.get(j, j));
    }
  }
  store_int(info, 0, 0, 4);
}

// Solves L L^T X = B with potrf's factor (potrs).
void cholesky_solve(const Triangle& l, const Matrix& b, const DeviceRange& info) {
  const int64_t n = l.a.rows;
  for (int64_t j = 0; j < b.cols; ++j) {
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t k = 0; k < i; ++k) b.set(i, j, b.get(i, j) - l.get(i, k) * b.get(k, j));
      b.set(i, j, b.get(i, j) / l.get(i, i));
    }
    for (int64_t i = n - 1; i >= 0; --i) {
      for (int64_t k = i + 1; k < n; ++k) b.set(i, j, b.get(i, j) - l.get(k, i) * b.get(k, j));
      b.set(i, j, b.get(i, j) / l.get(i, i));
    }
  }
  store_int(info, 0, 0, 4);
}

// Issues `op` in the handle's stream, as the library's kernels are.
template <typename Op>
cusolverStatus_t issue(const Handle& h, Op op) {
  const cudaError_t err = state().enqueue(h.stream, cudaGraphNodeTypeKernel, [op] {
    op();
    return cudaSuccess;
  });
  return err == cudaSuccess ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_EXECUTION_FAILED;
}

// An enum argument as its bits: a C caller may pass any int, and loading an out-of-range enum is
// undefined behaviour in C++ (taken by reference, so the argument itself is never loaded as one).
template <typename E>
std::underlying_type_t<E> bits_of(const E& e) {
  std::underlying_type_t<E> bits;
  std::memcpy(&bits, &e, sizeof bits);
  return bits;
}

bool known_fill(const cublasFillMode_t& uplo) {
  return bits_of(uplo) == CUBLAS_FILL_MODE_LOWER || bits_of(uplo) == CUBLAS_FILL_MODE_UPPER;
}

// The bytes of one element of a real type the generic API is emulated in (0: not emulated).
size_t real_bytes(const cudaDataType& t) { return bits_of(t) == CUDA_R_64F ? 8 : bits_of(t) == CUDA_R_32F ? 4 : 0; }

}  // namespace

cusolverStatus_t cusolverGetVersion(int* version) {
  if (!version) return CUSOLVER_STATUS_INVALID_VALUE;
  *version = CUSOLVER_VERSION;
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t* handle) {
  if (!handle) return CUSOLVER_STATUS_INVALID_VALUE;
  *handle = handles().create();
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t handle) {
  return handles().destroy(handle) ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_NOT_INITIALIZED;
}

cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t handle, cudaStream_t streamId) {
  return handles().update(handle, [&](Handle& h) { h.stream = streamId; }) ? CUSOLVER_STATUS_SUCCESS
                                                                           : CUSOLVER_STATUS_NOT_INITIALIZED;
}

cusolverStatus_t cusolverDnCreateParams(cusolverDnParams_t* params) {
  if (!params) return CUSOLVER_STATUS_INVALID_VALUE;
  *params = params_table().create();
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnDestroyParams(cusolverDnParams_t params) {
  return params_table().destroy(params) ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_INVALID_VALUE;
}

cusolverStatus_t cusolverDnSgetrf_bufferSize(cusolverDnHandle_t handle, int m, int n, float* A, int lda, int* Lwork) {
  if (!handles().get(handle)) return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Lwork || !matrix(A, m, n, lda, sizeof(float))) return CUSOLVER_STATUS_INVALID_VALUE;
  *Lwork = kWorkElements;
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnSgetrf(cusolverDnHandle_t handle, int m, int n, float* A, int lda, float* Workspace,
                                  int* devIpiv, int* devInfo) {
  std::optional<Handle> h = handles().get(handle);
  if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
  std::optional<Matrix> a = matrix(A, m, n, lda, sizeof(float));
  std::optional<DeviceRange> ipiv = vector_of(devIpiv, std::min(m, n), sizeof(int));
  std::optional<DeviceRange> info = vector_of(devInfo, 1, sizeof(int));
  // The library works in the buffer it asked for: it must be that much device memory.
  if (!a || !ipiv || !info || !state().memory.find(Workspace, kWorkElements * sizeof(float)))
    return CUSOLVER_STATUS_INVALID_VALUE;
  return issue(*h, [a = *a, ipiv = *ipiv, info = *info] { lu(a, ipiv, sizeof(int), info); });
}

cusolverStatus_t cusolverDnSgetrs(cusolverDnHandle_t handle, cublasOperation_t trans, int n, int nrhs, const float* A,
                                  int lda, const int* devIpiv, float* B, int ldb, int* devInfo) {
  std::optional<Handle> h = handles().get(handle);
  if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (bits_of(trans) != CUBLAS_OP_N)
    return CUSOLVER_STATUS_NOT_SUPPORTED;  // the transposed solves are not emulated
  std::optional<Matrix> a = matrix(A, n, n, lda, sizeof(float));
  std::optional<Matrix> b = matrix(B, n, nrhs, ldb, sizeof(float));
  std::optional<DeviceRange> ipiv = vector_of(devIpiv, n, sizeof(int));
  std::optional<DeviceRange> info = vector_of(devInfo, 1, sizeof(int));
  if (!a || !b || !ipiv || !info) return CUSOLVER_STATUS_INVALID_VALUE;
  return issue(*h, [a = *a, b = *b, ipiv = *ipiv, info = *info] { lu_solve(a, ipiv, b, info); });
}

cusolverStatus_t cusolverDnDpotrf_bufferSize(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, double* A,
                                             int lda, int* Lwork) {
  if (!handles().get(handle)) return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!Lwork || !known_fill(uplo) || !matrix(A, n, n, lda, sizeof(double))) return CUSOLVER_STATUS_INVALID_VALUE;
  *Lwork = kWorkElements;
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnDpotrf(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, double* A, int lda,
                                  double* Workspace, int Lwork, int* devInfo) {
  std::optional<Handle> h = handles().get(handle);
  if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
  std::optional<Matrix> a = matrix(A, n, n, lda, sizeof(double));
  std::optional<DeviceRange> info = vector_of(devInfo, 1, sizeof(int));
  if (!known_fill(uplo) || !a || !info || Lwork < kWorkElements ||
      !state().memory.find(Workspace, uint64_t(Lwork) * sizeof(double)))
    return CUSOLVER_STATUS_INVALID_VALUE;
  const bool lower = bits_of(uplo) == CUBLAS_FILL_MODE_LOWER;
  return issue(*h, [a = *a, lower, info = *info] { cholesky(Triangle{a, lower}, info); });
}

cusolverStatus_t cusolverDnDpotrs(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, int nrhs, const double* A,
                                  int lda, double* B, int ldb, int* devInfo) {
  std::optional<Handle> h = handles().get(handle);
  if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
  std::optional<Matrix> a = matrix(A, n, n, lda, sizeof(double));
  std::optional<Matrix> b = matrix(B, n, nrhs, ldb, sizeof(double));
  std::optional<DeviceRange> info = vector_of(devInfo, 1, sizeof(int));
  if (!known_fill(uplo) || !a || !b || !info) return CUSOLVER_STATUS_INVALID_VALUE;
  const bool lower = bits_of(uplo) == CUBLAS_FILL_MODE_LOWER;
  return issue(*h, [a = *a, b = *b, lower, info = *info] { cholesky_solve(Triangle{a, lower}, b, info); });
}

cusolverStatus_t cusolverDnXgetrf_bufferSize(cusolverDnHandle_t handle, cusolverDnParams_t params, int64_t m,
                                             int64_t n, cudaDataType dataTypeA, const void* A, int64_t lda,
                                             cudaDataType computeType, size_t* workspaceInBytesOnDevice,
                                             size_t* workspaceInBytesOnHost) {
  if (!handles().get(handle)) return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!params_table().get(params) || !workspaceInBytesOnDevice || !workspaceInBytesOnHost)
    return CUSOLVER_STATUS_INVALID_VALUE;
  const size_t bytes = real_bytes(dataTypeA);
  if (!bytes || real_bytes(computeType) != bytes) return CUSOLVER_STATUS_NOT_SUPPORTED;
  if (!matrix(A, m, n, lda, bytes)) return CUSOLVER_STATUS_INVALID_VALUE;
  *workspaceInBytesOnDevice = kDeviceWorkBytes;
  *workspaceInBytesOnHost = kHostWorkBytes;
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnXgetrf(cusolverDnHandle_t handle, cusolverDnParams_t params, int64_t m, int64_t n,
                                  cudaDataType dataTypeA, void* A, int64_t lda, int64_t* ipiv, cudaDataType computeType,
                                  void* bufferOnDevice, size_t workspaceInBytesOnDevice, void* bufferOnHost,
                                  size_t workspaceInBytesOnHost, int* info) {
  std::optional<Handle> h = handles().get(handle);
  if (!h) return CUSOLVER_STATUS_NOT_INITIALIZED;
  if (!params_table().get(params)) return CUSOLVER_STATUS_INVALID_VALUE;
  const size_t bytes = real_bytes(dataTypeA);
  if (!bytes || real_bytes(computeType) != bytes) return CUSOLVER_STATUS_NOT_SUPPORTED;
  std::optional<Matrix> a = matrix(A, m, n, lda, bytes);
  std::optional<DeviceRange> pivots = vector_of(ipiv, std::min(m, n), sizeof(int64_t));
  std::optional<DeviceRange> status = vector_of(info, 1, sizeof(int));
  if (!a || !pivots || !status || workspaceInBytesOnDevice < kDeviceWorkBytes ||
      !state().memory.find(bufferOnDevice, workspaceInBytesOnDevice) || workspaceInBytesOnHost < kHostWorkBytes ||
      !bufferOnHost)
    return CUSOLVER_STATUS_INVALID_VALUE;
  // The host workspace is the library's scratch during the call: written whole here, as the
  // library may, so that a buffer shorter than it claims shows (ASan) where the server gives it.
  std::memset(bufferOnHost, 0xA5, workspaceInBytesOnHost);
  return issue(*h, [a = *a, pivots = *pivots, status = *status] { lu(a, pivots, sizeof(int64_t), status); });
}

namespace {

const Entry kTable[] = {
    RGPU_EMULATED(cusolverGetVersion),      RGPU_EMULATED(cusolverDnCreate),
    RGPU_EMULATED(cusolverDnDestroy),
    RGPU_EMULATED(cusolverDnSetStream),     RGPU_EMULATED(cusolverDnCreateParams),
    RGPU_EMULATED(cusolverDnDestroyParams), RGPU_EMULATED(cusolverDnSgetrf_bufferSize),
    RGPU_EMULATED(cusolverDnSgetrf),        RGPU_EMULATED(cusolverDnSgetrs),
    RGPU_EMULATED(cusolverDnDpotrf_bufferSize), RGPU_EMULATED(cusolverDnDpotrf),
    RGPU_EMULATED(cusolverDnDpotrs),        RGPU_EMULATED(cusolverDnXgetrf_bufferSize),
    RGPU_EMULATED(cusolverDnXgetrf),
};

}  // namespace

void* resolve_cusolver(const char* name, void*) {
  if (!name) return nullptr;
  return find_entry(kTable, name);
}

}  // namespace rgpu::server::emulated
