// The driver API's status on the client: what the runtime answered, as a CUresult.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

namespace rgpu::client::driver {

// The CUresult of a runtime status: the same number where the driver has that code (CUDA numbers
// the shared errors alike), else the driver's nearest code.
CUresult to_cu(cudaError_t e);
// The enumerator's name, or null for a number that is no CUresult.
const char* cu_name(CUresult e);

}  // namespace rgpu::client::driver
