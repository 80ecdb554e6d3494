// cuSOLVER through the libcusolver.so.12 shim against rgpud --emulate (whose cuSOLVER factors on the
// CPU): a dense handle on a stream, its stream answered locally, an LU solve (Sgetrf's buffer size,
// Sgetrf, Sgetrs) and Cholesky solves in both triangles (Dpotrf, Dpotrs) checked against the
// solution computed here, the generic API's Xgetrf with its device and host workspaces (P A = L U
// checked here; the caller's host workspace neither sent nor written), a singular matrix's info,
// the not-supported and not-available answers, and everything destroyed. Prints "ok: ..." per
// check and "ok: cusolver_tour" last.
//
// `cusolver_tour async N` asks the buffer sizes once, then N times sets the handle's stream and
// reads it back, makes and destroys generic-API parameters, asks the buffer sizes again, uploads a
// matrix and factors and solves it (Sgetrf, Sgetrs, Xgetrf), and synchronizes once: run with
// RGPU_STATS=1 its round trips do not grow with N (the settings, parameters and computations are
// sent without waiting, the stream's getter answers locally, a buffer-size question asked before
// is answered on the client).
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tour_checks.h"

#define CHECK_SOLVER(x) CHECK_STATUS(#x, x, CUSOLVER_STATUS_SUCCESS, status_number)

