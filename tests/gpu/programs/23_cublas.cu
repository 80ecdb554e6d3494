// cuBLAS through the libcublas.so.13 shim: handle settings and their getters, SGEMM, DGEMM, GemmEx
// with FP16 and BF16 inputs computed in FP32, strided and pointer-array batches, host <-> device
// helpers, level 1 and 2 calls, SDOT with the result in host and in device memory, DSYMM, DAXPY
// with 64-bit indices, and batched LU and solve. All data are small integers, so every product is
// exact and checked against a CPU loop to the last bit (the solve to 1e-9); checksums are printed
// as integers.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <vector>

#include "suite_check.h"

#define CHECK_BLAS(call) check_blas((call), #call, __LINE__)
inline void check_blas(cublasStatus_t status, const char* call, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    say("FAIL: %s returned %s (line %d)\n", call, cublasGetStatusName(status), line);
    exit(1);
  }
}

namespace {

// Small integers in [-3, 3], different per seed.
std::vector<double> ints(size_t n, int seed) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * 5 + i / 11 + size_t(seed) * 3) % 7) - 3.0;
  return v;
}

// C = alpha * op(A) * op(B) + beta * C, column-major, in double (exact for these integers).
void reference_gemm(bool ta, bool tb, int m, int n, int k, double alpha, const double* a, int lda, const double* b,
                    int ldb, double beta, double* c, int ldc) {
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      double sum = 0;
      for (int l = 0; l < k; ++l) sum += (ta ? a[l + i * lda] : a[i + l * lda]) * (tb ? b[j + l * ldb] : b[l + j * ldb]);
      c[i + j * ldc] = alpha * sum + beta * c[i + j * ldc];
    }
  }
}

template <typename T>
std::vector<T> cast(const std::vector<double>& v) {
  std::vector<T> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<T>(v[i]);
  return out;
}

// Prints the checksum and the largest difference from the CPU result, which must be 0.
template <typename T>
void report(const char* what, const std::vector<T>& got, const std::vector<double>& want) {
  double max_error = 0, checksum = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    max_error = std::fmax(max_error, std::fabs(static_cast<double>(got[i]) - want[i]));
    checksum += static_cast<double>(got[i]);
  }
  say("%s: checksum %.0f, max abs error %g\n", what, checksum, max_error);
  expect(max_error == 0, what);
}


}  // namespace

