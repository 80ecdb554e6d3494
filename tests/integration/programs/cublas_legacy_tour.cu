// cuBLAS's legacy API (cublas.h) through the shim against rgpud --emulate: cublasInit's implicit
// handle, device memory from cublasAlloc, vectors through cublasSetVector/GetVector, SAXPY and
// SGEMM posted without waiting, SDOT's value returned, failures kept for cublasGetError (which
// clears them), and cublasShutdown. Prints "ok: ..." per check and "ok: cublas_legacy_tour" last.
#include <cublas.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "tour_checks.h"

#define CHECK_BLAS(x) CHECK_STATUS(#x, x, CUBLAS_STATUS_SUCCESS, status_name)

namespace {

const char* status_name(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    default: return "another cuBLAS status";
  }
}

}  // namespace

int main() {
  float none = cublasSdot(0, nullptr, 1, nullptr, 1);
  EXPECT(none == 0 && cublasGetError() == CUBLAS_STATUS_NOT_INITIALIZED,
         "before cublasInit a routine fails, and cublasGetError says so");
  CHECK_BLAS(cublasInit());

  const int n = 64;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i % 7 - 3);
    y[i] = float(i % 5);
  }
  float *dx = nullptr, *dy = nullptr;
  CHECK_BLAS(cublasAlloc(n, sizeof(float), reinterpret_cast<void**>(&dx)));
  CHECK_BLAS(cublasAlloc(n, sizeof(float), reinterpret_cast<void**>(&dy)));
  void* nothing = nullptr;
  EXPECT(cublasAlloc(0, sizeof(float), &nothing) == CUBLAS_STATUS_INVALID_VALUE, "cublasAlloc of 0 elements is refused");
  CHECK_BLAS(cublasSetVector(n, sizeof(float), x.data(), 1, dx, 1));
  CHECK_BLAS(cublasSetVector(n, sizeof(float), y.data(), 1, dy, 1));

  cublasSaxpy(n, 2.0f, dx, 1, dy, 1);  // y += 2x, posted
  EXPECT(cublasGetError() == CUBLAS_STATUS_SUCCESS, "SAXPY: no error kept");
  std::vector<float> got(n);
  CHECK_BLAS(cublasGetVector(n, sizeof(float), dy, 1, got.data(), 1));
  bool axpy_ok = true;
  for (int i = 0; i < n; ++i) axpy_ok &= got[i] == y[i] + 2.0f * x[i];
  EXPECT(axpy_ok, "SAXPY (alpha by value) matches the host reference");

  float dot_ref = 0;
  for (int i = 0; i < n; ++i) dot_ref += x[i] * got[i];
  EXPECT(cublasSdot(n, dx, 1, dy, 1) == dot_ref, "SDOT returns its value");

  // C (4 x 3) = A (4 x 2) B (2 x 3), the 64 floats of dx and dy reused as A, B and C.
  const int m = 4, k = 2, cols = 3;
  cublasSgemm('N', 'N', m, cols, k, 1.0f, dx, m, dy, k, 0.0f, dy + 16, m);
  std::vector<float> c(m * cols);
  CHECK_BLAS(cublasGetVector(m * cols, sizeof(float), dy + 16, 1, c.data(), 1));
  float gemm_err = 0;
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < m; ++i) {
      float want = 0;
      for (int l = 0; l < k; ++l) want += x[i + l * m] * got[l + j * k];
      gemm_err = std::fmax(gemm_err, std::fabs(c[i + j * m] - want));
    }
  EXPECT(gemm_err == 0, "SGEMM (transposes as chars) matches the host reference");
  cublasSgemm('X', 'N', m, cols, k, 1.0f, dx, m, dy, k, 0.0f, dy + 16, m);
  EXPECT(cublasGetError() == CUBLAS_STATUS_INVALID_VALUE, "a bad argument is kept for cublasGetError");
  EXPECT(cublasGetError() == CUBLAS_STATUS_SUCCESS, "cublasGetError clears what it said");

  CHECK_BLAS(cublasFree(dx));
  CHECK_BLAS(cublasFree(dy));
  CHECK_BLAS(cublasShutdown());
  std::printf("ok: cublas_legacy_tour\n");
  return 0;
}
