// cuBLAS's legacy API (cublas.h) through the libcublas.so.13 shim: cublasInit's implicit handle,
// cublasAlloc/cublasFree, matrices and vectors through cublasSetMatrix/GetVector, SGEMM and DGEMM
// with the transposes as characters, SAXPY, SDOT and CDOTU returning their values, ISAMAX, SROTG's
// host scalars, cublasGetError, and cublasShutdown. Small-integer data, so every
// result must equal the CPU's exactly; SROTG's outputs are printed to 9 digits.
#include <cublas.h>

#include <cmath>
#include <vector>

#include "suite_check.h"

namespace {

// Small integers in [-3, 3], different per seed.
std::vector<float> ints(size_t n, int seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 5 + i / 11 + size_t(seed) * 3) % 7) - 3.0f;
  return v;
}

template <typename T>
T* device_copy(const std::vector<T>& host) {
  T* d = nullptr;
  expect(cublasAlloc(static_cast<int>(host.size()), sizeof(T), reinterpret_cast<void**>(&d)) == CUBLAS_STATUS_SUCCESS,
         "cublasAlloc");
  expect(cublasSetVector(static_cast<int>(host.size()), sizeof(T), host.data(), 1, d, 1) == CUBLAS_STATUS_SUCCESS,
         "cublasSetVector");
  return d;
}

template <typename T>
std::vector<T> host_copy(const T* d, size_t n) {
  std::vector<T> host(n);
  expect(cublasGetVector(static_cast<int>(n), sizeof(T), d, 1, host.data(), 1) == CUBLAS_STATUS_SUCCESS,
         "cublasGetVector");
  return host;
}

}  // namespace

int main() {
  expect(cublasInit() == CUBLAS_STATUS_SUCCESS, "cublasInit");

  // SGEMM N,T: C (48 x 40) = 2 A (48 x 32) B^T (B: 40 x 32) - C.
  const int m = 48, n = 40, k = 32;
  const std::vector<float> a = ints(size_t(m) * k, 1), b = ints(size_t(n) * k, 2), c = ints(size_t(m) * n, 3);
  float *da = device_copy(a), *db = device_copy(b), *dc = device_copy(c);
  cublasSgemm('N', 'T', m, n, k, 2.0f, da, m, db, n, -1.0f, dc, m);
  expect(cublasGetError() == CUBLAS_STATUS_SUCCESS, "SGEMM: no error kept");
  std::vector<float> want = c;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double sum = 0;
      for (int l = 0; l < k; ++l) sum += double(a[i + l * m]) * b[j + l * n];
      want[i + j * m] = float(2 * sum - c[i + j * m]);
    }
  std::vector<float> got = host_copy(dc, want.size());
  double checksum = 0;
  for (float v : got) checksum += v;
  say("sgemm NT 48x40x32: checksum %.0f\n", checksum);
  expect(got == want, "SGEMM NT matches the CPU exactly");

  // DGEMM T,N on the same data read as doubles.
  std::vector<double> ad(a.begin(), a.end()), cd(c.begin(), c.end());
  double *dad = device_copy(ad), *dcd = device_copy(cd);
  cublasDgemm('T', 'N', k, k, m, 1.0, dad, m, dad, m, 0.0, dcd, k);  // A^T A, k x k
  std::vector<double> wantd(size_t(k) * k, 0.0);
  for (int j = 0; j < k; ++j)
    for (int i = 0; i < k; ++i)
      for (int l = 0; l < m; ++l) wantd[i + j * k] += ad[l + i * m] * ad[l + j * m];
  expect(host_copy(dcd, wantd.size()) == wantd, "DGEMM TN (A^T A) matches the CPU exactly");

  // Level 1: SAXPY, then values returned.
  const int len = 1000;
  const std::vector<float> x = ints(len, 4), y = ints(len, 5);
  float *dx = device_copy(x), *dy = device_copy(y);
  cublasSaxpy(len, 3.0f, dx, 1, dy, 1);
  std::vector<float> y2 = host_copy(dy, len);
  bool axpy_ok = true;
  for (int i = 0; i < len; ++i) axpy_ok &= y2[i] == y[i] + 3.0f * x[i];
  expect(axpy_ok, "SAXPY matches the CPU exactly");
  double dot_ref = 0;
  for (int i = 0; i < len; ++i) dot_ref += double(x[i]) * y2[i];
  const float dot = cublasSdot(len, dx, 1, dy, 1);
  say("sdot: %.0f (expected %.0f)\n", dot, dot_ref);
  expect(dot == dot_ref, "SDOT returns the exact dot product");
  const int imax = cublasIsamax(len, dy, 1);
  say("isamax: %d\n", imax);
  expect(std::fabs(y2[imax - 1]) == [&] {
    float m2 = 0;
    for (float v : y2) m2 = std::fmax(m2, std::fabs(v));
    return m2;
  }(), "ISAMAX points at a largest element (1-based)");

  std::vector<cuComplex> cx(64), cy(64);
  for (int i = 0; i < 64; ++i) {
    cx[i] = make_cuComplex(float(i % 5 - 2), float(i % 3 - 1));
    cy[i] = make_cuComplex(float(i % 4 - 1), float(i % 7 - 3));
  }
  cuComplex *dcx = device_copy(cx), *dcy = device_copy(cy);
  const cuComplex dotu = cublasCdotu(64, dcx, 1, dcy, 1);
  double re = 0, im = 0;
  for (int i = 0; i < 64; ++i) {
    re += double(cx[i].x) * cy[i].x - double(cx[i].y) * cy[i].y;
    im += double(cx[i].x) * cy[i].y + double(cx[i].y) * cy[i].x;
  }
  say("cdotu: %.0f%+.0fi (expected %.0f%+.0fi)\n", dotu.x, dotu.y, re, im);
  expect(dotu.x == re && dotu.y == im, "CDOTU returns the exact complex dot product");

  // SROTG: its four scalars are host memory.
  float sa = 3, sb = 4, sc = 0, ss = 0;
  cublasSrotg(&sa, &sb, &sc, &ss);
  say("srotg(3, 4): r %.9g z %.9g c %.9g s %.9g\n", sa, sb, sc, ss);
  expect(std::fabs(sa) == 5 && std::fabs(sc * sc + ss * ss - 1) < 1e-6f, "SROTG's r and (c, s) come back to host memory");

  expect(cublasGetError() == CUBLAS_STATUS_SUCCESS, "no error kept after the routines");

  for (void* p : {static_cast<void*>(da), static_cast<void*>(db), static_cast<void*>(dc), static_cast<void*>(dad),
                  static_cast<void*>(dcd), static_cast<void*>(dx), static_cast<void*>(dy), static_cast<void*>(dcx),
                  static_cast<void*>(dcy)})
    expect(cublasFree(p) == CUBLAS_STATUS_SUCCESS, "cublasFree");
  expect(cublasShutdown() == CUBLAS_STATUS_SUCCESS, "cublasShutdown");
  return finish("28_cublas_legacy");
}
