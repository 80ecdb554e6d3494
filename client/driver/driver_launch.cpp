// Kernel launches and kernel queries through the runtime's launch path (client/runtime/launch.cpp):
// a CUfunction is the runtime's KernelRecord, whose address the runtime accepts as a kernel. A
// launch is posted without waiting; its arguments are packed by the layout the module load
// returned. Attributes are cached by the runtime after their first query.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <vector>

#include "client/driver/driver_errors.h"
#include "client/driver/driver_stream.h"
#include "client/runtime/call.h"
#include "client/runtime/modules.h"
#include "gen/cuda/cuda_decls.h"
#include "gen/cudart/cudart_decls.h"

using rgpu::client::KernelRecord;
using rgpu::client::driver::runtime_stream;
using rgpu::client::driver::to_cu;

namespace {

KernelRecord* kernel(CUfunction f) { return rgpu::client::ModuleRegistry::get().kernel(f); }

// The argument pointers of a launch: kernelParams as given, or one per parameter into the
// buffer that `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER / _SIZE) hands over, kept in `from_buffer`
// (the caller's: a launch with `extra`, the rare form, allocates; a thread_local would be freed
// memory for a launch from a static destructor at exit).
CUresult argument_pointers(const KernelRecord& k, void** kernel_params, void** extra, std::vector<void*>& from_buffer,
                           void*** out) {
  if (kernel_params && extra) return CUDA_ERROR_INVALID_VALUE;
  if (!extra) {
    *out = kernel_params;
    return CUDA_SUCCESS;
  }
  const uint8_t* buffer = nullptr;
  const size_t* size = nullptr;
  for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = static_cast<const uint8_t*>(extra[i + 1]);
    else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) size = static_cast<const size_t*>(extra[i + 1]);
    else return CUDA_ERROR_INVALID_VALUE;
  }
  if (!buffer || !size) return CUDA_ERROR_INVALID_VALUE;
  from_buffer.reserve(k.params.size());
  for (const auto& p : k.params) {
    if (p.offset + p.size > *size) return CUDA_ERROR_INVALID_VALUE;
    from_buffer.push_back(const_cast<uint8_t*>(buffer + p.offset));
  }
  *out = from_buffer.data();
  return CUDA_SUCCESS;
}

CUresult launch(CUfunction f, dim3 grid, dim3 block, unsigned shared_mem, CUstream stream, void** kernel_params,
                void** extra, bool cooperative, bool per_thread) {
  KernelRecord* k = kernel(f);
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  void** args = nullptr;
  std::vector<void*> from_buffer;
  if (CUresult r = argument_pointers(*k, kernel_params, extra, from_buffer, &args); r != CUDA_SUCCESS) return r;
  cudaStream_t s = runtime_stream(stream, per_thread);
  if (cooperative) return to_cu(cudaLaunchCooperativeKernel(k, grid, block, args, shared_mem, s));
  return to_cu(cudaLaunchKernel(k, grid, block, args, shared_mem, s));
}

// The driver's launch attributes are the runtime's (same ids, same value layout): the launch goes
// through cudaLaunchKernelExC, which sends them all.
CUresult launch_ex(const CUlaunchConfig* config, CUfunction f, void** kernel_params, void** extra, bool per_thread) {
  static_assert(sizeof(CUlaunchAttribute) == sizeof(cudaLaunchAttribute));
  if (!config) return CUDA_ERROR_INVALID_VALUE;
  KernelRecord* k = kernel(f);
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  void** args = nullptr;
  std::vector<void*> from_buffer;
  if (CUresult r = argument_pointers(*k, kernel_params, extra, from_buffer, &args); r != CUDA_SUCCESS) return r;
  cudaLaunchConfig_t c{};
  c.gridDim = dim3(config->gridDimX, config->gridDimY, config->gridDimZ);
  c.blockDim = dim3(config->blockDimX, config->blockDimY, config->blockDimZ);
  c.dynamicSmemBytes = config->sharedMemBytes;
  c.stream = runtime_stream(config->hStream, per_thread);
  c.attrs = reinterpret_cast<cudaLaunchAttribute*>(config->attrs);
  c.numAttrs = config->numAttrs;
  return to_cu(cudaLaunchKernelExC(&c, k, args));
}

}  // namespace

extern "C" CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                                   unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                                   unsigned int sharedMemBytes, CUstream hStream, void** kernelParams, void** extra) {
  return launch(f, dim3(gridDimX, gridDimY, gridDimZ), dim3(blockDimX, blockDimY, blockDimZ), sharedMemBytes, hStream,
                kernelParams, extra, false, false);
}

