// The emulated cuBLAS handles: what a cublasHandle_t points at, and the table that validates one
// before use (an unknown handle is CUBLAS_STATUS_NOT_INITIALIZED, never a dereference).
#pragma once

#include <cublas_api.h>

#include <optional>

namespace rgpu::server::emulated {

struct CublasSettings {
  cudaStream_t stream = nullptr;
  cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
  cublasMath_t math_mode = CUBLAS_DEFAULT_MATH;
};

// A copy of the handle's settings, or nothing when the handle is unknown.
std::optional<CublasSettings> cublas_settings(cublasHandle_t handle);

}  // namespace rgpu::server::emulated