namespace {

constexpr int kN = 5;

// A column-major n x n matrix that needs row exchanges (small leading entries) and is invertible.
std::vector<double> general(int n) {
  std::vector<double> a(size_t(n) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) a[size_t(j) * n + i] = (i == j ? 0.01 : 1.0 / (1 + i + 2 * j)) + (i == n - 1 - j);
  return a;
}

// A symmetric positive definite one: B^T B + n I.
std::vector<double> spd(int n) {
  std::vector<double> b = general(n), a(size_t(n) * n, 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      for (int k = 0; k < n; ++k) a[size_t(j) * n + i] += b[size_t(i) * n + k] * b[size_t(j) * n + k];
      if (i == j) a[size_t(j) * n + i] += n;
    }
  return a;
}

// x with A x = b, by Gaussian elimination with partial pivoting here.
std::vector<double> solve_here(std::vector<double> a, std::vector<double> b, int n) {
  for (int k = 0; k < n; ++k) {
    int p = k;
    for (int i = k + 1; i < n; ++i)
      if (std::fabs(a[size_t(k) * n + i]) > std::fabs(a[size_t(k) * n + p])) p = i;
    for (int j = 0; j < n; ++j) std::swap(a[size_t(j) * n + k], a[size_t(j) * n + p]);
    std::swap(b[k], b[p]);
    for (int i = k + 1; i < n; ++i) {
      const double f = a[size_t(k) * n + i] / a[size_t(k) * n + k];
      for (int j = k; j < n; ++j) a[size_t(j) * n + i] -= f * a[size_t(j) * n + k];
      b[i] -= f * b[k];
    }
  }
  std::vector<double> x(n);
  for (int i = n - 1; i >= 0; --i) {
    double s = b[i];
    for (int j = i + 1; j < n; ++j) s -= a[size_t(j) * n + i] * x[j];
    x[i] = s / a[size_t(i) * n + i];
  }
  return x;
}

std::vector<double> rhs(int n) {
  std::vector<double> b(n);
  for (int i = 0; i < n; ++i) b[i] = 1.0 - 0.5 * i;
  return b;
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
std::vector<T> download(const T* d, size_t count, cudaStream_t stream) {
  std::vector<T> host(count);
  if (cudaMemcpyAsync(host.data(), d, count * sizeof(T), cudaMemcpyDeviceToHost, stream) != cudaSuccess ||
      cudaStreamSynchronize(stream) != cudaSuccess)
    host.clear();
  return host;
}

template <typename T>
double max_error(const std::vector<double>& want, const std::vector<T>& got) {
  if (got.size() != want.size()) return INFINITY;
  double e = 0;
  for (size_t i = 0; i < want.size(); ++i) e = std::fmax(e, std::fabs(want[i] - double(got[i])));
  return e;
}

// Sgetrf then Sgetrs on the general matrix, against the solution here.
int lu_solve(cusolverDnHandle_t handle, cudaStream_t stream) {
  const std::vector<double> a = general(kN), b = rhs(kN);
  float* d_a = upload(std::vector<float>(a.begin(), a.end()), stream);
  float* d_b = upload(std::vector<float>(b.begin(), b.end()), stream);
  int *d_ipiv = nullptr, *d_info = nullptr;
  CHECK_CUDA(cudaMalloc(&d_ipiv, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_info, sizeof(int)));
  EXPECT(d_a && d_b, "the matrix and right-hand side are in device memory");
  int lwork = 0;
  CHECK_SOLVER(cusolverDnSgetrf_bufferSize(handle, kN, kN, d_a, kN, &lwork));
  EXPECT(lwork > 0, "cusolverDnSgetrf_bufferSize answers a workspace size");
  float* d_work = nullptr;
  CHECK_CUDA(cudaMalloc(&d_work, size_t(lwork) * sizeof(float)));
  CHECK_SOLVER(cusolverDnSgetrf(handle, kN, kN, d_a, kN, d_work, d_ipiv, d_info));
  CHECK_SOLVER(cusolverDnSgetrs(handle, CUBLAS_OP_N, kN, 1, d_a, kN, d_ipiv, d_b, kN, d_info));
  const std::vector<int> info = download(d_info, 1, stream);
  const std::vector<float> x = download(d_b, kN, stream);
  EXPECT(info.size() == 1 && info[0] == 0, "Sgetrf and Sgetrs report success in devInfo");
  const double error = max_error(solve_here(a, b, kN), x);
  std::printf("   LU solve: max error %.3g\n", error);
  EXPECT(error < 1e-3, "Sgetrf + Sgetrs solve A x = b as computed here");
  for (void* p : {static_cast<void*>(d_a), static_cast<void*>(d_b), static_cast<void*>(d_ipiv),
                  static_cast<void*>(d_info), static_cast<void*>(d_work)})
    CHECK_CUDA(cudaFree(p));
  return 0;
}

// Dpotrf then Dpotrs on the SPD matrix, in the triangle `uplo`.
int cholesky_solve(cusolverDnHandle_t handle, cudaStream_t stream, cublasFillMode_t uplo, const char* what) {
  const std::vector<double> a = spd(kN), b = rhs(kN);
  double* d_a = upload(a, stream);
  double* d_b = upload(b, stream);
  int* d_info = nullptr;
  CHECK_CUDA(cudaMalloc(&d_info, sizeof(int)));
  EXPECT(d_a && d_b, "the SPD matrix and right-hand side are in device memory");
  int lwork = 0;
  CHECK_SOLVER(cusolverDnDpotrf_bufferSize(handle, uplo, kN, d_a, kN, &lwork));
  double* d_work = nullptr;
  CHECK_CUDA(cudaMalloc(&d_work, size_t(lwork) * sizeof(double)));
  CHECK_SOLVER(cusolverDnDpotrf(handle, uplo, kN, d_a, kN, d_work, lwork, d_info));
  CHECK_SOLVER(cusolverDnDpotrs(handle, uplo, kN, 1, d_a, kN, d_b, kN, d_info));
  const std::vector<int> info = download(d_info, 1, stream);
  const std::vector<double> x = download(d_b, kN, stream);
  EXPECT(info.size() == 1 && info[0] == 0, "Dpotrf and Dpotrs report success in devInfo");
  const double error = max_error(solve_here(a, b, kN), x);
  std::printf("   %s: max error %.3g\n", what, error);
  EXPECT(error < 1e-10, what);
  for (void* p : {static_cast<void*>(d_a), static_cast<void*>(d_b), static_cast<void*>(d_info),
                  static_cast<void*>(d_work)})
    CHECK_CUDA(cudaFree(p));
  return 0;
}

// The generic API's Xgetrf in double: P A = L U from the factors and pivots it returns.
int generic_lu(cusolverDnHandle_t handle, cudaStream_t stream) {
  const std::vector<double> a = general(kN);
  double* d_a = upload(a, stream);
  int64_t* d_ipiv = nullptr;
  int* d_info = nullptr;
  CHECK_CUDA(cudaMalloc(&d_ipiv, kN * sizeof(int64_t)));
  CHECK_CUDA(cudaMalloc(&d_info, sizeof(int)));
  EXPECT(d_a != nullptr, "the matrix is in device memory");
  cusolverDnParams_t params = nullptr;
  CHECK_SOLVER(cusolverDnCreateParams(&params));
  size_t device_bytes = 0, host_bytes = 0;
  CHECK_SOLVER(cusolverDnXgetrf_bufferSize(handle, params, kN, kN, CUDA_R_64F, d_a, kN, CUDA_R_64F, &device_bytes,
                                           &host_bytes));
  EXPECT(device_bytes > 0 && host_bytes > 0, "cusolverDnXgetrf_bufferSize answers both workspace sizes");
  void* d_work = nullptr;
  CHECK_CUDA(cudaMalloc(&d_work, device_bytes));
  std::vector<unsigned char> host_work(host_bytes, 0x11);
  CHECK_SOLVER(cusolverDnXgetrf(handle, params, kN, kN, CUDA_R_64F, d_a, kN, d_ipiv, CUDA_R_64F, d_work, device_bytes,
                                host_work.data(), host_bytes, d_info));
  const std::vector<double> lu = download(d_a, size_t(kN) * kN, stream);
  const std::vector<int64_t> ipiv = download(d_ipiv, kN, stream);
  const std::vector<int> info = download(d_info, 1, stream);
  EXPECT(info.size() == 1 && info[0] == 0, "Xgetrf reports success in info");
  EXPECT(lu.size() == size_t(kN) * kN && ipiv.size() == size_t(kN), "Xgetrf's factors and pivots come back");
  // P A: A's rows exchanged as the pivots say, in order.
  bool pivots_in_range = true;
  for (int k = 0; k < kN; ++k) pivots_in_range &= ipiv[k] >= k + 1 && ipiv[k] <= kN;
  EXPECT(pivots_in_range, "each pivot is a row at or below its step (1-based)");
  std::vector<double> pa = a;
  for (int k = 0; k < kN; ++k)
    for (int j = 0; j < kN; ++j) std::swap(pa[size_t(j) * kN + k], pa[size_t(j) * kN + (ipiv[k] - 1)]);
  double error = 0;
  for (int j = 0; j < kN; ++j)
    for (int i = 0; i < kN; ++i) {
      double s = 0;
      for (int k = 0; k <= std::min(i, j); ++k) s += (k == i ? 1.0 : lu[size_t(k) * kN + i]) * lu[size_t(j) * kN + k];
      error = std::fmax(error, std::fabs(s - pa[size_t(j) * kN + i]));
    }
  std::printf("   Xgetrf: max |PA - LU| %.3g\n", error);
  EXPECT(error < 1e-12, "Xgetrf's L and U multiply back to A with its rows exchanged");
  bool untouched = true;
  for (unsigned char c : host_work) untouched &= c == 0x11;
  EXPECT(untouched, "the caller's host workspace is neither sent nor written (the server works in its own)");
  CHECK_SOLVER(cusolverDnDestroyParams(params));
  for (void* p : {static_cast<void*>(d_a), static_cast<void*>(d_ipiv), static_cast<void*>(d_info), d_work})
    CHECK_CUDA(cudaFree(p));
  return 0;
}

// A singular matrix: Sgetrf succeeds and devInfo names the first zero pivot.
int singular(cusolverDnHandle_t handle, cudaStream_t stream) {
  std::vector<float> a(size_t(kN) * kN, 0.0f);
  for (int i = 0; i < kN - 1; ++i) a[size_t(i) * kN + i] = 1.0f;  // the last column is zero
  float* d_a = upload(a, stream);
  int *d_ipiv = nullptr, *d_info = nullptr;
  float* d_work = nullptr;
  int lwork = 0;
  CHECK_CUDA(cudaMalloc(&d_ipiv, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_info, sizeof(int)));
  CHECK_SOLVER(cusolverDnSgetrf_bufferSize(handle, kN, kN, d_a, kN, &lwork));
  CHECK_CUDA(cudaMalloc(&d_work, size_t(lwork) * sizeof(float)));
  CHECK_SOLVER(cusolverDnSgetrf(handle, kN, kN, d_a, kN, d_work, d_ipiv, d_info));
  const std::vector<int> info = download(d_info, 1, stream);
  EXPECT(info.size() == 1 && info[0] == kN, "a singular matrix's devInfo names its zero pivot");
  for (void* p : {static_cast<void*>(d_a), static_cast<void*>(d_ipiv), static_cast<void*>(d_info),
                  static_cast<void*>(d_work)})
    CHECK_CUDA(cudaFree(p));
  return 0;
}

// The `async N` mode (see the top).
int async_only(int rounds) {
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreate(&stream));
  const std::vector<double> a = general(kN), b = rhs(kN);
  const std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end());
  float* d_a = upload(af, stream);
  float* d_b = upload(bf, stream);
  double* d_a64 = upload(a, stream);
  int *d_ipiv = nullptr, *d_info = nullptr;
  int64_t* d_ipiv64 = nullptr;
  CHECK_CUDA(cudaMalloc(&d_ipiv, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_ipiv64, kN * sizeof(int64_t)));
  CHECK_CUDA(cudaMalloc(&d_info, sizeof(int)));
  EXPECT(d_a && d_b && d_a64, "the matrices are in device memory");
  cusolverDnHandle_t handle = nullptr;
  CHECK_SOLVER(cusolverDnCreate(&handle));
  cusolverDnParams_t params = nullptr;
  CHECK_SOLVER(cusolverDnCreateParams(&params));
  int lwork = 0;
  size_t device_bytes = 0, host_bytes = 0;
  CHECK_SOLVER(cusolverDnSgetrf_bufferSize(handle, kN, kN, d_a, kN, &lwork));
  CHECK_SOLVER(cusolverDnXgetrf_bufferSize(handle, params, kN, kN, CUDA_R_64F, d_a64, kN, CUDA_R_64F, &device_bytes,
                                           &host_bytes));
  CHECK_SOLVER(cusolverDnDestroyParams(params));
  float* d_work = nullptr;
  void* d_work64 = nullptr;
  CHECK_CUDA(cudaMalloc(&d_work, size_t(lwork) * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_work64, device_bytes));
  std::vector<unsigned char> host_work(host_bytes);
  for (int i = 0; i < rounds; ++i) {
    CHECK_SOLVER(cusolverDnSetStream(handle, stream));
    cudaStream_t got = nullptr;
    CHECK_SOLVER(cusolverDnGetStream(handle, &got));
    if (got != stream) return std::printf("FAIL settings\n"), 1;
    CHECK_CUDA(cudaMemcpyAsync(d_a, af.data(), af.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
    CHECK_CUDA(cudaMemcpyAsync(d_b, bf.data(), bf.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
    CHECK_SOLVER(cusolverDnSgetrf(handle, kN, kN, d_a, kN, d_work, d_ipiv, d_info));
    CHECK_SOLVER(cusolverDnSgetrs(handle, CUBLAS_OP_N, kN, 1, d_a, kN, d_ipiv, d_b, kN, d_info));
    // The same buffer-size questions again, the second about a parameter object made alike: answered
    // on the client.
    int lwork_again = 0;
    size_t device_again = 0, host_again = 0;
    CHECK_SOLVER(cusolverDnSgetrf_bufferSize(handle, kN, kN, d_a, kN, &lwork_again));
    CHECK_SOLVER(cusolverDnCreateParams(&params));
    CHECK_SOLVER(cusolverDnXgetrf_bufferSize(handle, params, kN, kN, CUDA_R_64F, d_a64, kN, CUDA_R_64F, &device_again,
                                             &host_again));
    if (lwork_again != lwork || device_again != device_bytes || host_again != host_bytes)
      return std::printf("FAIL buffer sizes asked again\n"), 1;
    CHECK_CUDA(cudaMemcpyAsync(d_a64, a.data(), a.size() * sizeof(double), cudaMemcpyHostToDevice, stream));
    CHECK_SOLVER(cusolverDnXgetrf(handle, params, kN, kN, CUDA_R_64F, d_a64, kN, d_ipiv64, CUDA_R_64F, d_work64,
                                  device_bytes, host_work.data(), host_bytes, d_info));
    CHECK_SOLVER(cusolverDnDestroyParams(params));
  }
  CHECK_SOLVER(cusolverDnDestroy(handle));
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("ok: cusolver_tour async\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "async") return async_only(std::atoi(argv[2]));
  cusolverDnHandle_t handle = nullptr;
  CHECK_SOLVER(cusolverDnCreate(&handle));
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreate(&stream));
  cudaStream_t got_stream = stream;
  CHECK_SOLVER(cusolverDnGetStream(handle, &got_stream));
  EXPECT(got_stream == nullptr, "a new handle's stream is the default stream");
  CHECK_SOLVER(cusolverDnSetStream(handle, stream));
  CHECK_SOLVER(cusolverDnGetStream(handle, &got_stream));
  EXPECT(got_stream == stream, "cusolverDnGetStream answers the stream set");
  int version = 0;
  CHECK_SOLVER(cusolverGetVersion(&version));
  EXPECT(version == CUSOLVER_VERSION, "cusolverGetVersion answers the library's version");

  if (lu_solve(handle, stream) || cholesky_solve(handle, stream, CUBLAS_FILL_MODE_LOWER, "Dpotrf + Dpotrs, lower") ||
      cholesky_solve(handle, stream, CUBLAS_FILL_MODE_UPPER, "Dpotrf + Dpotrs, upper") ||
      generic_lu(handle, stream) || singular(handle, stream))
    return 1;

  // Not forwarded (the library's own host memory): refused on the client, named on stderr.
  void* history = nullptr;
  EXPECT(cusolverDnIRSInfosGetResidualHistory(nullptr, &history) == CUSOLVER_STATUS_NOT_SUPPORTED,
         "an unforwarded function answers not supported");
  // Forwarded but missing from the emulated backend: named in rgpud's log.
  int lwork = 0;
  EXPECT(cusolverDnSgeqrf_bufferSize(handle, kN, kN, nullptr, kN, &lwork) == CUSOLVER_STATUS_NOT_SUPPORTED,
         "a function the backend lacks answers not supported");

  CHECK_SOLVER(cusolverDnDestroy(handle));
  EXPECT(cusolverDnSetStream(handle, stream) == CUSOLVER_STATUS_NOT_INITIALIZED, "a destroyed handle is refused");
  CHECK_CUDA(cudaStreamDestroy(stream));
  std::printf("ok: cusolver_tour\n");
  return 0;
}
