// The client's mirror of each cuBLAS handle's settings. Setters update it before they are sent
// (async), getters answer from it, and the generated compute stubs read the pointer mode from it
// to decide whether alpha, beta and result travel as values (host memory) or as device addresses.
#pragma once

#include <cublas_api.h>

#include "client/runtime/settings_mirror.h"

namespace rgpu::client::cublas {

struct HandleSettings {
  cudaStream_t stream = nullptr;
  cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
  cublasMath_t math_mode = CUBLAS_DEFAULT_MATH;
  cublasAtomicsMode_t atomics_mode = CUBLAS_ATOMICS_NOT_ALLOWED;
  int sm_count_target = 0;
};

using Mirror = SettingsMirror<cublasHandle_t, HandleSettings, cublasStatus_t>;
Mirror& mirror();

// Whether the handle's scalars are in host memory (true too for an unknown handle: the call then
// fails on the server, which does not know it either).
bool host_pointer_mode(cublasHandle_t handle);

}  // namespace rgpu::client::cublas
