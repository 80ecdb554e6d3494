// cuBLAS through the shim against rgpud --emulate (whose cuBLAS is a CPU reference for handles,
// SGEMM, SDOT, SAXPY_64, SROT and SGETRS batched): results checked against a host loop, the pointer modes, the local getters, and
// the not-supported answers. Prints "ok: ..." per check and "ok: cublas_tour" last.
//
// `cublas_tour solves N` checks that batched solves wait for nothing (see solves_only).
// `cublas_tour settings` only creates a handle, sets and reads its settings many times and
// destroys it, then synchronizes once: run with RGPU_STATS=1 it must make 1 round trip (the
// cudaDeviceSynchronize): creation and setters are sent without waiting, getters answer locally.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
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

// Two 2 x 2 systems already factored as getrf leaves them, A = P L U, for SGETRS batched:
//   batch 0: no swap, L = [1 0; 0.5 1], U = [4 2; 0 3]: A = [4 2; 2 4], b = [8 10] -> x = [1 2]
//   batch 1: rows swapped (pivots 2, 2), same L U: A = [2 4; 4 2], b = [10 8] -> x = [1 2]
// dptrs holds both factors' addresses, then both right-hand sides'.
struct LuSystems {
  float* dlu = nullptr;
  float* drhs = nullptr;
  int* dpiv = nullptr;
  float** dptrs = nullptr;
};

