// The client's mirror of each cuSPARSE handle's settings: its stream and pointer mode. The
// setters update it before they are sent (async), the getters answer from it, and the generated
// stubs read the pointer mode from it to decide whether alpha, beta, the nnz counts and zero
// pivots travel as values (host memory) or as device addresses.
#pragma once

#include <cusparse.h>

#include "client/runtime/settings_mirror.h"

namespace rgpu::client::cusparse {

struct HandleSettings {
  cudaStream_t stream = nullptr;
  cusparsePointerMode_t pointer_mode = CUSPARSE_POINTER_MODE_HOST;
};

using Mirror = SettingsMirror<cusparseHandle_t, HandleSettings, cusparseStatus_t>;
Mirror& mirror();

// Whether the handle's scalars are in host memory (true too for an unknown handle: the call then
// fails on the server, which does not know it either).
bool host_pointer_mode(cusparseHandle_t handle);

}  // namespace rgpu::client::cusparse
