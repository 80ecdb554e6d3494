// The emulated cuSOLVER: its version, dense handles (stream) and generic-API parameters, and the LU and
// Cholesky routines CI runs end to end: cusolverDnSgetrf (with its buffer size) and Sgetrs,
// cusolverDnDpotrf (with its buffer size) and Dpotrs, and the generic API's cusolverDnXgetrf in
// float and double (with its device and host workspace sizes), on the CPU in the handle's stream.
// With exactly the signatures of cusolverDn.h (checked in cusolver.cpp's table); everything else
// is absent, so the dispatch answers it not available.
#pragma once

#include <cusolverDn.h>

namespace rgpu::server::emulated {

cusolverStatus_t cusolverGetVersion(int* version);
cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t* handle);
cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t handle);
cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t handle, cudaStream_t streamId);
cusolverStatus_t cusolverDnCreateParams(cusolverDnParams_t* params);
cusolverStatus_t cusolverDnDestroyParams(cusolverDnParams_t params);

cusolverStatus_t cusolverDnSgetrf_bufferSize(cusolverDnHandle_t handle, int m, int n, float* A, int lda, int* Lwork);
cusolverStatus_t cusolverDnSgetrf(cusolverDnHandle_t handle, int m, int n, float* A, int lda, float* Workspace,
                                  int* devIpiv, int* devInfo);
cusolverStatus_t cusolverDnSgetrs(cusolverDnHandle_t handle, cublasOperation_t trans, int n, int nrhs, const float* A,
                                  int lda, const int* devIpiv, float* B, int ldb, int* devInfo);
cusolverStatus_t cusolverDnDpotrf_bufferSize(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, double* A,
                                             int lda, int* Lwork);
cusolverStatus_t cusolverDnDpotrf(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, double* A, int lda,
                                  double* Workspace, int Lwork, int* devInfo);
cusolverStatus_t cusolverDnDpotrs(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, int nrhs, const double* A,
                                  int lda, double* B, int ldb, int* devInfo);
cusolverStatus_t cusolverDnXgetrf_bufferSize(cusolverDnHandle_t handle, cusolverDnParams_t params, int64_t m,
                                             int64_t n, cudaDataType dataTypeA, const void* A, int64_t lda,
                                             cudaDataType computeType, size_t* workspaceInBytesOnDevice,
                                             size_t* workspaceInBytesOnHost);
cusolverStatus_t cusolverDnXgetrf(cusolverDnHandle_t handle, cusolverDnParams_t params, int64_t m, int64_t n,
                                  cudaDataType dataTypeA, void* A, int64_t lda, int64_t* ipiv, cudaDataType computeType,
                                  void* bufferOnDevice, size_t workspaceInBytesOnDevice, void* bufferOnHost,
                                  size_t workspaceInBytesOnHost, int* info);

// The name -> entry point table above, as the resolver that load_api takes.
void* resolve_cusolver(const char* name, void* ctx);

}  // namespace rgpu::server::emulated
