// cuBLAS through the shim against rgpud --emulate (whose cuBLAS is a CPU reference for handles,
// SGEMM and SDOT): results checked against a host loop, the pointer modes, the local getters, and
// the not-supported answers. Prints "ok: ..." per check and "ok: cublas_tour" last.
//
// `cublas_tour settings` only creates a handle, sets and reads its settings many times and
// destroys it, then synchronizes once: run with RGPU_STATS=1 it must make 1 round trip (the
// cudaDeviceSynchronize): creation and setters are sent without waiting, getters answer locally.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tour_checks.h"

#define CHECK_BLAS(x) CHECK_STATUS(#x, x, CUBLAS_STATUS_SUCCESS, cublasGetStatusName)

namespace {

// C = alpha * op(A) * op(B) + beta * C, column-major.
void reference_sgemm(bool ta, bool tb, int m, int n, int k, float alpha, const std::vector<float>& a, int lda,
                     const std::vector<float>& b, int ldb, float beta, std::vector<float>& c, int ldc) {
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      float sum = 0;
      for (int l = 0; l < k; ++l) {
        sum += (ta ? a[l + i * lda] : a[i + l * lda]) * (tb ? b[j + l * ldb] : b[l + j * ldb]);
      }
      c[i + j * ldc] = alpha * sum + beta * c[i + j * ldc];
    }
  }
}

float max_abs_diff(const std::vector<float>& x, const std::vector<float>& y) {
  float d = 0;
  for (size_t i = 0; i < x.size(); ++i) d = std::fmax(d, std::fabs(x[i] - y[i]));
  return d;
}

int settings_only() {
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  for (int i = 0; i < 50; ++i) {
    CHECK_BLAS(cublasSetStream(h, nullptr));
    CHECK_BLAS(cublasSetPointerMode(h, i % 2 ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST));
    CHECK_BLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    cublasPointerMode_t mode;
    CHECK_BLAS(cublasGetPointerMode(h, &mode));
    if (mode != (i % 2 ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST)) return std::printf("FAIL mode\n"), 1;
    cudaStream_t s;
    CHECK_BLAS(cublasGetStream(h, &s));
    int version;
    CHECK_BLAS(cublasGetVersion(h, &version));
  }
  CHECK_BLAS(cublasDestroy(h));
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("ok: cublas_tour settings\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && !std::strcmp(argv[1], "settings")) return settings_only();

  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));

  // Settings: mirrored on the client, read back locally.
  CHECK_BLAS(cublasSetStream(h, stream));
  cudaStream_t got_stream = nullptr;
  CHECK_BLAS(cublasGetStream(h, &got_stream));
  EXPECT(got_stream == stream, "cublasGetStream returns the stream set");
  CHECK_BLAS(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
  cublasMath_t math;
  CHECK_BLAS(cublasGetMathMode(h, &math));
  EXPECT(math == CUBLAS_TF32_TENSOR_OP_MATH, "cublasGetMathMode returns the mode set");
  CHECK_BLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  int version = 0, major = 0;
  CHECK_BLAS(cublasGetVersion(h, &version));
  CHECK_BLAS(cublasGetProperty(MAJOR_VERSION, &major));
  EXPECT(major == 13 && version / 10000 == 13, "cuBLAS 13");

  // SGEMM, host pointer mode: C = alpha * A * B + beta * C, then with both transposed.
  const int m = 37, n = 29, k = 23;
  std::vector<float> a(m * k), b(k * n), c(m * n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 7) % 11) - 5.0f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>((i * 5) % 13) * 0.25f - 1.0f;
  for (size_t i = 0; i < c.size(); ++i) c[i] = static_cast<float>(i % 3);
  float *da, *db, *dc, *dscalars;
  CHECK_CUDA(cudaMalloc(&da, a.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&db, b.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dc, c.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dscalars, 4 * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dc, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice));
  float alpha = 1.5f, beta = 0.5f;
  CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da, m, db, k, &beta, dc, m));
  std::vector<float> expect = c, got(c.size());
  reference_sgemm(false, false, m, n, k, alpha, a, m, b, k, beta, expect, m);
  CHECK_CUDA(cudaMemcpyAsync(got.data(), dc, got.size() * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  EXPECT(max_abs_diff(got, expect) < 1e-3f, "SGEMM (host pointer mode) matches the host reference");

  // op(A) = A^T (k x m stored), op(B) = B^T (n x k stored): reuse a as k x m and b as n x k.
  CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_T, m, n, k, &alpha, da, k, db, n, &beta, dc, m));
  reference_sgemm(true, true, m, n, k, alpha, a, k, b, n, beta, expect, m);
  CHECK_CUDA(cudaMemcpy(got.data(), dc, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  EXPECT(max_abs_diff(got, expect) < 1e-3f, "SGEMM transposed matches the host reference");

  // Device pointer mode: alpha and beta are read from device memory.
  float scalars[2] = {-2.0f, 0.0f};
  CHECK_CUDA(cudaMemcpy(dscalars, scalars, sizeof scalars, cudaMemcpyHostToDevice));
  CHECK_BLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
  CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, dscalars, da, m, db, k, dscalars + 1, dc, m));
  std::fill(expect.begin(), expect.end(), 0.0f);
  reference_sgemm(false, false, m, n, k, -2.0f, a, m, b, k, 0.0f, expect, m);
  CHECK_CUDA(cudaMemcpy(got.data(), dc, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  EXPECT(max_abs_diff(got, expect) < 1e-3f, "SGEMM (device pointer mode) matches the host reference");

  // SDOT: to device memory (no wait), then to host memory (waits).
  float dot_ref = 0;
  for (int i = 0; i < k; ++i) dot_ref += a[i] * b[i];
  CHECK_BLAS(cublasSdot(h, k, da, 1, db, 1, dscalars + 2));
  float dot_dev = 0;
  CHECK_CUDA(cudaMemcpy(&dot_dev, dscalars + 2, sizeof dot_dev, cudaMemcpyDeviceToHost));
  EXPECT(std::fabs(dot_dev - dot_ref) < 1e-3f, "SDOT into device memory");
  CHECK_BLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  float dot_host = 0;
  CHECK_BLAS(cublasSdot(h, k, da, 1, db, 1, &dot_host));
  EXPECT(std::fabs(dot_host - dot_ref) < 1e-3f, "SDOT into host memory");

  // Not supported: by the shim (not forwarded), and by the emulated backend (forwarded, sync).
  EXPECT(cublasSsymm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, m, n, &alpha, da, m, db, m, &beta, dc, m) ==
             CUBLAS_STATUS_NOT_SUPPORTED,
         "an unforwarded function answers CUBLAS_STATUS_NOT_SUPPORTED");
  double dd = 0;
  EXPECT(cublasDdot(h, 1, reinterpret_cast<double*>(da), 1, reinterpret_cast<double*>(db), 1, &dd) ==
             CUBLAS_STATUS_NOT_SUPPORTED,
         "a function the backend lacks answers CUBLAS_STATUS_NOT_SUPPORTED");

  CHECK_BLAS(cublasDestroy(h));
  EXPECT(cublasSetStream(h, stream) == CUBLAS_STATUS_NOT_INITIALIZED, "a destroyed handle is refused");
  CHECK_CUDA(cudaFree(da));
  CHECK_CUDA(cudaFree(db));
  CHECK_CUDA(cudaFree(dc));
  CHECK_CUDA(cudaFree(dscalars));
  CHECK_CUDA(cudaStreamDestroy(stream));
  std::printf("ok: cublas_tour\n");
  return 0;
}