extern "C" CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                        unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                        unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                        void** kernelParams, void** extra) {
  return launch(f, dim3(gridDimX, gridDimY, gridDimZ), dim3(blockDimX, blockDimY, blockDimZ), sharedMemBytes, hStream,
                kernelParams, extra, false, true);
}

extern "C" CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                              unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                              unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                              void** kernelParams) {
  return launch(f, dim3(gridDimX, gridDimY, gridDimZ), dim3(blockDimX, blockDimY, blockDimZ), sharedMemBytes, hStream,
                kernelParams, nullptr, true, false);
}

extern "C" CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                                   unsigned int gridDimZ, unsigned int blockDimX,
                                                   unsigned int blockDimY, unsigned int blockDimZ,
                                                   unsigned int sharedMemBytes, CUstream hStream,
                                                   void** kernelParams) {
  return launch(f, dim3(gridDimX, gridDimY, gridDimZ), dim3(blockDimX, blockDimY, blockDimZ), sharedMemBytes, hStream,
                kernelParams, nullptr, true, true);
}

extern "C" CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra) {
  return launch_ex(config, f, kernelParams, extra, false);
}

extern "C" CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f, void** kernelParams,
                                          void** extra) {
  return launch_ex(config, f, kernelParams, extra, true);
}

extern "C" CUresult cuFuncGetAttribute(int* pi, CUfunction_attribute attrib, CUfunction hfunc) {
  if (!pi) return CUDA_ERROR_INVALID_VALUE;
  if (!kernel(hfunc)) return CUDA_ERROR_INVALID_HANDLE;
  cudaFuncAttributes a{};
  if (CUresult r = to_cu(cudaFuncGetAttributes(&a, hfunc)); r != CUDA_SUCCESS) return r;
  switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = a.maxThreadsPerBlock; break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = static_cast<int>(a.sharedSizeBytes); break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *pi = static_cast<int>(a.constSizeBytes); break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *pi = static_cast<int>(a.localSizeBytes); break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = a.numRegs; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: *pi = a.ptxVersion; break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = a.binaryVersion; break;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *pi = a.cacheModeCA; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = a.maxDynamicSharedSizeBytes; break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *pi = a.preferredShmemCarveout; break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: *pi = a.clusterDimMustBeSet; break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: *pi = a.requiredClusterWidth; break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT: *pi = a.requiredClusterHeight; break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: *pi = a.requiredClusterDepth; break;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: *pi = a.nonPortableClusterSizeAllowed; break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: *pi = a.clusterSchedulingPolicyPreference; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

extern "C" CUresult cuFuncGetName(const char** name, CUfunction hfunc) {
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  KernelRecord* k = kernel(hfunc);
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  *name = k->name.c_str();
  return CUDA_SUCCESS;
}

// From the layout the module load returned: no traffic.
extern "C" CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t* paramOffset, size_t* paramSize) {
  KernelRecord* k = kernel(func);
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  if (paramIndex >= k->params.size()) return CUDA_ERROR_INVALID_VALUE;  // also how callers find the count
  if (paramOffset) *paramOffset = k->params[paramIndex].offset;
  if (paramSize) *paramSize = k->params[paramIndex].size;
  return CUDA_SUCCESS;
}

// CUfunction_attribute's settable values are numbered as cudaFuncAttribute's.
static_assert(static_cast<int>(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) ==
              static_cast<int>(cudaFuncAttributeMaxDynamicSharedMemorySize));
static_assert(static_cast<int>(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT) ==
              static_cast<int>(cudaFuncAttributePreferredSharedMemoryCarveout));

extern "C" CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
  if (!kernel(hfunc)) return CUDA_ERROR_INVALID_HANDLE;
  return to_cu(cudaFuncSetAttribute(hfunc, static_cast<cudaFuncAttribute>(attrib), value));
}

extern "C" CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config) {
  if (!kernel(hfunc)) return CUDA_ERROR_INVALID_HANDLE;
  return to_cu(cudaFuncSetCacheConfig(hfunc, static_cast<cudaFuncCache>(config)));
}

extern "C" CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, CUfunction func,
                                                                        int blockSize, size_t dynamicSMemSize,
                                                                        unsigned int flags) {
  if (!kernel(func)) return CUDA_ERROR_INVALID_HANDLE;
  return to_cu(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize,
                                                                      flags));
}

extern "C" CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, CUfunction func, int blockSize,
                                                               size_t dynamicSMemSize) {
  return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize,
                                                              CU_OCCUPANCY_DEFAULT);
}
