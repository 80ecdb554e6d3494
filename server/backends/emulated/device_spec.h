// The virtual device: its configuration (tunables) and every attribute it reports, from one table
// so that cudaDeviceGetAttribute and cudaGetDeviceProperties always agree.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>

#include "common/status.h"

namespace rgpu::server::emulated {

// Fixed limits of the virtual device: an sm_90 part shaped like an H200 (values read from one with
// CUDA 13), except its name, memory size and the features the emulation lacks (IPC, RDMA).
inline constexpr int kComputeMajor = 9;
inline constexpr int kComputeMinor = 0;
inline constexpr int kMaxThreadsPerBlock = 1024;
inline constexpr int kMaxBlockDim[3] = {1024, 1024, 64};
inline constexpr int kMaxGridDim[3] = {2147483647, 65535, 65535};
inline constexpr int kWarpSize = 32;
inline constexpr int kMultiProcessorCount = 132;
inline constexpr int kMaxThreadsPerMultiProcessor = 2048;
inline constexpr int kMaxBlocksPerMultiProcessor = 32;
inline constexpr int kRegistersPerBlock = 65536;
inline constexpr int kSharedMemPerBlock = 48 * 1024;
inline constexpr int kSharedMemPerBlockOptin = 227 * 1024;
inline constexpr int kSharedMemPerMultiProcessor = 228 * 1024;
inline constexpr int kReservedSharedMemPerBlock = 1024;
inline constexpr int kGreatestStreamPriority = -5;  // CUDA: lower number, higher priority
inline constexpr int kLeastStreamPriority = 0;
inline constexpr uint64_t kAllocationAlignment = 256;
inline constexpr uint64_t kPitchAlignment = 512;

struct DeviceConfig {
  int count = 0;
  uint64_t memory_bytes = 0;  // per device
  // How long each kernel keeps its device busy (0: no time at all). Kernels are checked, not run;
  // with a time, waits and queries see them run as on a GPU, one after another per device.
  std::chrono::milliseconds kernel_time{0};
};

// Reads RGPU_EMULATED_DEVICES, RGPU_EMULATED_MEMORY_MB and RGPU_EMULATED_KERNEL_MS; an
// out-of-range value is an error.
Result<DeviceConfig> read_device_config();

// cudaErrorInvalidValue for a number outside the enum; reserved numbers inside it answer 0.
cudaError_t device_attribute(cudaDeviceAttr attr, int device, int* value);
// Fills every field of `prop` from the attribute table plus name, uuid and memory size.
void device_properties(int device, uint64_t memory_bytes, cudaDeviceProp* prop);

}  // namespace rgpu::server::emulated
