// The match of a client's device index to the server's NVML device (see nvml_device.h).
#include "server/session/nvml_device.h"

#include <cuda_runtime_api.h>

#include "gen/cudart/cudart_api.h"
#include "gen/nvml/nvml_api.h"

namespace rgpu::server {

nvmlReturn_t nvml_device(CallContext& ctx, uint32_t index, nvmlDevice_t* device) {
  if (!ctx.cudart.cudaDeviceGetPCIBusId || !ctx.nvml->nvmlDeviceGetHandleByPciBusId_v2) return NVML_ERROR_NOT_SUPPORTED;
  char bus_id[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE] = {};
  if (index > INT32_MAX ||
      ctx.cudart.cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, static_cast<int>(index)) != cudaSuccess) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  return ctx.nvml->nvmlDeviceGetHandleByPciBusId_v2(bus_id, device);
}

}  // namespace rgpu::server
