// What cuBLASLt says about itself, answered locally: the version of the headers this shim was
// built with (cuBLAS 13), library properties, status names and texts; and its logger, which has
// nothing to log on the client (no cuBLASLt code runs here).
#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "common/cublaslt/library_property.h"
#include "common/cublaslt/status_text.h"

extern "C" {  // exported by the shim's version script

size_t cublasLtGetVersion(void) { return CUBLAS_VERSION; }

size_t cublasLtGetCudartVersion(void) { return CUDART_VERSION; }

cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int* value) {
  return rgpu::cublaslt::library_property(type, value);
}

const char* cublasLtGetStatusName(cublasStatus_t status) { return rgpu::cublaslt::status_text(status).name; }

const char* cublasLtGetStatusString(cublasStatus_t status) { return rgpu::cublaslt::status_text(status).text; }

// The logger settings succeed and change nothing: the shim never calls a callback, as the client
// runs no cuBLASLt code that would log (the server's library logs on the server, if asked there).
cublasStatus_t cublasLtLoggerSetCallback(cublasLtLoggerCallback_t) { return CUBLAS_STATUS_SUCCESS; }

cublasStatus_t cublasLtLoggerSetLevel(int level) {
  return level >= 0 && level <= 5 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

cublasStatus_t cublasLtLoggerSetMask(int mask) {
  return mask >= 0 && mask <= 31 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

cublasStatus_t cublasLtLoggerForceDisable() { return CUBLAS_STATUS_SUCCESS; }

}  // extern "C"
