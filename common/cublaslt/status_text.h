// Names and texts of cublasStatus_t values, shared by the cuBLAS and cuBLASLt shims
// (cublasGetStatusName/String and cublasLtGetStatusName/String answer the same).
#pragma once

#include <cublas_api.h>

namespace rgpu::cublaslt {

struct StatusText {
  const char* name;
  const char* text;
};

inline StatusText status_text(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return {"CUBLAS_STATUS_SUCCESS", "the operation completed successfully"};
    case CUBLAS_STATUS_NOT_INITIALIZED: return {"CUBLAS_STATUS_NOT_INITIALIZED", "the library was not initialized"};
    case CUBLAS_STATUS_ALLOC_FAILED: return {"CUBLAS_STATUS_ALLOC_FAILED", "the resource allocation failed"};
    case CUBLAS_STATUS_INVALID_VALUE: return {"CUBLAS_STATUS_INVALID_VALUE", "an invalid numeric value was used as an argument"};
    case CUBLAS_STATUS_ARCH_MISMATCH: return {"CUBLAS_STATUS_ARCH_MISMATCH", "an absent device architectural feature is required"};
    case CUBLAS_STATUS_MAPPING_ERROR: return {"CUBLAS_STATUS_MAPPING_ERROR", "an access to GPU memory space failed"};
    case CUBLAS_STATUS_EXECUTION_FAILED: return {"CUBLAS_STATUS_EXECUTION_FAILED", "the GPU program failed to execute"};
    case CUBLAS_STATUS_INTERNAL_ERROR: return {"CUBLAS_STATUS_INTERNAL_ERROR", "an internal operation failed"};
    case CUBLAS_STATUS_NOT_SUPPORTED: return {"CUBLAS_STATUS_NOT_SUPPORTED", "the functionality requested is not supported"};
    case CUBLAS_STATUS_LICENSE_ERROR: return {"CUBLAS_STATUS_LICENSE_ERROR", "an error was detected when checking the current licensing"};
  }
  return {"<unknown>", "<unknown>"};
}

}  // namespace rgpu::cublaslt
