// What cuBLAS says about itself, answered locally: the version of the headers this shim was
// built with (cuBLAS 13), library properties, and the names and texts of its status codes.
#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <library_types.h>

namespace {

struct StatusText {
  const char* name;
  const char* text;
};

StatusText status_text(cublasStatus_t status) {
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

}  // namespace

extern "C" {  // exported by the shim's version script

cublasStatus_t cublasGetVersion_v2(cublasHandle_t, int* version) {
  if (!version) return CUBLAS_STATUS_INVALID_VALUE;
  *version = CUBLAS_VERSION;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetProperty(libraryPropertyType type, int* value) {
  if (!value) return CUBLAS_STATUS_INVALID_VALUE;
  switch (type) {
    case MAJOR_VERSION: *value = CUBLAS_VER_MAJOR; return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CUBLAS_VER_MINOR; return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CUBLAS_VER_PATCH; return CUBLAS_STATUS_SUCCESS;
  }
  return CUBLAS_STATUS_INVALID_VALUE;
}

size_t cublasGetCudartVersion(void) { return CUDART_VERSION; }

const char* cublasGetStatusName(cublasStatus_t status) { return status_text(status).name; }

const char* cublasGetStatusString(cublasStatus_t status) { return status_text(status).text; }

}  // extern "C"
