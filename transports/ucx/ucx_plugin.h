// Finds and loads librgpu_transport_ucx.so, the library that links UCX, on the first ucx:// address
// a process asks for: a process that asks none never loads UCX, so a host without it runs rgpu.
#pragma once

#include "common/status.h"
#include "transports/ucx/ucx_plugin_api.h"

namespace rgpu::transport::ucx {

// The library's entry points, loaded once per process; a failure says what to install.
Result<const rgpu_ucx_ops*> plugin();

}  // namespace rgpu::transport::ucx
