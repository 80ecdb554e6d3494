// cublasGetProperty and cublasLtGetProperty answer alike: cuBLAS and cuBLASLt ship as one release,
// so both report the version of the cuBLAS headers the shims were built with.
#pragma once

#include <cublas_api.h>
#include <library_types.h>

namespace rgpu::cublaslt {

inline cublasStatus_t library_property(libraryPropertyType type, int* value) {
  if (!value) return CUBLAS_STATUS_INVALID_VALUE;
  switch (type) {
    case MAJOR_VERSION: *value = CUBLAS_VER_MAJOR; return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CUBLAS_VER_MINOR; return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CUBLAS_VER_PATCH; return CUBLAS_STATUS_SUCCESS;
  }
  return CUBLAS_STATUS_INVALID_VALUE;
}

}  // namespace rgpu::cublaslt
