// Emulated cuBLAS, the legacy API (cublas.h) as the real library serves it: one implicit handle per
// process, made by cublasInit, over which each call runs the handle API's routine; scalars by
// value; each call's failure kept for cublasGetError, which reads and clears it. The handle API's
// routines are called qualified: the real ones, declared by the same headers, would be as good a
// match by argument-dependent lookup.
#include <mutex>

#include "server/backends/emulated/cublas.h"

namespace rgpu::server::emulated {
namespace {

struct Legacy {
  std::mutex mu;
  cublasHandle_t handle = nullptr;  // null until cublasInit
  cublasStatus_t error = CUBLAS_STATUS_SUCCESS;
};

Legacy& legacy() {
  static Legacy l;
  return l;
}

// The implicit handle, or null (and NOT_INITIALIZED kept) before cublasInit.
cublasHandle_t implicit_handle() {
  std::lock_guard lock(legacy().mu);
  if (!legacy().handle) legacy().error = CUBLAS_STATUS_NOT_INITIALIZED;
  return legacy().handle;
}

void keep(cublasStatus_t status) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  std::lock_guard lock(legacy().mu);
  legacy().error = status;
}

// The handle API's operation for a legacy transpose character; false for any other character.
bool operation(char op, cublasOperation_t* out) {
  switch (op) {
    case 'N': case 'n': *out = CUBLAS_OP_N; return true;
    case 'T': case 't': *out = CUBLAS_OP_T; return true;
    case 'C': case 'c': *out = CUBLAS_OP_C; return true;
    default: return false;
  }
}

}  // namespace

cublasStatus_t cublasInit() {
  std::lock_guard lock(legacy().mu);
  if (legacy().handle) return CUBLAS_STATUS_SUCCESS;
  return emulated::cublasCreate_v2(&legacy().handle);
}

cublasStatus_t cublasShutdown() {
  std::lock_guard lock(legacy().mu);
  if (!legacy().handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  const cublasStatus_t status = emulated::cublasDestroy_v2(legacy().handle);
  legacy().handle = nullptr;
  return status;
}

cublasStatus_t cublasGetError() {
  std::lock_guard lock(legacy().mu);
  const cublasStatus_t status = legacy().error;
  legacy().error = CUBLAS_STATUS_SUCCESS;
  return status;
}

cublasStatus_t cublasSetKernelStream(cudaStream_t stream) {
  cublasHandle_t h = implicit_handle();
  return h ? emulated::cublasSetStream_v2(h, stream) : CUBLAS_STATUS_NOT_INITIALIZED;
}

void cublasSaxpy(int n, float alpha, const float* x, int incx, float* y, int incy) {
  if (cublasHandle_t h = implicit_handle()) keep(emulated::cublasSaxpy_v2_64(h, n, &alpha, x, incx, y, incy));
}

float cublasSdot(int n, const float* x, int incx, const float* y, int incy) {
  float result = 0;
  if (cublasHandle_t h = implicit_handle()) keep(emulated::cublasSdot_v2(h, n, x, incx, y, incy, &result));
  return result;
}

void cublasSgemm(char transa, char transb, int m, int n, int k, float alpha, const float* A, int lda, const float* B,
                 int ldb, float beta, float* C, int ldc) {
  cublasHandle_t h = implicit_handle();
  if (!h) return;
  cublasOperation_t a, b;
  if (!operation(transa, &a) || !operation(transb, &b)) return keep(CUBLAS_STATUS_INVALID_VALUE);
  keep(emulated::cublasSgemm_v2(h, a, b, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc));
}

}  // namespace rgpu::server::emulated
