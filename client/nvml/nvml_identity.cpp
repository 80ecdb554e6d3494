// A device's name, UUID, PCI information and compute capability, from the snapshot.
#include <nvml_subset.h>

#include "client/nvml/nvml_snapshot.h"

namespace nvml = rgpu::client::nvml;

extern "C" {  // exported by the shim's version script

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
  const nvml::Device* d = nvml::device(device);
  if (!d) return nvml::device_status(device);
  return nvml::copy_string(d->record.name, name, length);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) {
  const nvml::Device* d = nvml::device(device);
  if (!d) return nvml::device_status(device);
  return nvml::copy_string(d->record.uuid, uuid, length);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  if (!pci) return NVML_ERROR_INVALID_ARGUMENT;
  const nvml::Device* d = nvml::device(device);
  if (!d) return nvml::device_status(device);
  *pci = d->record.pci;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int* major, int* minor) {
  if (!major || !minor) return NVML_ERROR_INVALID_ARGUMENT;
  const nvml::Device* d = nvml::device(device);
  if (!d) return nvml::device_status(device);
  *major = d->record.major;
  *minor = d->record.minor;
  return NVML_SUCCESS;
}

}  // extern "C"
