// Emulated cuBLAS: handle creation, destruction and settings.
#include <memory>
#include <mutex>
#include <unordered_map>

#include "server/backends/emulated/cublas.h"
#include "server/backends/emulated/cublas_handle.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
namespace {

struct Handles {
  std::mutex mu;
  std::unordered_map<cublasHandle_t, std::unique_ptr<CublasSettings>> map;
};

Handles& handles() {
  static Handles h;
  return h;
}

// Applies `change` to the handle's settings under the table's lock.
template <typename F>
cublasStatus_t update(cublasHandle_t handle, F change) {
  std::lock_guard lock(handles().mu);
  auto it = handles().map.find(handle);
  if (it == handles().map.end()) return CUBLAS_STATUS_NOT_INITIALIZED;
  return change(*it->second);
}

}  // namespace

std::optional<CublasSettings> cublas_settings(cublasHandle_t handle) {
  std::lock_guard lock(handles().mu);
  auto it = handles().map.find(handle);
  if (it == handles().map.end()) return std::nullopt;
  return *it->second;
}

cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
  auto settings = std::make_unique<CublasSettings>();
  *handle = reinterpret_cast<cublasHandle_t>(settings.get());
  std::lock_guard lock(handles().mu);
  handles().map.emplace(*handle, std::move(settings));
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  std::lock_guard lock(handles().mu);
  return handles().map.erase(handle) ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId) {
  {
    std::lock_guard lock(state().mu);
    Stream* s = nullptr;
    if (state().resolve_stream(streamId, &s) != cudaSuccess) return CUBLAS_STATUS_INVALID_VALUE;
  }
  return update(handle, [&](CublasSettings& h) {
    h.stream = streamId;
    return CUBLAS_STATUS_SUCCESS;
  });
}

cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode) {
  if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE) return CUBLAS_STATUS_INVALID_VALUE;
  return update(handle, [&](CublasSettings& h) {
    h.pointer_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
  });
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  return update(handle, [&](CublasSettings& h) {
    h.math_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
  });
}

}  // namespace rgpu::server::emulated
