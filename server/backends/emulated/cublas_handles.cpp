// Emulated cuBLAS: handle creation, destruction and settings.
#include <mutex>

#include "server/backends/emulated/cublas.h"
#include "server/backends/emulated/cublas_handle.h"
#include "server/backends/emulated/handle_table.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
namespace {

HandleTable<cublasHandle_t, CublasSettings>& handles() {
  static HandleTable<cublasHandle_t, CublasSettings> table;
  return table;
}

// Applies `change` to the handle's settings under the table's lock; an unknown handle is not initialized.
template <typename F>
cublasStatus_t update(cublasHandle_t handle, F change) {
  return handles().update(handle, change) ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

}  // namespace

std::optional<CublasSettings> cublas_settings(cublasHandle_t handle) { return handles().get(handle); }

cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
  *handle = handles().create();
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  return handles().destroy(handle) ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId) {
  {
    std::lock_guard lock(state().mu);
    Stream* s = nullptr;
    if (state().resolve_stream(streamId, &s) != cudaSuccess) return CUBLAS_STATUS_INVALID_VALUE;
  }
  return update(handle, [&](CublasSettings& h) { h.stream = streamId; });
}

cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode) {
  if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE) return CUBLAS_STATUS_INVALID_VALUE;
  return update(handle, [&](CublasSettings& h) { h.pointer_mode = mode; });
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  return update(handle, [&](CublasSettings& h) { h.math_mode = mode; });
}

}  // namespace rgpu::server::emulated
