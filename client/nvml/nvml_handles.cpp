// The device count and handles, from the snapshot: a handle is the address of the snapshot's
// record of the device, the same for every lookup of one device (as NVML's handles are).
#include <nvml_subset.h>
#include <strings.h>

#include "client/nvml/nvml_snapshot.h"

namespace nvml = rgpu::client::nvml;

extern "C" {  // exported by the shim's version script

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* deviceCount) {
  if (!deviceCount) return NVML_ERROR_INVALID_ARGUMENT;
  const nvml::Snapshot* s = nvml::snapshot();
  if (!s) return NVML_ERROR_UNINITIALIZED;
  *deviceCount = static_cast<unsigned int>(s->devices.size());
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  const nvml::Snapshot* s = nvml::snapshot();
  if (!s) return NVML_ERROR_UNINITIALIZED;
  if (!device || index >= s->devices.size()) return NVML_ERROR_INVALID_ARGUMENT;
  *device = reinterpret_cast<nvmlDevice_t>(const_cast<nvml::Device*>(&s->devices[index]));
  return NVML_SUCCESS;
}

// Matches NVML's two spellings of a bus id ("00000000:3B:00.0" and the legacy "0000:3B:00.0"),
// ignoring case.
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char* pciBusId, nvmlDevice_t* device) {
  const nvml::Snapshot* s = nvml::snapshot();
  if (!s) return NVML_ERROR_UNINITIALIZED;
  if (!pciBusId || !device) return NVML_ERROR_INVALID_ARGUMENT;
  for (const nvml::Device& d : s->devices) {
    if (strcasecmp(pciBusId, d.record.pci.busId) == 0 || strcasecmp(pciBusId, d.record.pci.busIdLegacy) == 0) {
      *device = reinterpret_cast<nvmlDevice_t>(const_cast<nvml::Device*>(&d));
      return NVML_SUCCESS;
    }
  }
  return NVML_ERROR_NOT_FOUND;
}

// The client's index of the device (the server's CUDA order), which is what the handle was
// looked up by; the server's NVML may number it differently.
nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int* index) {
  if (!index) return NVML_ERROR_INVALID_ARGUMENT;
  const nvml::Device* d = nvml::device(device);
  if (!d) return nvml::device_status(device);
  *index = d->index;
  return NVML_SUCCESS;
}

}  // extern "C"
