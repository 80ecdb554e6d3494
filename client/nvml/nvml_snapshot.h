// What the NVML client knows: whether NVML is initialised (nvmlInit/nvmlShutdown nest, as in
// NVML) and the snapshot of the server's system and devices that the first nvmlInit fetched in
// one round trip. nvmlDevice_t values are pointers to the snapshot's Device records.
#pragma once

#include <nvml_subset.h>

#include <cstdint>
#include <vector>

#include "common/wire/nvml_args.h"

namespace rgpu::client::nvml {

struct Device {
  uint32_t index;  // the client's (and the server's CUDA) device index
  wire::NvmlDeviceRecord record;
};

struct Snapshot {
  wire::NvmlSystem system{};
  std::vector<Device> devices;
};

// nvmlInit: fetches the snapshot unless an earlier init did, and counts one more init.
nvmlReturn_t init();
// nvmlShutdown: NVML_ERROR_UNINITIALIZED when there is no init left to undo.
nvmlReturn_t shutdown();
// The snapshot while NVML is initialised, else null.
const Snapshot* snapshot();
// The device behind a handle this library gave out, while NVML is initialised; else null.
const Device* device(nvmlDevice_t handle);
// NVML_ERROR_UNINITIALIZED before nvmlInit, NVML_ERROR_INVALID_ARGUMENT for an unknown handle.
nvmlReturn_t device_status(nvmlDevice_t handle);
// A Call's status as an nvmlReturn_t (no server session: NVML_ERROR_DRIVER_NOT_LOADED).
nvmlReturn_t call_status(int32_t rc);
// Copies a NUL-terminated string into a caller's buffer of `length` bytes, as NVML does:
// NVML_ERROR_INVALID_ARGUMENT for a null buffer, NVML_ERROR_INSUFFICIENT_SIZE when it is too short.
nvmlReturn_t copy_string(const char* value, char* buffer, unsigned int length);

}  // namespace rgpu::client::nvml
