// The legacy API's device memory (cublas.h: cublasAlloc, cublasFree) is the runtime shim's
// cudaMalloc and cudaFree: its allocations are in the client's map like any other, so copies to
// and from them are checked against it, and they go with the session.
#include <cublas_api.h>
#include <cuda_runtime_api.h>

#include <cstddef>

extern "C" {  // exported by the shim's version script

cublasStatus_t cublasAlloc(int n, int elemSize, void** devicePtr) {
  if (n <= 0 || elemSize <= 0 || !devicePtr) return CUBLAS_STATUS_INVALID_VALUE;
  // cuBLAS allocates with a runtime of its own: its failure is no error of the caller's runtime.
  const bool error_pending = cudaPeekAtLastError() != cudaSuccess;
  if (cudaMalloc(devicePtr, static_cast<size_t>(n) * static_cast<size_t>(elemSize)) != cudaSuccess) {
    if (!error_pending) (void)cudaGetLastError();
    return CUBLAS_STATUS_ALLOC_FAILED;
  }
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasFree(void* devicePtr) {
  const bool error_pending = cudaPeekAtLastError() != cudaSuccess;
  if (cudaFree(devicePtr) == cudaSuccess) return CUBLAS_STATUS_SUCCESS;
  if (!error_pending) (void)cudaGetLastError();
  return CUBLAS_STATUS_INTERNAL_ERROR;
}

}  // extern "C"
