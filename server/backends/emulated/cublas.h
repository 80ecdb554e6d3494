// The emulated cuBLAS: a CPU reference for the calls CI exercises end to end (handles, their
// stream and pointer mode, SGEMM, SDOT, and one call of each shape the spec's families add: 64-bit
// indices, the rotation's scalars, a batch's device arrays of pointers with a host `info`, and the
// legacy API's implicit handle, error and routines), with exactly the signatures of cublas.h and
// cublas_api.h (checked in cublas_table.cpp). Everything else stays null in the table: CUBLAS_STATUS_NOT_SUPPORTED.
#pragma once

#include <cublas_api.h>

namespace rgpu::server::emulated {

// Handles (cublas_handles.cpp)
cublasStatus_t cublasCreate_v2(cublasHandle_t* handle);
cublasStatus_t cublasDestroy_v2(cublasHandle_t handle);
cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId);
cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode);
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode);

// Compute (cublas_blas.cpp)
cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                              int k, const float* alpha, const float* A, int lda, const float* B, int ldb,
                              const float* beta, float* C, int ldc);
cublasStatus_t cublasSdot_v2(cublasHandle_t handle, int n, const float* x, int incx, const float* y, int incy,
                             float* result);
cublasStatus_t cublasSaxpy_v2_64(cublasHandle_t handle, int64_t n, const float* alpha, const float* x, int64_t incx,
                                 float* y, int64_t incy);
cublasStatus_t cublasSrot_v2(cublasHandle_t handle, int n, float* x, int incx, float* y, int incy, const float* c,
                             const float* s);
cublasStatus_t cublasSetVector(int n, int elemSize, const void* x, int incx, void* devicePtr, int incy);
cublasStatus_t cublasGetVector(int n, int elemSize, const void* x, int incx, void* y, int incy);
cublasStatus_t cublasSgetrsBatched(cublasHandle_t handle, cublasOperation_t trans, int n, int nrhs,
                                   const float* const Aarray[], int lda, const int* devIpiv, float* const Barray[],
                                   int ldb, int* info, int batchSize);

// The legacy API (cublas_legacy.cpp): its implicit handle, its kept error, and three routines.
cublasStatus_t cublasInit();
cublasStatus_t cublasShutdown();
cublasStatus_t cublasGetError();
cublasStatus_t cublasSetKernelStream(cudaStream_t stream);
void cublasSaxpy(int n, float alpha, const float* x, int incx, float* y, int incy);
float cublasSdot(int n, const float* x, int incx, const float* y, int incy);
void cublasSgemm(char transa, char transb, int m, int n, int k, float alpha, const float* A, int lda, const float* B,
                 int ldb, float beta, float* C, int ldc);

// The name -> entry point table above, as the resolver that load_api takes (cublas_table.cpp).
void* resolve_cublas(const char* name, void* ctx);

}  // namespace rgpu::server::emulated
