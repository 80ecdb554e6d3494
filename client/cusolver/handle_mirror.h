// The client's mirror of each cuSOLVER dense and sparse handle's stream: cusolverDnSetStream and
// cusolverSpSetStream update it before they are sent (async), the getters answer from it.
#pragma once

#include <cusolverDn.h>
#include <cusolverSp.h>

#include "client/runtime/settings_mirror.h"

namespace rgpu::client::cusolver {

struct HandleSettings {
  cudaStream_t stream = nullptr;
};

template <typename Handle>
using Mirror = SettingsMirror<Handle, HandleSettings, cusolverStatus_t>;

Mirror<cusolverDnHandle_t>& dense_mirror();
Mirror<cusolverSpHandle_t>& sparse_mirror();

}  // namespace rgpu::client::cusolver
