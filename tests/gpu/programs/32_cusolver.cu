// cuSOLVER, linked with -lcusolver (remotely the libcusolver.so.12 shim): an LU solve through the
// legacy API (Dgetrf + Dgetrs, two right-hand sides) and through the generic 64-bit API as PyTorch
// calls it (cusolverDnParams_t, Xgetrf with device and host workspaces, Xgetrs) on a stream; a QR
// (Dgeqrf + Dorgqr: Q orthonormal and Q R = A; the generic Xgeqrf's R the same up to signs); a
// Cholesky solve (Spotrf + Spotrs); a symmetric eigendecomposition (Xsyevd: A v = w v); a singular
// matrix's info. Every result is checked against the host; only yes/no checks and info values
// are printed.
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "suite_check.h"

namespace {

constexpr int kN = 8;

#define CHECK_SOLVER(call) check_solver((call), #call, __LINE__)
void check_solver(cusolverStatus_t status, const char* call, int line) {
  if (status != CUSOLVER_STATUS_SUCCESS) {
    say("FAIL: %s returned status %d (line %d)\n", call, static_cast<int>(status), line);
    exit(1);
  }
}

double& at(std::vector<double>& a, int ld, int i, int j) { return a[size_t(j) * ld + i]; }
double at(const std::vector<double>& a, int ld, int i, int j) { return a[size_t(j) * ld + i]; }

// A column-major n x n matrix that needs row exchanges and is well conditioned.
std::vector<double> general(int n) {
  std::vector<double> a(size_t(n) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) at(a, n, i, j) = (i == j ? 0.125 : 0.0) + 1.0 / (1 + i + j) + (i == n - 1 - j ? 2 : 0);
  return a;
}

// Symmetric positive definite: G^T G + n I.
std::vector<double> spd(int n) {
  const std::vector<double> g = general(n);
  std::vector<double> a(size_t(n) * n, 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      for (int k = 0; k < n; ++k) at(a, n, i, j) += at(g, n, k, i) * at(g, n, k, j);
      if (i == j) at(a, n, i, j) += n;
    }
  return a;
}

// n x nrhs right-hand sides.
std::vector<double> rhs(int n, int nrhs) {
  std::vector<double> b(size_t(n) * nrhs);
  for (int j = 0; j < nrhs; ++j)
    for (int i = 0; i < n; ++i) at(b, n, i, j) = 1.0 - 0.25 * i + j;
  return b;
}

// max |A X - B| over every column.
double residual(const std::vector<double>& a, const std::vector<double>& x, const std::vector<double>& b, int n,
                int nrhs) {
  double e = 0;
  for (int j = 0; j < nrhs; ++j)
    for (int i = 0; i < n; ++i) {
      double s = 0;
      for (int k = 0; k < n; ++k) s += at(a, n, i, k) * at(x, n, k, j);
      e = std::max(e, std::fabs(s - at(b, n, i, j)));
    }
  return e;
}

void legacy_lu(cusolverDnHandle_t handle) {
  const std::vector<double> a = general(kN), b = rhs(kN, 2);
  double* d_a = to_device(a);
  double* d_b = to_device(b);
  int *d_ipiv = nullptr, *d_info = nullptr;
  CHECK_CUDA(cudaMalloc(&d_ipiv, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_info, sizeof(int)));
  int lwork = 0;
  CHECK_SOLVER(cusolverDnDgetrf_bufferSize(handle, kN, kN, d_a, kN, &lwork));
  double* d_work = nullptr;
  CHECK_CUDA(cudaMalloc(&d_work, std::max(lwork, 1) * sizeof(double)));
  CHECK_SOLVER(cusolverDnDgetrf(handle, kN, kN, d_a, kN, d_work, d_ipiv, d_info));
  say("Dgetrf info: %d\n", to_host(d_info, 1)[0]);
  CHECK_SOLVER(cusolverDnDgetrs(handle, CUBLAS_OP_N, kN, 2, d_a, kN, d_ipiv, d_b, kN, d_info));
  say("Dgetrs info: %d\n", to_host(d_info, 1)[0]);
  expect(residual(a, to_host(d_b, b.size()), b, kN, 2) < 1e-9, "Dgetrf + Dgetrs solve A X = B to 1e-9");
  for (void* p : {static_cast<void*>(d_a), static_cast<void*>(d_b), static_cast<void*>(d_ipiv),
                  static_cast<void*>(d_info), static_cast<void*>(d_work)})
    CHECK_CUDA(cudaFree(p));
}

void generic_lu(cusolverDnHandle_t handle, cudaStream_t stream) {
  const std::vector<double> a = general(kN), b = rhs(kN, 1);
  double* d_a = to_device(a);
  double* d_b = to_device(b);
  int64_t* d_ipiv = nullptr;
  int* d_info = nullptr;
  CHECK_CUDA(cudaMalloc(&d_ipiv, kN * sizeof(int64_t)));
  CHECK_CUDA(cudaMalloc(&d_info, sizeof(int)));
  cusolverDnParams_t params = nullptr;
  CHECK_SOLVER(cusolverDnCreateParams(&params));
  size_t device_bytes = 0, host_bytes = 0;
  CHECK_SOLVER(cusolverDnXgetrf_bufferSize(handle, params, kN, kN, CUDA_R_64F, d_a, kN, CUDA_R_64F, &device_bytes,
                                           &host_bytes));
  void* d_work = nullptr;
  CHECK_CUDA(cudaMalloc(&d_work, std::max<size_t>(device_bytes, 1)));
  std::vector<unsigned char> host_work(std::max<size_t>(host_bytes, 1));
  CHECK_SOLVER(cusolverDnXgetrf(handle, params, kN, kN, CUDA_R_64F, d_a, kN, d_ipiv, CUDA_R_64F, d_work, device_bytes,
                                host_work.data(), host_bytes, d_info));
  CHECK_SOLVER(cusolverDnXgetrs(handle, params, CUBLAS_OP_N, kN, 1, CUDA_R_64F, d_a, kN, d_ipiv, CUDA_R_64F, d_b, kN,
                                d_info));
  std::vector<double> x(kN);
  int info = -1;
  CHECK_CUDA(cudaMemcpyAsync(x.data(), d_b, kN * sizeof(double), cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaMemcpyAsync(&info, d_info, sizeof(int), cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  say("Xgetrf + Xgetrs info: %d\n", info);
  expect(residual(a, x, b, kN, 1) < 1e-9, "Xgetrf + Xgetrs solve A x = b to 1e-9 on a stream");
  CHECK_SOLVER(cusolverDnDestroyParams(params));
  for (void* p : {static_cast<void*>(d_a), static_cast<void*>(d_b), static_cast<void*>(d_ipiv),
                  static_cast<void*>(d_info), d_work})
    CHECK_CUDA(cudaFree(p));
}

// R of a QR factorisation left in the upper triangle of `qr`.
std::vector<double> upper(const std::vector<double>& qr, int n) {
  std::vector<double> r(size_t(n) * n, 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i <= j; ++i) at(r, n, i, j) = at(qr, n, i, j);
  return r;
}

void qr(cusolverDnHandle_t handle) {
  const std::vector<double> a = general(kN);
  double* d_a = to_device(a);
  double* d_tau = nullptr;
  int* d_info = nullptr;
  CHECK_CUDA(cudaMalloc(&d_tau, kN * sizeof(double)));
  CHECK_CUDA(cudaMalloc(&d_info, sizeof(int)));
  int lwork_geqrf = 0, lwork_orgqr = 0;
  CHECK_SOLVER(cusolverDnDgeqrf_bufferSize(handle, kN, kN, d_a, kN, &lwork_geqrf));
  CHECK_SOLVER(cusolverDnDorgqr_bufferSize(handle, kN, kN, kN, d_a, kN, d_tau, &lwork_orgqr));
  const int lwork = std::max({lwork_geqrf, lwork_orgqr, 1});
  double* d_work = nullptr;
  CHECK_CUDA(cudaMalloc(&d_work, lwork * sizeof(double)));
  CHECK_SOLVER(cusolverDnDgeqrf(handle, kN, kN, d_a, kN, d_tau, d_work, lwork, d_info));
  say("Dgeqrf info: %d\n", to_host(d_info, 1)[0]);
  const std::vector<double> r = upper(to_host(d_a, a.size()), kN);
  CHECK_SOLVER(cusolverDnDorgqr(handle, kN, kN, kN, d_a, kN, d_tau, d_work, lwork, d_info));
  say("Dorgqr info: %d\n", to_host(d_info, 1)[0]);
  const std::vector<double> q = to_host(d_a, a.size());
  double orthonormal = 0, product = 0;
  for (int j = 0; j < kN; ++j)
    for (int i = 0; i < kN; ++i) {
      double qtq = 0, qr_ij = 0;
      for (int k = 0; k < kN; ++k) {
        qtq += at(q, kN, k, i) * at(q, kN, k, j);
        qr_ij += at(q, kN, i, k) * at(r, kN, k, j);
      }
      orthonormal = std::max(orthonormal, std::fabs(qtq - (i == j ? 1.0 : 0.0)));
      product = std::max(product, std::fabs(qr_ij - at(a, kN, i, j)));
    }
  expect(orthonormal < 1e-12, "Dorgqr's Q is orthonormal to 1e-12");
  expect(product < 1e-12, "Q R = A to 1e-12");

  // The generic API's QR of the same matrix: the same R up to the signs of its rows.
  double* d_a2 = to_device(a);
  cusolverDnParams_t params = nullptr;
  CHECK_SOLVER(cusolverDnCreateParams(&params));
  size_t device_bytes = 0, host_bytes = 0;
  CHECK_SOLVER(cusolverDnXgeqrf_bufferSize(handle, params, kN, kN, CUDA_R_64F, d_a2, kN, CUDA_R_64F, d_tau,
                                           CUDA_R_64F, &device_bytes, &host_bytes));
  void* d_xwork = nullptr;
  CHECK_CUDA(cudaMalloc(&d_xwork, std::max<size_t>(device_bytes, 1)));
  std::vector<unsigned char> host_work(std::max<size_t>(host_bytes, 1));
  CHECK_SOLVER(cusolverDnXgeqrf(handle, params, kN, kN, CUDA_R_64F, d_a2, kN, CUDA_R_64F, d_tau, CUDA_R_64F, d_xwork,
                                device_bytes, host_work.data(), host_bytes, d_info));
  say("Xgeqrf info: %d\n", to_host(d_info, 1)[0]);
  const std::vector<double> r2 = upper(to_host(d_a2, a.size()), kN);
  double differ = 0;
  for (int j = 0; j < kN; ++j)
    for (int i = 0; i <= j; ++i) differ = std::max(differ, std::fabs(std::fabs(at(r2, kN, i, j)) - std::fabs(at(r, kN, i, j))));
  expect(differ < 1e-12, "Xgeqrf's R is Dgeqrf's up to signs");
  CHECK_SOLVER(cusolverDnDestroyParams(params));
  for (void* p : {static_cast<void*>(d_a), static_cast<void*>(d_a2), static_cast<void*>(d_tau),
                  static_cast<void*>(d_info), static_cast<void*>(d_work), d_xwork})
    CHECK_CUDA(cudaFree(p));
}

void cholesky(cusolverDnHandle_t handle) {
  const std::vector<double> a = spd(kN), b = rhs(kN, 1);
  float* d_a = to_device(std::vector<float>(a.begin(), a.end()));
  float* d_b = to_device(std::vector<float>(b.begin(), b.end()));
  int* d_info = nullptr;
  CHECK_CUDA(cudaMalloc(&d_info, sizeof(int)));
  int lwork = 0;
  CHECK_SOLVER(cusolverDnSpotrf_bufferSize(handle, CUBLAS_FILL_MODE_LOWER, kN, d_a, kN, &lwork));
  float* d_work = nullptr;
  CHECK_CUDA(cudaMalloc(&d_work, std::max(lwork, 1) * sizeof(float)));
  CHECK_SOLVER(cusolverDnSpotrf(handle, CUBLAS_FILL_MODE_LOWER, kN, d_a, kN, d_work, lwork, d_info));
  say("Spotrf info: %d\n", to_host(d_info, 1)[0]);
  CHECK_SOLVER(cusolverDnSpotrs(handle, CUBLAS_FILL_MODE_LOWER, kN, 1, d_a, kN, d_b, kN, d_info));
  const std::vector<float> xf = to_host(d_b, kN);
  expect(residual(a, std::vector<double>(xf.begin(), xf.end()), b, kN, 1) < 1e-3, "Spotrf + Spotrs solve A x = b to 1e-3");
  for (void* p : {static_cast<void*>(d_a), static_cast<void*>(d_b), static_cast<void*>(d_info),
                  static_cast<void*>(d_work)})
    CHECK_CUDA(cudaFree(p));
}

void eigen(cusolverDnHandle_t handle) {
  const std::vector<double> a = spd(kN);
  double* d_a = to_device(a);
  double* d_w = nullptr;
  int* d_info = nullptr;
  CHECK_CUDA(cudaMalloc(&d_w, kN * sizeof(double)));
  CHECK_CUDA(cudaMalloc(&d_info, sizeof(int)));
  cusolverDnParams_t params = nullptr;
  CHECK_SOLVER(cusolverDnCreateParams(&params));
  size_t device_bytes = 0, host_bytes = 0;
  CHECK_SOLVER(cusolverDnXsyevd_bufferSize(handle, params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, kN,
                                           CUDA_R_64F, d_a, kN, CUDA_R_64F, d_w, CUDA_R_64F, &device_bytes,
                                           &host_bytes));
  void* d_work = nullptr;
  CHECK_CUDA(cudaMalloc(&d_work, std::max<size_t>(device_bytes, 1)));
  std::vector<unsigned char> host_work(std::max<size_t>(host_bytes, 1));
  CHECK_SOLVER(cusolverDnXsyevd(handle, params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, kN, CUDA_R_64F, d_a,
                                kN, CUDA_R_64F, d_w, CUDA_R_64F, d_work, device_bytes, host_work.data(), host_bytes,
                                d_info));
  say("Xsyevd info: %d\n", to_host(d_info, 1)[0]);
  const std::vector<double> v = to_host(d_a, a.size()), w = to_host(d_w, kN);
  double error = 0;
  for (int j = 0; j < kN; ++j)
    for (int i = 0; i < kN; ++i) {
      double av = 0;
      for (int k = 0; k < kN; ++k) av += at(a, kN, i, k) * at(v, kN, k, j);
      error = std::max(error, std::fabs(av - w[j] * at(v, kN, i, j)));
    }
  expect(std::is_sorted(w.begin(), w.end()) && w[0] > 0, "Xsyevd's eigenvalues are ascending and positive");
  expect(error < 1e-10, "A v = w v for every eigenpair to 1e-10");
  CHECK_SOLVER(cusolverDnDestroyParams(params));
  for (void* p : {static_cast<void*>(d_a), static_cast<void*>(d_w), static_cast<void*>(d_info), d_work})
    CHECK_CUDA(cudaFree(p));
}

void singular(cusolverDnHandle_t handle) {
  std::vector<double> a(size_t(kN) * kN, 0.0);
  for (int i = 0; i < kN; ++i) at(a, kN, i, i) = i == 3 ? 0.0 : 1.0;
  double* d_a = to_device(a);
  int *d_ipiv = nullptr, *d_info = nullptr;
  CHECK_CUDA(cudaMalloc(&d_ipiv, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_info, sizeof(int)));
  int lwork = 0;
  CHECK_SOLVER(cusolverDnDgetrf_bufferSize(handle, kN, kN, d_a, kN, &lwork));
  double* d_work = nullptr;
  CHECK_CUDA(cudaMalloc(&d_work, std::max(lwork, 1) * sizeof(double)));
  CHECK_SOLVER(cusolverDnDgetrf(handle, kN, kN, d_a, kN, d_work, d_ipiv, d_info));
  say("singular Dgetrf info: %d\n", to_host(d_info, 1)[0]);
  for (void* p : {static_cast<void*>(d_a), static_cast<void*>(d_ipiv), static_cast<void*>(d_info),
                  static_cast<void*>(d_work)})
    CHECK_CUDA(cudaFree(p));
}

}  // namespace

int main() {
  cusolverDnHandle_t handle = nullptr;
  CHECK_SOLVER(cusolverDnCreate(&handle));
  legacy_lu(handle);
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK_SOLVER(cusolverDnSetStream(handle, stream));
  cudaStream_t got = nullptr;
  CHECK_SOLVER(cusolverDnGetStream(handle, &got));
  expect(got == stream, "cusolverDnGetStream answers the stream set");
  generic_lu(handle, stream);
  CHECK_SOLVER(cusolverDnSetStream(handle, nullptr));
  qr(handle);
  cholesky(handle);
  eigen(handle);
  singular(handle);
  CHECK_SOLVER(cusolverDnDestroy(handle));
  CHECK_CUDA(cudaStreamDestroy(stream));
  return finish("32_cusolver");
}
