// The emulated NVML entry points by name (entry_table.h): the resolver given to gen::nvml::load_api.
#include <string_view>

#include "server/backends/emulated/entry_table.h"
#include "server/backends/emulated/nvml.h"

namespace rgpu::server::emulated {
namespace {

const Entry kTable[] = {
    RGPU_EMULATED(nvmlInit_v2),
    RGPU_EMULATED(nvmlSystemGetDriverVersion),
    RGPU_EMULATED(nvmlSystemGetNVMLVersion),
    RGPU_EMULATED(nvmlSystemGetCudaDriverVersion_v2),
    RGPU_EMULATED(nvmlDeviceGetHandleByPciBusId_v2),
    RGPU_EMULATED(nvmlDeviceGetName),
    RGPU_EMULATED(nvmlDeviceGetUUID),
    RGPU_EMULATED(nvmlDeviceGetPciInfo_v3),
    RGPU_EMULATED(nvmlDeviceGetCudaComputeCapability),
    RGPU_EMULATED(nvmlDeviceGetMemoryInfo),
    RGPU_EMULATED(nvmlDeviceGetMemoryInfo_v2),
    RGPU_EMULATED(nvmlDeviceGetUtilizationRates),
};

}  // namespace

void* resolve_nvml(const char* name, void*) {
  if (!name) return nullptr;
  return find_entry(kTable, name);
}

}  // namespace rgpu::server::emulated
