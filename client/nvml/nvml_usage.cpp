// What changes while a program runs: memory and utilization, one round trip each. The device
// travels as its index (common/wire/nvml_args.h).
#include <nvml_subset.h>

#include "client/nvml/nvml_snapshot.h"
#include "client/runtime/call.h"
#include "gen/nvml/nvml_ids.h"

namespace nvml = rgpu::client::nvml;

namespace {

// Asks the server for `*out` of the device behind `handle`; `version` (when given) travels after
// the index.
template <typename T>
nvmlReturn_t query(uint32_t call_id, nvmlDevice_t handle, T* out, const unsigned int* version = nullptr) {
  if (!out) return NVML_ERROR_INVALID_ARGUMENT;
  const nvml::Device* d = nvml::device(handle);
  if (!d) return nvml::device_status(handle);
  rgpu::client::Call call(call_id, rgpu::client::CallClass::kSync);
  call.args().put<uint32_t>(d->index);
  if (version) call.args().put<uint32_t>(*version);
  nvmlReturn_t status = nvml::call_status(call.invoke());
  if (status != NVML_SUCCESS) return status;
  if (!call.replied()) return NVML_ERROR_UNKNOWN;
  T value{};
  call.results().get_raw(&value, sizeof value);
  if (!call.results().ok() || !call.results().at_end()) return NVML_ERROR_UNKNOWN;
  *out = value;
  return NVML_SUCCESS;
}

}  // namespace

extern "C" {  // exported by the shim's version script

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  return query(rgpu::gen::nvml::k_nvmlDeviceGetMemoryInfo, device, memory);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t* memory) {
  if (!memory) return NVML_ERROR_INVALID_ARGUMENT;
  if (memory->version != nvmlMemory_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  unsigned int version = memory->version;
  return query(rgpu::gen::nvml::k_nvmlDeviceGetMemoryInfo_v2, device, memory, &version);
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t* utilization) {
  return query(rgpu::gen::nvml::k_nvmlDeviceGetUtilizationRates, device, utilization);
}

}  // extern "C"
