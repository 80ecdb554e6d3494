// GPU suite: NVML (libnvidia-ml.so.1, loaded by name as tools and PyTorch do) shows the same devices
// as the CUDA runtime: count, and for each device its name, compute capability, total memory and a
// UUID that names a CUDA device. Free memory and utilization change from run to run: checked for
// sanity, not printed.
#include <dlfcn.h>
#include <nvml_subset.h>

#include <cstring>

#include "suite_check.h"

namespace {

void* g_nvml = nullptr;

// The NVML entry point `name`, typed as the declaration `decl`; exits when the library lacks it.
template <typename Fn>
Fn entry(Fn, const char* name) {
  void* p = dlsym(g_nvml, name);
  if (!p) {
    say("FAIL: libnvidia-ml.so.1 has no %s\n", name);
    exit(1);
  }
  return reinterpret_cast<Fn>(p);
}
#define NVML(fn) entry(&::fn, #fn)

#define CHECK_NVML(call) check_nvml((call), #call, __LINE__)
void check_nvml(nvmlReturn_t status, const char* call, int line) {
  if (status != NVML_SUCCESS) {
    say("FAIL: %s returned %d (%s) (line %d)\n", call, static_cast<int>(status), NVML(nvmlErrorString)(status), line);
    exit(1);
  }
}

// CUDA's uuid in NVML's spelling: "GPU-" then 8-4-4-4-12 lowercase hex digits.
void format_uuid(const cudaUUID_t& uuid, char* out) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  char* p = out + sprintf(out, "GPU-");
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) *p++ = '-';
    p += sprintf(p, "%02x", b[i]);
  }
}

// The CUDA device whose uuid is `uuid`, or -1.
int cuda_device_with_uuid(const char* uuid, int cuda_count) {
  for (int d = 0; d < cuda_count; ++d) {
    cudaDeviceProp prop{};
    CHECK_CUDA(cudaGetDeviceProperties(&prop, d));
    char text[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    format_uuid(prop.uuid, text);
    if (std::strcmp(text, uuid) == 0) return d;
  }
  return -1;
}

}  // namespace

int main() {
  g_nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  if (!g_nvml) {
    say("FAIL: cannot load libnvidia-ml.so.1: %s\n", dlerror());
    return 1;
  }
  int cuda_count = 0;
  CHECK_CUDA(cudaGetDeviceCount(&cuda_count));
  CHECK_NVML(NVML(nvmlInit_v2)());

  char driver[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
  CHECK_NVML(NVML(nvmlSystemGetDriverVersion)(driver, sizeof driver));
  expect(driver[0] != '\0', "driver version reported");
  int cuda_driver = 0;
  CHECK_NVML(NVML(nvmlSystemGetCudaDriverVersion_v2)(&cuda_driver));
  int runtime_driver = 0;
  CHECK_CUDA(cudaDriverGetVersion(&runtime_driver));
  expect(cuda_driver == runtime_driver, "NVML's CUDA driver version is the runtime's");

  unsigned int count = 0;
  CHECK_NVML(NVML(nvmlDeviceGetCount_v2)(&count));
  say("devices: %u\n", count);
  expect(static_cast<int>(count) == cuda_count, "as many as cudaGetDeviceCount");

  for (unsigned int i = 0; i < count; ++i) {
    nvmlDevice_t device = nullptr;
    CHECK_NVML(NVML(nvmlDeviceGetHandleByIndex_v2)(i, &device));
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
    CHECK_NVML(NVML(nvmlDeviceGetName)(device, name, sizeof name));
    int major = 0, minor = 0;
    CHECK_NVML(NVML(nvmlDeviceGetCudaComputeCapability)(device, &major, &minor));
    nvmlMemory_t memory{};
    CHECK_NVML(NVML(nvmlDeviceGetMemoryInfo)(device, &memory));
    say("device %u: %s, compute capability %d.%d, %llu MiB\n", i, name, major, minor, memory.total >> 20);
    expect(memory.free <= memory.total && memory.used <= memory.total, "free and used within total");

    unsigned int index = 0;
    CHECK_NVML(NVML(nvmlDeviceGetIndex)(device, &index));
    expect(index == i, "its index is the one it was looked up by");
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {};
    CHECK_NVML(NVML(nvmlDeviceGetUUID)(device, uuid, sizeof uuid));
    int d = cuda_device_with_uuid(uuid, cuda_count);
    expect(d >= 0, "its UUID names a CUDA device");
    if (d >= 0) {
      cudaDeviceProp prop{};
      CHECK_CUDA(cudaGetDeviceProperties(&prop, d));
      expect(std::strcmp(prop.name, name) == 0 && prop.major == major && prop.minor == minor,
             "that CUDA device has its name and compute capability");
    }
    nvmlPciInfo_t pci{};
    CHECK_NVML(NVML(nvmlDeviceGetPciInfo_v3)(device, &pci));
    nvmlDevice_t by_bus = nullptr;
    CHECK_NVML(NVML(nvmlDeviceGetHandleByPciBusId_v2)(pci.busId, &by_bus));
    expect(by_bus == device, "its PCI bus id finds it again");
    nvmlUtilization_t use{};
    CHECK_NVML(NVML(nvmlDeviceGetUtilizationRates)(device, &use));
    expect(use.gpu <= 100 && use.memory <= 100, "utilization within 0..100%");
  }
  CHECK_NVML(NVML(nvmlShutdown)());
  return finish("nvml");
}
