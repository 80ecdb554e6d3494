// The argument check of cuBLAS's batched LU solve (cublas?getrsBatched), as the real library makes
// it (measured case by case on an H100, cuBLAS 13): the client shim answers it without a round
// trip, and the emulated backend, standing in for the library, answers alike.
#pragma once

#include <cublas_api.h>

#include <algorithm>

namespace rgpu::cublas {

// What cuBLAS writes to `info`: 0, or the first wrong argument's position negated, counted from
// trans = 1 (the handle is not counted). A negative batch count is not named there: cuBLAS
// launches nothing and answers CUBLAS_STATUS_EXECUTION_FAILED with info 0.
inline int getrs_wrong_argument(cublasOperation_t trans, int n, int nrhs, int lda, int ldb) {
  if (trans != CUBLAS_OP_N && trans != CUBLAS_OP_T && trans != CUBLAS_OP_C) return -1;
  if (n < 0) return -2;
  if (nrhs < 0) return -3;
  if (lda < std::max(1, n)) return -5;
  if (ldb < std::max(1, n)) return -8;
  return 0;
}

}  // namespace rgpu::cublas
