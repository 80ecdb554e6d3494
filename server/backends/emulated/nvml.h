// The emulated NVML: the virtual devices as NVML shows them (name, a fixed UUID
// "GPU-rgpu-emulated-<n>", PCI info and compute capability from the attribute table, memory from
// the allocator, utilization 0), with exactly the signatures of nvml_subset.h (checked in
// nvml_table.cpp). An nvmlDevice_t here is the device number plus one.
#pragma once

#include <nvml_subset.h>

namespace rgpu::server::emulated {

// System (nvml.cpp)
nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length);
nvmlReturn_t nvmlSystemGetNVMLVersion(char* version, unsigned int length);
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* cudaDriverVersion);

// Devices (nvml.cpp)
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char* pciBusId, nvmlDevice_t* device);
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length);
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length);
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci);
nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int* major, int* minor);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory);
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t* memory);
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t* utilization);

// The name -> entry point table above, as the resolver that load_api takes (nvml_table.cpp).
void* resolve_nvml(const char* name, void* ctx);

}  // namespace rgpu::server::emulated
