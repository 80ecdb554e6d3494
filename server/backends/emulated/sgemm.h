// The emulated single-precision GEMM (cublas_blas.cpp): one CPU reference that cublasSgemm and
// cublasLtMatmul (FP32, with its bias epilogue) both issue.
#pragma once

#include <cublas_api.h>

namespace rgpu::server::emulated {

// D = alpha * op(A) * op(B) + beta * C (+ bias, per row), column-major, issued in `stream`.
struct SgemmCall {
  cudaStream_t stream = nullptr;
  cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;  // where alpha and beta are
  cublasOperation_t transa = CUBLAS_OP_N, transb = CUBLAS_OP_N;
  int m = 0, n = 0, k = 0;
  const float* alpha = nullptr;
  const float* A = nullptr;
  int lda = 0;
  const float* B = nullptr;
  int ldb = 0;
  const float* beta = nullptr;
  const float* C = nullptr;
  int ldc = 0;
  float* D = nullptr;  // may be C (cublasSgemm)
  int ldd = 0;
  const float* bias = nullptr;  // m elements in device memory, or none
};

// CUBLAS_STATUS_INVALID_VALUE for dimensions or memory that do not fit, else issued (or failed to).
cublasStatus_t sgemm(const SgemmCall& call);

}  // namespace rgpu::server::emulated
