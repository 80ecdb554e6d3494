// CudaBackend: NVML, dlopen()ed by the session's first NVML call. Without the library every NVML
// call answers NVML_ERROR_NOT_SUPPORTED. NVML also gives the figure of the device memory this
// process holds (memory_in_use()), as nvidia-smi shows it.
#include <unistd.h>

#include "common/config.h"
#include "server/backends/cuda/cuda_backend.h"

namespace rgpu::server::cuda {
namespace {

const Tunable kNvmlLibrary{"RGPU_NVML_LIBRARY", "libnvidia-ml.so.1",
                           "NVML library the cuda backend loads on a session's first NVML call "
                           "(':'-separated candidates)"};

constexpr const char* kNvmlAdvice =
    "NVML calls need libnvidia-ml.so.1 on the GPU host (it comes with the NVIDIA driver): put the folder holding "
    "it on LD_LIBRARY_PATH or name it in RGPU_NVML_LIBRARY.";

using RunningProcessesFn = decltype(&nvmlDeviceGetComputeRunningProcesses_v3);

}  // namespace

void CudaBackend::load_nvml() { load_on_demand(nvml_, kNvmlLibrary, kNvmlAdvice, "NVML", gen::nvml::load_api); }

std::optional<uint64_t> CudaBackend::process_memory_from_nvml() {
  load_nvml();
  static const auto running = reinterpret_cast<RunningProcessesFn>(
      nvml_.library.symbol("nvmlDeviceGetComputeRunningProcesses_v3"));
  if (!running || !nvml_.api.nvmlInit_v2 || !nvml_.api.nvmlDeviceGetHandleByPciBusId_v2) return std::nullopt;
  if (!nvml_devices_found_) {
    nvml_devices_found_ = true;
    if (nvml_.api.nvmlInit_v2() != NVML_SUCCESS) return std::nullopt;
    int count = 0;
    driver_.cuDeviceGetCount(&count);
    for (int ordinal = 0; ordinal < count; ++ordinal) {
      CUdevice device = 0;
      char bus_id[32] = {};
      nvmlDevice_t handle = nullptr;
      if (driver_.cuDeviceGet(&device, ordinal) == CUDA_SUCCESS &&
          driver_.cuDeviceGetPCIBusId(bus_id, sizeof bus_id, device) == CUDA_SUCCESS &&
          nvml_.api.nvmlDeviceGetHandleByPciBusId_v2(bus_id, &handle) == NVML_SUCCESS)
        nvml_devices_.push_back(handle);
    }
  }
  if (nvml_devices_.empty()) return std::nullopt;
  const unsigned int me = static_cast<unsigned int>(getpid());
  uint64_t total = 0;
  for (nvmlDevice_t device : nvml_devices_) {
    nvmlProcessInfo_t processes[128];
    unsigned int n = 128;
    if (running(device, &n, processes) != NVML_SUCCESS) return std::nullopt;
    for (unsigned int i = 0; i < n && i < 128; ++i)
      if (processes[i].pid == me) total += processes[i].usedGpuMemory;
  }
  return total;
}

}  // namespace rgpu::server::cuda
