// The server's NVML device behind a client's device index. The client numbers devices in the
// server's CUDA order (cudaGetDeviceCount, CUDA_VISIBLE_DEVICES applied), which need not be
// NVML's (NVML counts every GPU, and CUDA may order them differently): the two are matched by PCI
// bus id (cudaDeviceGetPCIBusId, then nvmlDeviceGetHandleByPciBusId_v2).
#pragma once

#include <nvml_subset.h>

#include <cstdint>

#include "server/session/call_context.h"

namespace rgpu::server {

// NVML_ERROR_INVALID_ARGUMENT for an index past the CUDA devices, NVML_ERROR_NOT_SUPPORTED when
// the backend lacks what the match needs.
nvmlReturn_t nvml_device(CallContext& ctx, uint32_t index, nvmlDevice_t* device);

}  // namespace rgpu::server
