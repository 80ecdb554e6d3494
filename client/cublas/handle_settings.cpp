// cuBLAS handles on the client: creation (a client-chosen id, sent without waiting), destruction,
// the setters (mirrored, then sent without waiting) and the getters (answered from the mirror).
#include <cublas_api.h>

#include "client/cublas/handle_mirror.h"
#include "gen/cublas/cublas_remote.h"

namespace remote = rgpu::gen::cublas::remote;
using rgpu::client::cublas::HandleSettings;
using rgpu::client::cublas::mirror;

extern "C" {  // exported by the shim's version script

cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
  cublasStatus_t status = remote::cublasCreate_v2(handle);
  if (status == CUBLAS_STATUS_SUCCESS) mirror().add(*handle);
  return status;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  if (!mirror().remove(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
  return remote::cublasDestroy_v2(handle);
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId) {
  return mirror().set(handle, [&](HandleSettings& s) { s.stream = streamId; },
                      [&] { return remote::cublasSetStream_v2(handle, streamId); });
}

cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void* workspace,
                                                                            size_t workspaceSizeInBytes) {
  // No getter reads the workspace back: only the handle's existence is checked here.
  return mirror().set(handle, [](HandleSettings&) {},
                      [&] { return remote::cublasSetWorkspace_v2(handle, workspace, workspaceSizeInBytes); });
}

cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle,
                                                                              cublasPointerMode_t mode) {
  if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE) return CUBLAS_STATUS_INVALID_VALUE;
  return mirror().set(handle, [&](HandleSettings& s) { s.pointer_mode = mode; },
                      [&] { return remote::cublasSetPointerMode_v2(handle, mode); });
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  return mirror().set(handle, [&](HandleSettings& s) { s.math_mode = mode; },
                      [&] { return remote::cublasSetMathMode(handle, mode); });
}

cublasStatus_t cublasSetAtomicsMode(cublasHandle_t handle,
                                                                           cublasAtomicsMode_t mode) {
  if (mode != CUBLAS_ATOMICS_NOT_ALLOWED && mode != CUBLAS_ATOMICS_ALLOWED) return CUBLAS_STATUS_INVALID_VALUE;
  return mirror().set(handle, [&](HandleSettings& s) { s.atomics_mode = mode; },
                      [&] { return remote::cublasSetAtomicsMode(handle, mode); });
}

cublasStatus_t cublasSetSmCountTarget(cublasHandle_t handle, int smCountTarget) {
  if (smCountTarget < 0) return CUBLAS_STATUS_INVALID_VALUE;
  return mirror().set(handle, [&](HandleSettings& s) { s.sm_count_target = smCountTarget; },
                      [&] { return remote::cublasSetSmCountTarget(handle, smCountTarget); });
}

cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t* streamId) {
  return mirror().read(handle, streamId, [](const HandleSettings& s) { return s.stream; });
}

cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle,
                                                                              cublasPointerMode_t* mode) {
  return mirror().read(handle, mode, [](const HandleSettings& s) { return s.pointer_mode; });
}

cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t* mode) {
  return mirror().read(handle, mode, [](const HandleSettings& s) { return s.math_mode; });
}

cublasStatus_t cublasGetAtomicsMode(cublasHandle_t handle,
                                                                           cublasAtomicsMode_t* mode) {
  return mirror().read(handle, mode, [](const HandleSettings& s) { return s.atomics_mode; });
}

cublasStatus_t cublasGetSmCountTarget(cublasHandle_t handle, int* smCountTarget) {
  return mirror().read(handle, smCountTarget, [](const HandleSettings& s) { return s.sm_count_target; });
}

}  // extern "C"
