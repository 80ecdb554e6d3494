// nvmlInit_v2: initialises the backend's NVML and answers, in one reply, everything the client
// keeps for the life of its process (common/wire/nvml_args.h): the driver, NVML and CUDA driver
// versions and, for each CUDA device in order, its NVML name, UUID, PCI info and compute capability.
#include <cstring>

#include "common/wire/codec.h"
#include "common/wire/nvml_args.h"
#include "gen/cudart/cudart_api.h"
#include "gen/nvml/nvml_api.h"
#include "gen/nvml/nvml_handlers.h"
#include "server/session/nvml_device.h"

namespace rgpu::server::handlers {
namespace {

nvmlReturn_t read_system(const gen::nvml::Api& nvml, wire::NvmlSystem* system) {
  nvmlReturn_t status = nvml.nvmlSystemGetDriverVersion(system->driver_version, sizeof system->driver_version);
  if (status == NVML_SUCCESS) status = nvml.nvmlSystemGetNVMLVersion(system->nvml_version, sizeof system->nvml_version);
  if (status == NVML_SUCCESS) status = nvml.nvmlSystemGetCudaDriverVersion_v2(&system->cuda_driver_version);
  return status;
}

nvmlReturn_t read_device(CallContext& ctx, uint32_t index, wire::NvmlDeviceRecord* record) {
  const gen::nvml::Api& nvml = *ctx.nvml;
  nvmlDevice_t device = nullptr;
  nvmlReturn_t status = nvml_device(ctx, index, &device);
  if (status == NVML_SUCCESS) status = nvml.nvmlDeviceGetName(device, record->name, sizeof record->name);
  if (status == NVML_SUCCESS) status = nvml.nvmlDeviceGetUUID(device, record->uuid, sizeof record->uuid);
  if (status == NVML_SUCCESS) status = nvml.nvmlDeviceGetPciInfo_v3(device, &record->pci);
  if (status == NVML_SUCCESS) status = nvml.nvmlDeviceGetCudaComputeCapability(device, &record->major, &record->minor);
  return status;
}

}  // namespace

bool nvmlInit_v2(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  if (!in.at_end()) return false;
  const gen::nvml::Api& nvml = *ctx.nvml;
  int count = 0;
  if (!nvml.nvmlInit_v2 || !nvml.nvmlSystemGetDriverVersion || !nvml.nvmlSystemGetNVMLVersion ||
      !nvml.nvmlSystemGetCudaDriverVersion_v2 || !nvml.nvmlDeviceGetName || !nvml.nvmlDeviceGetUUID ||
      !nvml.nvmlDeviceGetPciInfo_v3 || !nvml.nvmlDeviceGetCudaComputeCapability || !ctx.cudart.cudaGetDeviceCount) {
    status = NVML_ERROR_NOT_SUPPORTED;
    return true;
  }
  status = nvml.nvmlInit_v2();
  if (status != NVML_SUCCESS) return true;
  if (ctx.cudart.cudaGetDeviceCount(&count) != cudaSuccess) count = 0;  // no CUDA device: none to show
  wire::NvmlSystem system{};
  system.device_count = static_cast<uint32_t>(count) < wire::kNvmlMaxDevices ? static_cast<uint32_t>(count)
                                                                              : wire::kNvmlMaxDevices;
  status = read_system(nvml, &system);
  if (status != NVML_SUCCESS) return true;
  out.put_raw(&system, sizeof system);
  for (uint32_t i = 0; i < system.device_count; ++i) {
    wire::NvmlDeviceRecord record{};
    status = read_device(ctx, i, &record);
    if (status != NVML_SUCCESS) return true;
    out.put_raw(&record, sizeof record);
  }
  return true;
}

}  // namespace rgpu::server::handlers
