// What cuBLAS says about itself, answered locally: the version of the headers this shim was
// built with (cuBLAS 13), library properties, and the names and texts of its status codes.
#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <library_types.h>

#include "common/cublaslt/library_property.h"
#include "common/cublaslt/status_text.h"

using rgpu::cublaslt::status_text;  // shared with the cuBLASLt shim

extern "C" {  // exported by the shim's version script

cublasStatus_t cublasGetVersion_v2(cublasHandle_t, int* version) {
  if (!version) return CUBLAS_STATUS_INVALID_VALUE;
  *version = CUBLAS_VERSION;
  return CUBLAS_STATUS_SUCCESS;
}

// The legacy API's (cublas.h) form of the same answer.
cublasStatus_t cublasGetVersion(int* version) { return cublasGetVersion_v2(nullptr, version); }

cublasStatus_t cublasGetProperty(libraryPropertyType type, int* value) {
  return rgpu::cublaslt::library_property(type, value);
}

size_t cublasGetCudartVersion(void) { return CUDART_VERSION; }

const char* cublasGetStatusName(cublasStatus_t status) { return status_text(status).name; }

const char* cublasGetStatusString(cublasStatus_t status) { return status_text(status).text; }

}  // extern "C"
