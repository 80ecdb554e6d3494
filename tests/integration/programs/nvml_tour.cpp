// NVML through the libnvidia-ml.so.1 shim (linked here against the shim, as CI has no real NVML)
// against `rgpud --emulate` with RGPU_EMULATED_DEVICES=2 and RGPU_EMULATED_MEMORY_MB=1024: the
// emulated devices' count, names, UUIDs, memory (an allocation through the CUDA shim shows),
// utilization, the local answers' error cases and an unsupported export. Prints "ok: ..." per
// check and "ok: nvml_tour" last.
//
// `nvml_tour identity` inits, then asks for every device's count, handle, name, UUID, PCI info and
// compute capability many times: run with RGPU_STATS=1 it must make 1 round trip (the init).
// `nvml_tour no_server` expects nvmlInit_v2 to answer NVML_ERROR_DRIVER_NOT_LOADED.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nvml_subset.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "tour_checks.h"

namespace {

constexpr unsigned int kDevices = 2;
constexpr unsigned long long kMemory = 1024ull << 20;

int identity() {
  EXPECT(nvmlInit_v2() == NVML_SUCCESS, "nvmlInit_v2");
  for (int round = 0; round < 100; ++round) {
    unsigned int count = 0;
    if (nvmlDeviceGetCount_v2(&count) != NVML_SUCCESS || count != kDevices) return 1;
    for (unsigned int i = 0; i < count; ++i) {
      nvmlDevice_t d = nullptr;
      char text[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
      nvmlPciInfo_t pci{};
      int major = 0, minor = 0;
      if (nvmlDeviceGetHandleByIndex_v2(i, &d) != NVML_SUCCESS || nvmlDeviceGetName(d, text, sizeof text) ||
          nvmlDeviceGetUUID(d, text, sizeof text) || nvmlDeviceGetPciInfo_v3(d, &pci) ||
          nvmlDeviceGetCudaComputeCapability(d, &major, &minor)) {
        return 1;
      }
    }
  }
  EXPECT(nvmlShutdown() == NVML_SUCCESS, "nvmlShutdown");
  std::printf("ok: nvml_tour identity\n");
  return 0;
}

int tour() {
  unsigned int count = 0;
  EXPECT(nvmlDeviceGetCount_v2(&count) == NVML_ERROR_UNINITIALIZED, "before init: uninitialized");
  EXPECT(nvmlInit_v2() == NVML_SUCCESS, "nvmlInit_v2");
  EXPECT(nvmlInitWithFlags(0) == NVML_SUCCESS, "nvmlInitWithFlags nests");

  char text[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
  EXPECT(nvmlSystemGetDriverVersion(text, sizeof text) == NVML_SUCCESS && std::strcmp(text, "rgpu-emulated") == 0,
         "driver version of the emulated backend");
  int cuda_driver = 0;
  EXPECT(nvmlSystemGetCudaDriverVersion(&cuda_driver) == NVML_SUCCESS && cuda_driver == CUDART_VERSION,
         "CUDA driver version");

  EXPECT(nvmlDeviceGetCount_v2(&count) == NVML_SUCCESS && count == kDevices, "two devices");
  nvmlDevice_t devices[kDevices] = {};
  for (unsigned int i = 0; i < kDevices; ++i) {
    nvmlDevice_t& d = devices[i];
    EXPECT(nvmlDeviceGetHandleByIndex_v2(i, &d) == NVML_SUCCESS, "handle by index");
    nvmlDevice_t again = nullptr;
    EXPECT(nvmlDeviceGetHandleByIndex_v2(i, &again) == NVML_SUCCESS && again == d, "the same handle again");
    unsigned int index = 99;
    EXPECT(nvmlDeviceGetIndex(d, &index) == NVML_SUCCESS && index == i, "its index");
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    EXPECT(nvmlDeviceGetName(d, name, sizeof name) == NVML_SUCCESS && std::strcmp(name, "rgpu emulated device") == 0,
           "the emulated device's name");
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    std::string expected = "GPU-rgpu-emulated-" + std::to_string(i);
    EXPECT(nvmlDeviceGetUUID(d, uuid, sizeof uuid) == NVML_SUCCESS && uuid == expected, "its UUID");
    int major = 0, minor = 0;
    EXPECT(nvmlDeviceGetCudaComputeCapability(d, &major, &minor) == NVML_SUCCESS && major == 9 && minor == 0,
           "compute capability 9.0");
    nvmlPciInfo_t pci{};
    EXPECT(nvmlDeviceGetPciInfo_v3(d, &pci) == NVML_SUCCESS && pci.bus == i + 1, "PCI info");
    nvmlDevice_t by_bus = nullptr;
    EXPECT(nvmlDeviceGetHandleByPciBusId_v2(pci.busId, &by_bus) == NVML_SUCCESS && by_bus == d,
           "handle by PCI bus id");
    EXPECT(nvmlDeviceGetHandleByPciBusId_v2(pci.busIdLegacy, &by_bus) == NVML_SUCCESS && by_bus == d,
           "handle by legacy PCI bus id");
    nvmlMemory_t memory{};
    EXPECT(nvmlDeviceGetMemoryInfo(d, &memory) == NVML_SUCCESS && memory.total == kMemory &&
               memory.free == kMemory && memory.used == 0,
           "memory of an idle device");
    nvmlUtilization_t use{1, 1};
    EXPECT(nvmlDeviceGetUtilizationRates(d, &use) == NVML_SUCCESS && use.gpu == 0 && use.memory == 0,
           "utilization 0");
  }

  // An allocation on device 1 through the CUDA shim (same session) shows in its memory only.
  void* block = nullptr;
  EXPECT(cudaSetDevice(1) == cudaSuccess && cudaMalloc(&block, 64 << 20) == cudaSuccess, "cudaMalloc on device 1");
  nvmlMemory_t m0{}, m1{};
  EXPECT(nvmlDeviceGetMemoryInfo(devices[0], &m0) == NVML_SUCCESS && m0.used == 0, "device 0 still idle");
  EXPECT(nvmlDeviceGetMemoryInfo(devices[1], &m1) == NVML_SUCCESS && m1.used == (64u << 20) &&
             m1.free == kMemory - (64u << 20),
         "device 1 shows the allocation");
  nvmlMemory_v2_t m2{};
  m2.version = nvmlMemory_v2;
  EXPECT(nvmlDeviceGetMemoryInfo_v2(devices[1], &m2) == NVML_SUCCESS && m2.total == kMemory &&
             m2.used == (64u << 20) && m2.reserved == 0 && m2.version == nvmlMemory_v2,
         "nvmlDeviceGetMemoryInfo_v2");
  m2.version = 1;
  EXPECT(nvmlDeviceGetMemoryInfo_v2(devices[1], &m2) == NVML_ERROR_ARGUMENT_VERSION_MISMATCH, "v2: wrong version");
  EXPECT(cudaFree(block) == cudaSuccess, "cudaFree");

  // Errors answered locally.
  nvmlDevice_t d = nullptr;
  char small[4];
  EXPECT(nvmlDeviceGetHandleByIndex_v2(kDevices, &d) == NVML_ERROR_INVALID_ARGUMENT, "index past the devices");
  EXPECT(nvmlDeviceGetName(devices[0], small, sizeof small) == NVML_ERROR_INSUFFICIENT_SIZE, "name: buffer too small");
  nvmlDevice_t bogus = reinterpret_cast<nvmlDevice_t>(&count);
  nvmlMemory_t memory{};
  EXPECT(nvmlDeviceGetMemoryInfo(bogus, &memory) == NVML_ERROR_INVALID_ARGUMENT, "unknown handle");
  EXPECT(nvmlDeviceGetHandleByPciBusId_v2("0000:7F:00.0", &d) == NVML_ERROR_NOT_FOUND, "unknown PCI bus id");
  EXPECT(std::strcmp(nvmlErrorString(NVML_ERROR_NOT_SUPPORTED), "Not Supported") == 0, "nvmlErrorString");

  // An export outside the served subset (not declared in nvml_subset.h: found by name).
  using Temperature = nvmlReturn_t (*)(nvmlDevice_t, int, unsigned int*);
  auto temperature = reinterpret_cast<Temperature>(dlsym(RTLD_DEFAULT, "nvmlDeviceGetTemperature"));
  unsigned int degrees = 0;
  EXPECT(temperature && temperature(devices[0], 0, &degrees) == NVML_ERROR_NOT_SUPPORTED,
         "an unsupported export answers NVML_ERROR_NOT_SUPPORTED");

  EXPECT(nvmlShutdown() == NVML_SUCCESS && nvmlShutdown() == NVML_SUCCESS, "two shutdowns for two inits");
  EXPECT(nvmlDeviceGetCount_v2(&count) == NVML_ERROR_UNINITIALIZED, "after shutdown: uninitialized");
  EXPECT(nvmlShutdown() == NVML_ERROR_UNINITIALIZED, "a third shutdown");
  std::printf("ok: nvml_tour\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "identity") return identity();
  if (mode == "no_server") {
    EXPECT(nvmlInit_v2() == NVML_ERROR_DRIVER_NOT_LOADED, "no server: driver not loaded");
    return 0;
  }
  return tour();
}
