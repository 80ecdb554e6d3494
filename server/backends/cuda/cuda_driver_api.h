// The CUDA driver API functions the backend calls, resolved from libcuda.so.1 at run time by
// their exact exported (versioned) names. Types come from the toolkit's cuda.h.
#pragma once

#include <cuda.h>

#include "common/status.h"
#include "server/backends/cuda/shared_library.h"

namespace rgpu::server::cuda {

// X(name): `name` is the symbol libcuda exports (cuda.h maps e.g. cuMemGetInfo to
// cuMemGetInfo_v2; we name the versioned export so that the signature matches cuda.h's).
#define RGPU_CUDA_DRIVER_FUNCTIONS(X)                  \
  X(cuInit)                                            \
  X(cuDriverGetVersion)                                \
  X(cuGetErrorName)                                    \
  X(cuGetErrorString)                                  \
  X(cuDeviceGetCount)                                  \
  X(cuDeviceGet)                                       \
  X(cuDeviceGetName)                                   \
  X(cuDeviceTotalMem_v2)                               \
  X(cuDeviceGetAttribute)                              \
  X(cuDeviceGetPCIBusId)                               \
  X(cuCtxGetCurrent)                                   \
  X(cuCtxSetCurrent)                                   \
  X(cuMemGetInfo_v2)                                   \
  X(cuModuleLoadData)                                  \
  X(cuModuleUnload)                                    \
  X(cuModuleGetFunction)                               \
  X(cuModuleGetGlobal_v2)                              \
  X(cuFuncGetParamInfo)                                \
  X(cuFuncGetAttribute)                                \
  X(cuFuncSetAttribute)                                \
  X(cuLaunchKernelEx)                                  \
  X(cuGraphAddKernelNode_v2)                           \
  X(cuGraphKernelNodeSetParams_v2)                     \
  X(cuGraphExecKernelNodeSetParams_v2)                 \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags) \
  X(cuOccupancyAvailableDynamicSMemPerBlock)           \
  X(cuOccupancyMaxPotentialClusterSize)                \
  X(cuOccupancyMaxActiveClusters)                      \
  X(cuMemGetAllocationGranularity)                     \
  X(cuMemAddressReserve)                               \
  X(cuMemAddressFree)                                  \
  X(cuMemCreate)                                       \
  X(cuMemRelease)                                      \
  X(cuMemMap)                                          \
  X(cuMemUnmap)                                        \
  X(cuMemSetAccess)                                    \
  X(cuMemHostGetDevicePointer_v2)                      \
  X(cuMemHostRegister_v2)                              \
  X(cuMemHostUnregister)                              \
  X(cuMemGetAddressRange_v2)                           \
  X(cuMemHostAlloc)                                    \
  X(cuStreamIsCapturing)                               \
  X(cuStreamWriteValue32_v2)                           \
  X(cuLogsRegisterCallback)

struct DriverApi {
#define RGPU_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  RGPU_CUDA_DRIVER_FUNCTIONS(RGPU_DRIVER_MEMBER)
#undef RGPU_DRIVER_MEMBER
};

// The oldest driver API version the backend accepts (cuDriverGetVersion's encoding): CUDA 13.0,
// the toolkit whose libcudart the backend loads.
inline constexpr int kMinimumDriverVersion = 13000;

// Fills `api` from `library`; the status names the first missing function.
Status load_driver_api(const SharedLibrary& library, DriverApi& api);

// "CUDA_ERROR_X (description)" for logs and statuses.
std::string describe_cu_result(const DriverApi& api, CUresult result);

}  // namespace rgpu::server::cuda