int upload_lu_systems(LuSystems* s) {
  const float lu[2][4] = {{4, 0.5f, 2, 3}, {4, 0.5f, 2, 3}};  // column-major
  const int pivots[4] = {1, 2, 2, 2};
  const float rhs[2][2] = {{8, 10}, {10, 8}};
  CHECK_CUDA(cudaMalloc(&s->dlu, sizeof lu));
  CHECK_CUDA(cudaMalloc(&s->drhs, sizeof rhs));
  CHECK_CUDA(cudaMalloc(&s->dpiv, sizeof pivots));
  CHECK_CUDA(cudaMalloc(&s->dptrs, 4 * sizeof(float*)));
  float* ptrs[4] = {s->dlu, s->dlu + 4, s->drhs, s->drhs + 2};
  CHECK_CUDA(cudaMemcpy(s->dlu, lu, sizeof lu, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(s->drhs, rhs, sizeof rhs, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(s->dpiv, pivots, sizeof pivots, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(s->dptrs, ptrs, sizeof ptrs, cudaMemcpyHostToDevice));
  return 0;
}

int free_lu_systems(const LuSystems& s) {
  for (void* p : {static_cast<void*>(s.dlu), static_cast<void*>(s.drhs), static_cast<void*>(s.dpiv),
                  static_cast<void*>(s.dptrs)})
    CHECK_CUDA(cudaFree(p));
  return 0;
}

// `cublas_tour solves N`: N batched solves, each with a refused twin (lda too small), then one
// synchronize. The arguments are checked on the client and the solves posted, so the round trips
// do not grow with N. (Solved again and again, the right-hand sides are not checked here.)
int solves_only(int rounds) {
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  LuSystems s;
  if (upload_lu_systems(&s)) return 1;
  for (int i = 0; i < rounds; ++i) {
    int info = 123;
    CHECK_BLAS(cublasSgetrsBatched(h, CUBLAS_OP_N, 2, 1, s.dptrs, 2, s.dpiv, s.dptrs + 2, 2, &info, 2));
    if (info != 0) return std::printf("FAIL info %d\n", info), 1;
    if (cublasSgetrsBatched(h, CUBLAS_OP_N, 2, 1, s.dptrs, 1, s.dpiv, s.dptrs + 2, 2, &info, 2) !=
            CUBLAS_STATUS_INVALID_VALUE ||
        info != -5)
      return std::printf("FAIL a bad lda: info %d\n", info), 1;
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_BLAS(cublasDestroy(h));
  if (free_lu_systems(s)) return 1;
  std::printf("ok: cublas_tour solves\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && !std::strcmp(argv[1], "settings")) return settings_only();
  if (argc > 2 && !std::strcmp(argv[1], "solves")) return solves_only(std::atoi(argv[2]));

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

  // One call of each shape the spec's families add. 64-bit indices (SAXPY_64, host alpha):
  // y = 0.5 x + y over every other element.
  std::vector<float> x(k), y(k);
  for (int i = 0; i < k; ++i) {
    x[i] = float(i + 1);
    y[i] = float(2 * i);
  }
  CHECK_CUDA(cudaMemcpy(da, x.data(), k * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(db, y.data(), k * sizeof(float), cudaMemcpyHostToDevice));
  const float half = 0.5f;
  const int64_t every_other = (k + 1) / 2;
  CHECK_BLAS(cublasSaxpy_64(h, every_other, &half, da, 2, db, 2));
  std::vector<float> got_y(k);
  CHECK_CUDA(cudaMemcpy(got_y.data(), db, k * sizeof(float), cudaMemcpyDeviceToHost));
  bool axpy_ok = true;
  for (int i = 0; i < k; ++i) axpy_ok &= got_y[i] == (i % 2 ? y[i] : y[i] + 0.5f * x[i]);
  EXPECT(axpy_ok, "SAXPY_64 (64-bit indices, host alpha) matches the host reference");

  // The rotation's c and s follow the pointer mode like alpha (host here).
  const float cos_t = 0.6f, sin_t = 0.8f;
  CHECK_BLAS(cublasSrot(h, k, da, 1, db, 1, &cos_t, &sin_t));
  std::vector<float> got_x(k);
  CHECK_CUDA(cudaMemcpy(got_x.data(), da, k * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<float> rotated_y(k);
  CHECK_CUDA(cudaMemcpy(rotated_y.data(), db, k * sizeof(float), cudaMemcpyDeviceToHost));
  float rot_err = 0;
  for (int i = 0; i < k; ++i) {
    rot_err = std::fmax(rot_err, std::fabs(got_x[i] - (cos_t * x[i] + sin_t * got_y[i])));
    rot_err = std::fmax(rot_err, std::fabs(rotated_y[i] - (cos_t * got_y[i] - sin_t * x[i])));
  }
  EXPECT(rot_err < 1e-4f, "SROT (host c and s) matches the host reference");

  // A batch through device arrays of pointers, its `info` one int in host memory (checked on the
  // client, the solve posted).
  LuSystems lus;
  if (upload_lu_systems(&lus)) return 1;
  float** dptrs = lus.dptrs;
  int* dpiv = lus.dpiv;
  float* drhs = lus.drhs;
  int info = 123;
  CHECK_BLAS(cublasSgetrsBatched(h, CUBLAS_OP_N, 2, 1, dptrs, 2, dpiv, dptrs + 2, 2, &info, 2));
  float solved[2][2];
  CHECK_CUDA(cudaMemcpy(solved, drhs, sizeof solved, cudaMemcpyDeviceToHost));
  EXPECT(info == 0, "SGETRS batched: its host info comes back");
  EXPECT(std::fabs(solved[0][0] - 1) < 1e-5f && std::fabs(solved[0][1] - 2) < 1e-5f &&
             std::fabs(solved[1][0] - 1) < 1e-5f && std::fabs(solved[1][1] - 2) < 1e-5f,
         "SGETRS batched solves each system through the device arrays of pointers");
  info = 123;
  EXPECT(cublasSgetrsBatched(h, CUBLAS_OP_N, 2, 1, dptrs, 1, dpiv, dptrs + 2, 2, &info, 2) ==
                 CUBLAS_STATUS_INVALID_VALUE &&
             info == -5,
         "SGETRS batched: a bad lda comes back as info -5 (cuBLAS counts from trans = 1)");
  if (free_lu_systems(lus)) return 1;

  // Not supported: by the shim (not forwarded), and by the emulated backend (forwarded, sync).
  float ra = 1, rb = 2, rc = 0, rs = 0;
  EXPECT(cublasSrotg(h, &ra, &rb, &rc, &rs) == CUBLAS_STATUS_NOT_SUPPORTED,
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
