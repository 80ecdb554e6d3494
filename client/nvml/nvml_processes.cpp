// nvmlDeviceGetComputeRunningProcesses (unversioned, _v2, _v3): the client sees one process on its
// GPU, itself, holding the memory info's `used`: for a sliced session exactly its worker's figure,
// the one its slice is checked against; for a whole-GPU session the GPU's. Other tenants'
// processes are not the client's business. PyTorch reads this when it reports an out-of-memory
// error. One round trip.
#include <unistd.h>

#include <nvml_subset.h>

namespace {

template <typename Info>
nvmlReturn_t processes(nvmlDevice_t device, unsigned int* count, Info* infos) {
  if (!count) return NVML_ERROR_INVALID_ARGUMENT;
  nvmlMemory_t memory{};
  nvmlReturn_t status = nvmlDeviceGetMemoryInfo(device, &memory);
  if (status != NVML_SUCCESS) return status;
  const unsigned int room = *count;
  *count = 1;
  if (room < 1 || !infos) return NVML_ERROR_INSUFFICIENT_SIZE;
  infos[0] = Info{};
  infos[0].pid = static_cast<unsigned int>(getpid());
  infos[0].usedGpuMemory = memory.used;
  if constexpr (requires { infos[0].gpuInstanceId; }) {
    infos[0].gpuInstanceId = 0xFFFFFFFFu;
    infos[0].computeInstanceId = 0xFFFFFFFFu;
  }
  return NVML_SUCCESS;
}

}  // namespace

extern "C" {  // exported by the shim's version script

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int* count, nvmlProcessInfo_v1_t* infos) {
  return processes(device, count, infos);
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int* count, nvmlProcessInfo_t* infos) {
  return processes(device, count, infos);
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int* count, nvmlProcessInfo_t* infos) {
  return processes(device, count, infos);
}

}  // extern "C"
