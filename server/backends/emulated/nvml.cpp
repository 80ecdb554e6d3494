// The emulated NVML (see nvml.h): the virtual devices of the emulated runtime, read from its
// configuration, attribute table and allocator.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "common/config.h"
#include "server/backends/emulated/nvml.h"
#include "server/backends/emulated/runtime.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
namespace {

// The device number behind a handle this table gave out, or -1.
int device_of(nvmlDevice_t handle) {
  uintptr_t v = reinterpret_cast<uintptr_t>(handle);
  if (v == 0 || v > INT32_MAX) return -1;
  int n = static_cast<int>(v - 1);
  return state().valid_device(n) ? n : -1;
}

nvmlReturn_t copy_string(const std::string& value, char* buffer, unsigned int length) {
  if (!buffer) return NVML_ERROR_INVALID_ARGUMENT;
  if (length < value.size() + 1) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(buffer, value.c_str(), value.size() + 1);
  return NVML_SUCCESS;
}

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  device_attribute(attr, device, &value);
  return value;
}

}  // namespace

nvmlReturn_t nvmlInit_v2(void) { return NVML_SUCCESS; }

nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  return copy_string("rgpu-emulated", version, length);
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char* version, unsigned int length) {
  return copy_string("rgpu-emulated", version, length);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* cudaDriverVersion) {
  if (!cudaDriverVersion) return NVML_ERROR_INVALID_ARGUMENT;
  *cudaDriverVersion = CUDART_VERSION;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char* pciBusId, nvmlDevice_t* device) {
  if (!pciBusId || !device) return NVML_ERROR_INVALID_ARGUMENT;
  int n = 0;
  if (cudaDeviceGetByPCIBusId(&n, pciBusId) != cudaSuccess) return NVML_ERROR_NOT_FOUND;
  *device = reinterpret_cast<nvmlDevice_t>(static_cast<uintptr_t>(n) + 1);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
  int n = device_of(device);
  if (n < 0) return NVML_ERROR_INVALID_ARGUMENT;
  cudaDeviceProp prop{};
  device_properties(n, state().memory.capacity(), &prop);
  return copy_string(prop.name, name, length);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) {
  int n = device_of(device);
  if (n < 0) return NVML_ERROR_INVALID_ARGUMENT;
  return copy_string("GPU-rgpu-emulated-" + std::to_string(n), uuid, length);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  int n = device_of(device);
  if (n < 0 || !pci) return NVML_ERROR_INVALID_ARGUMENT;
  *pci = {};
  pci->domain = static_cast<unsigned>(attribute(cudaDevAttrPciDomainId, n));
  pci->bus = static_cast<unsigned>(attribute(cudaDevAttrPciBusId, n));
  pci->device = static_cast<unsigned>(attribute(cudaDevAttrPciDeviceId, n));
  pci->pciDeviceId = static_cast<unsigned>(attribute(cudaDevAttrGpuPciDeviceId, n));
  std::snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:%02X.0", pci->domain, pci->bus, pci->device);
  std::snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0", pci->domain & 0xFFFF,
                pci->bus & 0xFF, pci->device & 0xFF);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int* major, int* minor) {
  if (device_of(device) < 0 || !major || !minor) return NVML_ERROR_INVALID_ARGUMENT;
  *major = kComputeMajor;
  *minor = kComputeMinor;
  return NVML_SUCCESS;
}

// Tests make a virtual GPU fail: its index in the file RGPU_EMULATED_LOST_GPUS_FILE names (read at
// each call) makes NVML answer for it as for a GPU fallen off the bus.
namespace {
const Tunable kLostGpus{"RGPU_EMULATED_LOST_GPUS_FILE", "",
                        "emulated backend (tests): a file of GPU indices whose NVML calls answer GPU_IS_LOST"};

bool lost(int device) {
  const std::string path = kLostGpus.get();
  if (path.empty()) return false;
  std::ifstream in(path);
  int index = -1;
  while (in >> index)
    if (index == device) return true;
  return false;
}
}  // namespace

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  int n = device_of(device);
  if (n < 0 || !memory) return NVML_ERROR_INVALID_ARGUMENT;
  if (lost(n)) return NVML_ERROR_GPU_IS_LOST;
  memory->total = state().memory.capacity();
  memory->used = state().memory.used(n);
  memory->free = memory->total - memory->used;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t* memory) {
  if (!memory) return NVML_ERROR_INVALID_ARGUMENT;
  if (memory->version != nvmlMemory_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  nvmlMemory_t m{};
  nvmlReturn_t status = emulated::nvmlDeviceGetMemoryInfo(device, &m);
  if (status != NVML_SUCCESS) return status;
  memory->total = m.total;
  memory->reserved = 0;
  memory->free = m.free;
  memory->used = m.used;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t* utilization) {
  if (device_of(device) < 0 || !utilization) return NVML_ERROR_INVALID_ARGUMENT;
  *utilization = {0, 0};  // kernels are checked, not run: the device is never busy
  return NVML_SUCCESS;
}

}  // namespace rgpu::server::emulated
