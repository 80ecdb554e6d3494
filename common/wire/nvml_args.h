// The wire form of the NVML calls (all hand-written on both sides): nvmlInit_v2's snapshot, and
// the device index that stands for an nvmlDevice_t in the per-device queries. Written by
// client/nvml and read by server/session/nvml_*.cpp.
#pragma once

#include <nvml_subset.h>

#include <cstdint>

namespace rgpu::wire {

// nvmlInit_v2's reply: NvmlSystem, then device_count NvmlDeviceRecord, in the server's CUDA
// device order (what the client's device index means).
struct NvmlSystem {
  char driver_version[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
  char nvml_version[NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE];
  int32_t cuda_driver_version;
  uint32_t device_count;
};

struct NvmlDeviceRecord {
  char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
  char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
  nvmlPciInfo_t pci;
  int32_t major;
  int32_t minor;
};

// The snapshot holds at most this many devices (a peer's count is checked against it).
inline constexpr uint32_t kNvmlMaxDevices = 64;

// nvmlDeviceGetMemoryInfo, nvmlDeviceGetUtilizationRates: in: u32 device index; out: the struct's
// bytes. nvmlDeviceGetMemoryInfo_v2: in: u32 device index, u32 the struct's version; out: its bytes.

}  // namespace rgpu::wire
