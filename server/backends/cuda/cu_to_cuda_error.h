// Driver API results (CUresult) translated to the cudaError_t the CUDA Runtime returns for the
// same failure, so a client sees what it would see running locally.
#pragma once

#include <cuda.h>
#include <driver_types.h>

namespace rgpu::server::cuda {

// The general mapping; results with no runtime counterpart become cudaErrorUnknown.
cudaError_t cu_to_cuda_error(CUresult result);

// For looking up a kernel by name: the runtime reports a missing kernel as
// cudaErrorInvalidDeviceFunction, not as a missing symbol.
cudaError_t cu_function_lookup_error(CUresult result);

}  // namespace rgpu::server::cuda
