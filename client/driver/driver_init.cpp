// cuInit and cuDriverGetVersion: answered from the runtime's session (no traffic of their own).
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "client/runtime/pipe.h"

extern "C" CUresult cuInit(unsigned int Flags) {
  if (Flags != 0) return CUDA_ERROR_INVALID_VALUE;
  // The session is the driver: without one (no server reachable) there is no device.
  rgpu::client::Pipe& pipe = rgpu::client::Pipe::get();
  return pipe.available() && !pipe.welcome().devices.empty() ? CUDA_SUCCESS : CUDA_ERROR_NO_DEVICE;
}

extern "C" CUresult cuDriverGetVersion(int* driverVersion) {
  if (!driverVersion) return CUDA_ERROR_INVALID_VALUE;
  // The server's driver version, as the runtime caches it (0 without a session, as with no driver).
  return cudaDriverGetVersion(driverVersion) == cudaSuccess ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN;
}
