// Client-side device state: the calling thread's current device and the cached properties of the
// server's devices (answered locally after the first query).
#pragma once

#include <cuda_runtime_api.h>

namespace rgpu::client {

int current_device();
// The server's devices (0 without a session).
int device_count();
// The cached properties of `device`; null when the device does not exist or no session exists.
const cudaDeviceProp* device_properties(int device);

}  // namespace rgpu::client
