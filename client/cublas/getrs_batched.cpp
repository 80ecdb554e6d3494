// cuBLAS's batched LU solve (getrs) on the client. Its host `info` only names a wrong argument,
// found before any work is queued: checked here as cuBLAS checks (common/cublas/getrs_arguments.h;
// the GPU suite's 23_cublas compares each case with the real library), the solve is then posted
// without waiting. Solvers built on it (MAGMA inside PyTorch) call it every step, and a wait each
// time was a round trip a step. A failure of the solve itself on the server is logged, like any
// async cuBLAS call's.
#include <cublas_api.h>

#include "client/cublas/handle_mirror.h"
#include "common/cublas/getrs_arguments.h"
#include "gen/cublas/cublas_remote.h"

namespace remote = rgpu::gen::cublas::remote;

namespace {

// Checks, writes `info`, and posts the solve through `post` when the arguments are right.
template <typename Post>
cublasStatus_t checked_solve(cublasHandle_t handle, cublasOperation_t trans, int n, int nrhs, int lda, int ldb,
                             int* info, int batch_size, Post post) {
  if (!rgpu::client::cublas::mirror().get(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!info) return CUBLAS_STATUS_INVALID_VALUE;
  *info = rgpu::cublas::getrs_wrong_argument(trans, n, nrhs, lda, ldb);
  if (*info != 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (batch_size < 0) return CUBLAS_STATUS_EXECUTION_FAILED;
  return post();
}

}  // namespace

extern "C" {  // exported by the shim's version script

cublasStatus_t cublasSgetrsBatched(cublasHandle_t handle, cublasOperation_t trans, int n, int nrhs,
                                   const float* const Aarray[], int lda, const int* devIpiv, float* const Barray[],
                                   int ldb, int* info, int batchSize) {
  return checked_solve(handle, trans, n, nrhs, lda, ldb, info, batchSize, [&] {
    return remote::cublasSgetrsBatched(handle, trans, n, nrhs, Aarray, lda, devIpiv, Barray, ldb, info, batchSize);
  });
}

cublasStatus_t cublasDgetrsBatched(cublasHandle_t handle, cublasOperation_t trans, int n, int nrhs,
                                   const double* const Aarray[], int lda, const int* devIpiv, double* const Barray[],
                                   int ldb, int* info, int batchSize) {
  return checked_solve(handle, trans, n, nrhs, lda, ldb, info, batchSize, [&] {
    return remote::cublasDgetrsBatched(handle, trans, n, nrhs, Aarray, lda, devIpiv, Barray, ldb, info, batchSize);
  });
}

cublasStatus_t cublasCgetrsBatched(cublasHandle_t handle, cublasOperation_t trans, int n, int nrhs,
                                   const cuComplex* const Aarray[], int lda, const int* devIpiv,
                                   cuComplex* const Barray[], int ldb, int* info, int batchSize) {
  return checked_solve(handle, trans, n, nrhs, lda, ldb, info, batchSize, [&] {
    return remote::cublasCgetrsBatched(handle, trans, n, nrhs, Aarray, lda, devIpiv, Barray, ldb, info, batchSize);
  });
}

cublasStatus_t cublasZgetrsBatched(cublasHandle_t handle, cublasOperation_t trans, int n, int nrhs,
                                   const cuDoubleComplex* const Aarray[], int lda, const int* devIpiv,
                                   cuDoubleComplex* const Barray[], int ldb, int* info, int batchSize) {
  return checked_solve(handle, trans, n, nrhs, lda, ldb, info, batchSize, [&] {
    return remote::cublasZgetrsBatched(handle, trans, n, nrhs, Aarray, lda, devIpiv, Barray, ldb, info, batchSize);
  });
}

}  // extern "C"