int main() {
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  // ---- settings and getters ----
  int major = 0;
  CHECK_BLAS(cublasGetProperty(MAJOR_VERSION, &major));
  say("cuBLAS major version: %d\n", major);
  CHECK_BLAS(cublasSetStream(h, stream));
  cudaStream_t got_stream = nullptr;
  CHECK_BLAS(cublasGetStream(h, &got_stream));
  expect(got_stream == stream, "cublasGetStream returns the stream set");
  CHECK_BLAS(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
  cublasMath_t math;
  CHECK_BLAS(cublasGetMathMode(h, &math));
  expect(math == CUBLAS_PEDANTIC_MATH, "cublasGetMathMode returns the mode set");
  CHECK_BLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  cublasPointerMode_t mode;
  CHECK_BLAS(cublasGetPointerMode(h, &mode));
  expect(mode == CUBLAS_POINTER_MODE_HOST, "the pointer mode starts as host");
  CHECK_BLAS(cublasSetAtomicsMode(h, CUBLAS_ATOMICS_ALLOWED));
  cublasAtomicsMode_t atomics;
  CHECK_BLAS(cublasGetAtomicsMode(h, &atomics));
  expect(atomics == CUBLAS_ATOMICS_ALLOWED, "cublasGetAtomicsMode returns the mode set");
  CHECK_BLAS(cublasSetAtomicsMode(h, CUBLAS_ATOMICS_NOT_ALLOWED));
  void* workspace = nullptr;
  CHECK_CUDA(cudaMalloc(&workspace, 4 << 20));
  CHECK_BLAS(cublasSetWorkspace(h, workspace, 4 << 20));

  const int m = 96, n = 80, k = 64;
  const std::vector<double> a = ints(size_t(m) * k, 1), b = ints(size_t(k) * n, 2), c0 = ints(size_t(m) * n, 3);

  // ---- SGEMM: N,N with beta, then T,N on the same data read as k x m ----
  {
    std::vector<float> af = cast<float>(a), bf = cast<float>(b), cf = cast<float>(c0);
    float *da = to_device(af), *db = to_device(bf), *dc = to_device(cf);
    const float alpha = 2, beta = -1;
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da, m, db, k, &beta, dc, m));
    std::vector<double> expect_c = c0;
    reference_gemm(false, false, m, n, k, 2, a.data(), m, b.data(), k, -1, expect_c.data(), m);
    report("sgemm NN 96x80x64", to_host(dc, cf.size(), stream), expect_c);
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, da, k, db, k, &beta, dc, m));
    reference_gemm(true, false, m, n, k, 2, a.data(), k, b.data(), k, -1, expect_c.data(), m);
    report("sgemm TN 96x80x64", to_host(dc, cf.size(), stream), expect_c);

    // Device pointer mode: alpha and beta in device memory.
    float* dscalars = to_device(std::vector<float>{3, 0});
    CHECK_BLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, dscalars, da, m, db, k, dscalars + 1, dc, m));
    CHECK_BLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    std::vector<double> zero(size_t(m) * n, 0.0);
    reference_gemm(false, false, m, n, k, 3, a.data(), m, b.data(), k, 0, zero.data(), m);
    report("sgemm device scalars", to_host(dc, cf.size(), stream), zero);
    CHECK_CUDA(cudaFree(da));
    CHECK_CUDA(cudaFree(db));
    CHECK_CUDA(cudaFree(dc));
    CHECK_CUDA(cudaFree(dscalars));
  }

  // ---- DGEMM ----
  {
    double *da = to_device(a), *db = to_device(b), *dc = to_device(c0);
    const double alpha = -1, beta = 2;
    CHECK_BLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &alpha, da, m, db, n, &beta, dc, m));
    std::vector<double> expect_c = c0;
    reference_gemm(false, true, m, n, k, -1, a.data(), m, b.data(), n, 2, expect_c.data(), m);
    report("dgemm NT 96x80x64", to_host(dc, c0.size(), stream), expect_c);
    CHECK_CUDA(cudaFree(da));
    CHECK_CUDA(cudaFree(db));
    CHECK_CUDA(cudaFree(dc));
  }

  // ---- GemmEx: FP16 and BF16 inputs, FP32 output and compute ----
  {
    std::vector<double> expect_c(size_t(m) * n, 0.0);
    reference_gemm(false, false, m, n, k, 1, a.data(), m, b.data(), k, 0, expect_c.data(), m);
    const float alpha = 1, beta = 0;
    float* dc = to_device(std::vector<float>(size_t(m) * n, 0.0f));
    std::vector<__half> ah(a.size()), bh(b.size());
    for (size_t i = 0; i < a.size(); ++i) ah[i] = __double2half(a[i]);
    for (size_t i = 0; i < b.size(); ++i) bh[i] = __double2half(b[i]);
    __half *dah = to_device(ah), *dbh = to_device(bh);
    CHECK_BLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dah, CUDA_R_16F, m, dbh, CUDA_R_16F, k,
                            &beta, dc, CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    report("gemmex fp16 in, fp32 out", to_host(dc, expect_c.size(), stream), expect_c);
    std::vector<__nv_bfloat16> ab(a.size()), bb(b.size());
    for (size_t i = 0; i < a.size(); ++i) ab[i] = __double2bfloat16(a[i]);
    for (size_t i = 0; i < b.size(); ++i) bb[i] = __double2bfloat16(b[i]);
    __nv_bfloat16 *dab = to_device(ab), *dbb = to_device(bb);
    CHECK_BLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dab, CUDA_R_16BF, m, dbb, CUDA_R_16BF, k,
                            &beta, dc, CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    report("gemmex bf16 in, fp32 out", to_host(dc, expect_c.size(), stream), expect_c);

    // Strided batch of 3 over FP16, each batch its own slice of A (B shared: stride 0).
    const int batch = 3;
    std::vector<double> a3 = ints(size_t(m) * k * batch, 4);
    std::vector<__half> a3h(a3.size());
    for (size_t i = 0; i < a3.size(); ++i) a3h[i] = __double2half(a3[i]);
    __half* da3 = to_device(a3h);
    float* dc3 = to_device(std::vector<float>(size_t(m) * n * batch, 0.0f));
    CHECK_BLAS(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da3, CUDA_R_16F, m,
                                          static_cast<long long>(m) * k, dbh, CUDA_R_16F, k, 0, &beta, dc3,
                                          CUDA_R_32F, m, static_cast<long long>(m) * n, batch, CUBLAS_COMPUTE_32F,
                                          CUBLAS_GEMM_DEFAULT));
    std::vector<double> expect3(size_t(m) * n * batch, 0.0);
    for (int i = 0; i < batch; ++i) {
      reference_gemm(false, false, m, n, k, 1, a3.data() + size_t(i) * m * k, m, b.data(), k, 0,
                     expect3.data() + size_t(i) * m * n, m);
    }
    report("gemm strided batched ex fp16 x3", to_host(dc3, expect3.size(), stream), expect3);
    CHECK_CUDA(cudaFree(dc));
    CHECK_CUDA(cudaFree(dah));
    CHECK_CUDA(cudaFree(dbh));
    CHECK_CUDA(cudaFree(dab));
    CHECK_CUDA(cudaFree(dbb));
    CHECK_CUDA(cudaFree(da3));
    CHECK_CUDA(cudaFree(dc3));
  }

  // ---- SGEMM batches: strided, and by arrays of device pointers (host memory) ----
  {
    const int batch = 4;
    std::vector<double> a4 = ints(size_t(m) * k * batch, 5), b4 = ints(size_t(k) * n * batch, 6);
    float *da = to_device(cast<float>(a4)), *db = to_device(cast<float>(b4));
    float* dc = to_device(std::vector<float>(size_t(m) * n * batch, 0.0f));
    const float alpha = 1, beta = 0;
    CHECK_BLAS(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da, m,
                                         static_cast<long long>(m) * k, db, k, static_cast<long long>(k) * n, &beta,
                                         dc, m, static_cast<long long>(m) * n, batch));
    std::vector<double> expect4(size_t(m) * n * batch, 0.0);
    for (int i = 0; i < batch; ++i) {
      reference_gemm(false, false, m, n, k, 1, a4.data() + size_t(i) * m * k, m, b4.data() + size_t(i) * k * n, k, 0,
                     expect4.data() + size_t(i) * m * n, m);
    }
    report("sgemm strided batched x4", to_host(dc, expect4.size(), stream), expect4);
    CHECK_CUDA(cudaMemsetAsync(dc, 0, expect4.size() * sizeof(float), stream));
    std::vector<const float*> pa(batch), pb(batch);
    std::vector<float*> pc(batch);
    for (int i = 0; i < batch; ++i) {
      pa[i] = da + size_t(i) * m * k;
      pb[i] = db + size_t(i) * k * n;
      pc[i] = dc + size_t(i) * m * n;
    }
    const float** dpa = to_device(pa);
    const float** dpb = to_device(pb);
    float** dpc = to_device(pc);
    CHECK_BLAS(cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dpa, m, dpb, k, &beta, dpc, m, batch));
    report("sgemm batched (pointer arrays) x4", to_host(dc, expect4.size(), stream), expect4);
    CHECK_CUDA(cudaFree(da));
    CHECK_CUDA(cudaFree(db));
    CHECK_CUDA(cudaFree(dc));
    CHECK_CUDA(cudaFree(dpa));
    CHECK_CUDA(cudaFree(dpb));
    CHECK_CUDA(cudaFree(dpc));
  }

  // ---- level 1 and 2, host <-> device helpers ----
  {
    const int len = 1000;
    std::vector<float> x = cast<float>(ints(len, 7)), y = cast<float>(ints(len, 8));
    float *dx = nullptr, *dy = nullptr, *dresult = nullptr;
    CHECK_CUDA(cudaMalloc(&dx, len * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dy, len * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dresult, sizeof(float)));
    CHECK_BLAS(cublasSetVector(len, sizeof(float), x.data(), 1, dx, 1));
    CHECK_BLAS(cublasSetVector(len, sizeof(float), y.data(), 1, dy, 1));
    double dot_ref = 0;
    for (int i = 0; i < len; ++i) dot_ref += double(x[i]) * y[i];
    float dot = 0;
    CHECK_BLAS(cublasSdot(h, len, dx, 1, dy, 1, &dot));  // host memory: waits
    say("sdot host result: %.0f (expected %.0f)\n", dot, dot_ref);
    expect(dot == dot_ref, "sdot into host memory");
    CHECK_BLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    CHECK_BLAS(cublasSdot(h, len / 2, dx, 2, dy, 2, dresult));  // device memory: does not wait
    CHECK_BLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    double dot2_ref = 0;
    for (int i = 0; i < len; i += 2) dot2_ref += double(x[i]) * y[i];
    std::vector<float> dot2 = to_host(dresult, 1, stream);
    say("sdot device result (stride 2): %.0f (expected %.0f)\n", dot2[0], dot2_ref);
    expect(dot2[0] == dot2_ref, "sdot into device memory");

    const float three = 3;
    CHECK_BLAS(cublasSaxpy(h, len, &three, dx, 1, dy, 1));  // y += 3x
    std::vector<float> y2(len);
    CHECK_BLAS(cublasGetVector(len, sizeof(float), dy, 1, y2.data(), 1));
    std::vector<double> expect_y(len);
    for (int i = 0; i < len; ++i) expect_y[i] = y[i] + 3.0 * x[i];
    report("saxpy + cublasGetVector", y2, expect_y);
    int imax = 0;
    CHECK_BLAS(cublasIsamax(h, len, dy, 1, &imax));
    say("isamax: %d\n", imax);
    float norm = 0;
    CHECK_BLAS(cublasSnrm2(h, len, dx, 1, &norm));
    say("snrm2: %.3f\n", norm);

    // gemv: y = A x for a 40 x 25 A set with cublasSetMatrix into a 48-row (padded) allocation.
    const int rows = 40, cols = 25, ld = 48;
    std::vector<float> am = cast<float>(ints(size_t(rows) * cols, 9));
    float *dam = nullptr, *dv = nullptr;
    CHECK_CUDA(cudaMalloc(&dam, size_t(ld) * cols * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dv, rows * sizeof(float)));
    CHECK_BLAS(cublasSetMatrix(rows, cols, sizeof(float), am.data(), rows, dam, ld));
    const float one = 1, zero = 0;
    CHECK_BLAS(cublasSgemv(h, CUBLAS_OP_N, rows, cols, &one, dam, ld, dx, 1, &zero, dv, 1));
    std::vector<double> expect_v(rows, 0.0);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) expect_v[i] += double(am[i + j * rows]) * x[j];
    report("setmatrix + sgemv 40x25", to_host(dv, rows, stream), expect_v);
    std::vector<float> back(size_t(rows) * cols);
    CHECK_BLAS(cublasGetMatrix(rows, cols, sizeof(float), dam, ld, back.data(), rows));
    expect(back == am, "cublasGetMatrix returns what cublasSetMatrix stored");
    CHECK_CUDA(cudaFree(dx));
    CHECK_CUDA(cudaFree(dy));
    CHECK_CUDA(cudaFree(dresult));
    CHECK_CUDA(cudaFree(dam));
    CHECK_CUDA(cudaFree(dv));
  }

  // ---- the families the spec forwards by pattern: DSYMM, DAXPY with 64-bit indices, batched
  // LU and solve (getrf, then getrs with its info in host memory) ----
  {
    const int sm = 24, sn = 16;
    const std::vector<double> sa = ints(size_t(sm) * sm, 4), sb = ints(size_t(sm) * sn, 5), sc = ints(size_t(sm) * sn, 6);
    double *dsa = to_device(sa), *dsb = to_device(sb), *dsc = to_device(sc);
    const double alpha = 2, beta = -1;
    CHECK_BLAS(cublasDsymm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, sm, sn, &alpha, dsa, sm, dsb, sm, &beta, dsc, sm));
    std::vector<double> want = sc;
    for (int j = 0; j < sn; ++j)
      for (int i = 0; i < sm; ++i) {
        double sum = 0;  // only A's upper triangle is read
        for (int l = 0; l < sm; ++l) sum += (i <= l ? sa[i + l * sm] : sa[l + i * sm]) * sb[l + j * sm];
        want[i + j * sm] = alpha * sum + beta * sc[i + j * sm];
      }
    report("dsymm left upper 24x16", to_host(dsc, want.size(), stream), want);

    const int64_t len = 1000;
    const std::vector<double> x = ints(size_t(len), 7), y = ints(size_t(len), 8);
    double *dx = to_device(x), *dy = to_device(y);
    const double three = 3;
    CHECK_BLAS(cublasDaxpy_64(h, len, &three, dx, 1, dy, 1));
    std::vector<double> want_y(y);
    for (int64_t i = 0; i < len; ++i) want_y[size_t(i)] += 3 * x[size_t(i)];
    report("daxpy_64", to_host(dy, size_t(len), stream), want_y);

    // Three 8 x 8 diagonally dominant systems A x = b with integer solutions.
    const int ln = 8, batch = 3;
    std::vector<double> la(size_t(ln) * ln * batch), lb(size_t(ln) * batch), lx(size_t(ln) * batch);
    for (int t = 0; t < batch; ++t) {
      const std::vector<double> r = ints(size_t(ln) * ln, 10 + t), xs = ints(size_t(ln), 20 + t);
      for (int i = 0; i < ln * ln; ++i) la[size_t(t) * ln * ln + size_t(i)] = r[size_t(i)] + (i % (ln + 1) == 0 ? 40 : 0);
      for (int i = 0; i < ln; ++i) {
        lx[size_t(t) * ln + size_t(i)] = xs[size_t(i)];
        double sum = 0;
        for (int l = 0; l < ln; ++l) sum += la[size_t(t) * ln * ln + size_t(i + l * ln)] * xs[size_t(l)];
        lb[size_t(t) * ln + size_t(i)] = sum;
      }
    }
    double *dla = to_device(la), *dlb = to_device(lb);
    std::vector<double*> ptrs;
    for (int t = 0; t < batch; ++t) ptrs.push_back(dla + size_t(t) * ln * ln);
    for (int t = 0; t < batch; ++t) ptrs.push_back(dlb + size_t(t) * ln);
    double** dptrs = to_device(ptrs);
    int* dpiv = nullptr;
    int* dinfo = nullptr;
    CHECK_CUDA(cudaMalloc(&dpiv, size_t(ln) * batch * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&dinfo, batch * sizeof(int)));
    CHECK_BLAS(cublasDgetrfBatched(h, ln, dptrs, ln, dpiv, dinfo, batch));
    int info = 123;
    CHECK_BLAS(cublasDgetrsBatched(h, CUBLAS_OP_N, ln, 1, dptrs, ln, dpiv, dptrs + batch, ln, &info, batch));
    expect(info == 0, "dgetrs batched: info 0 in host memory");
    const std::vector<int> infos = to_host(dinfo, size_t(batch), stream);
    expect(infos == std::vector<int>(size_t(batch), 0), "dgetrf batched: info 0 for each matrix, in device memory");
    const std::vector<double> solved = to_host(dlb, lb.size(), stream);
    double solve_error = 0;
    for (size_t i = 0; i < solved.size(); ++i) solve_error = std::fmax(solve_error, std::fabs(solved[i] - lx[i]));
    say("dgetrf + dgetrs batched 8x8 x3: max abs error %.1e\n", solve_error);
    expect(solve_error < 1e-9, "dgetrf + dgetrs batched solve each system");
    // Wrong arguments, one at a time and two at once: the status and the info naming the first
    // (rgpu checks them on the client, so these lines are compared with the real library's).
    struct BadSolve {
      const char* what;
      int trans, n, nrhs, lda, ldb, batch;
    };
    const BadSolve bad[] = {{"trans 99", 99, ln, 1, ln, ln, batch},    {"n -1", CUBLAS_OP_N, -1, 1, ln, ln, batch},
                            {"nrhs -1", CUBLAS_OP_N, ln, -1, ln, ln, batch}, {"lda < n", CUBLAS_OP_N, ln, 1, ln - 1, ln, batch},
                            {"ldb < n", CUBLAS_OP_N, ln, 1, ln, ln - 1, batch}, {"batch -1", CUBLAS_OP_N, ln, 1, ln, ln, -1},
                            {"nrhs -1 and ldb 0", CUBLAS_OP_N, ln, -1, ln, 0, batch},
                            {"n 0 (nothing to solve)", CUBLAS_OP_N, 0, 1, 1, 1, batch}};
    for (const BadSolve& b : bad) {
      info = 123;
      const cublasStatus_t st = cublasDgetrsBatched(h, static_cast<cublasOperation_t>(b.trans), b.n, b.nrhs, dptrs,
                                                    b.lda, dpiv, dptrs + batch, b.ldb, &info, b.batch);
      say("dgetrs batched with %s: status %d, info %d\n", b.what, static_cast<int>(st), info);
    }
    info = 123;
    (void)cublasDgetrsBatched(h, CUBLAS_OP_N, ln, 1, dptrs, ln - 1, dpiv, dptrs + batch, ln, &info, batch);
    expect(info == -5, "dgetrs batched: a bad lda comes back as info -5, naming it (trans is 1)");
    CHECK_CUDA(cudaDeviceSynchronize());  // no failure was left behind by the refused calls
    for (void* p : {static_cast<void*>(dsa), static_cast<void*>(dsb), static_cast<void*>(dsc), static_cast<void*>(dx),
                    static_cast<void*>(dy), static_cast<void*>(dla), static_cast<void*>(dlb),
                    static_cast<void*>(dptrs), static_cast<void*>(dpiv), static_cast<void*>(dinfo)})
      CHECK_CUDA(cudaFree(p));
  }

  CHECK_BLAS(cublasDestroy(h));
  CHECK_CUDA(cudaFree(workspace));
  CHECK_CUDA(cudaStreamDestroy(stream));
  return finish("23_cublas");
}
