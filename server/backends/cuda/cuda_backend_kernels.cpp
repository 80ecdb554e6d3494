// CudaBackend: kernel launches, kernel attributes and occupancy.
#include "common/log.h"
#include "server/backends/cuda/cu_to_cuda_error.h"
#include "server/backends/cuda/cuda_backend.h"
#include "server/backends/cuda/function_attributes.h"
#include "server/backends/cuda/kernel_params.h"

namespace rgpu::server::cuda {

int32_t CudaBackend::launch(const LaunchRequest& request) {
  if (!ready_) return cudaErrorInitializationError;
  if (!request.function) return cudaErrorInvalidDeviceFunction;
  // Reused across launches: no allocation per launch once it has grown.
  thread_local std::vector<void*> pointers;
  std::span<const KernelParam> layout;
  if (request.params) layout = *request.params;
  if (cudaError_t e = build_kernel_params(layout, request.args, pointers); e != cudaSuccess) {
    RGPU_LOG_WARN("cuda backend: launch arguments (%zu bytes) do not cover the kernel's %zu parameters",
                  request.args.size(), layout.size());
    return e;
  }
  if (!make_context_current()) return cudaErrorDeviceUninitialized;
  thread_local std::vector<CUlaunchAttribute> attributes;
  CUlaunchConfig config = make_launch_config(request, attributes);
  auto function = static_cast<CUfunction>(request.function);
  CUresult r = driver_.cuLaunchKernelEx(&config, function, pointers.empty() ? nullptr : pointers.data(), nullptr);
  if (r == CUDA_ERROR_INVALID_VALUE) {
    // The runtime reports a bad grid or block shape as cudaErrorInvalidConfiguration.
    int max_threads = 0;
    driver_.cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function);
    if (!launch_shape_valid(request, limits_, max_threads)) return cudaErrorInvalidConfiguration;
  }
  return cu_to_cuda_error(r);
}

int32_t CudaBackend::function_attributes(void* function, cudaFuncAttributes* out) {
  if (!ready_) return cudaErrorInitializationError;
  if (!function) return cudaErrorInvalidDeviceFunction;
  if (!out) return cudaErrorInvalidValue;
  if (!make_context_current()) return cudaErrorDeviceUninitialized;
  auto read = [&](CUfunction_attribute attribute, int* value) {
    return driver_.cuFuncGetAttribute(value, attribute, static_cast<CUfunction>(function));
  };
  return cu_to_cuda_error(fill_function_attributes(read, out));
}

int32_t CudaBackend::set_function_attribute(void* function, int attr, int value) {
  if (!ready_) return cudaErrorInitializationError;
  if (!function) return cudaErrorInvalidDeviceFunction;
  std::optional<CUfunction_attribute> attribute = settable_function_attribute(attr);
  if (!attribute) return cudaErrorInvalidValue;
  if (!make_context_current()) return cudaErrorDeviceUninitialized;
  return cu_to_cuda_error(driver_.cuFuncSetAttribute(static_cast<CUfunction>(function), *attribute, value));
}

int32_t CudaBackend::occupancy_max_active_blocks(void* function, int block_size, size_t dynamic_smem,
                                                 unsigned flags, int* num_blocks) {
  if (!ready_) return cudaErrorInitializationError;
  if (!function) return cudaErrorInvalidDeviceFunction;
  if (!num_blocks) return cudaErrorInvalidValue;
  if (!make_context_current()) return cudaErrorDeviceUninitialized;
  // cudaOccupancy* flags have the values of the CU_OCCUPANCY_* flags.
  return cu_to_cuda_error(driver_.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
      num_blocks, static_cast<CUfunction>(function), block_size, dynamic_smem, flags));
}

int32_t CudaBackend::available_dynamic_smem(void* function, int num_blocks, int block_size, size_t* bytes) {
  if (!ready_) return cudaErrorInitializationError;
  if (!function) return cudaErrorInvalidDeviceFunction;
  if (!make_context_current()) return cudaErrorDeviceUninitialized;
  return cu_to_cuda_error(driver_.cuOccupancyAvailableDynamicSMemPerBlock(bytes, static_cast<CUfunction>(function),
                                                                          num_blocks, block_size));
}

int32_t CudaBackend::cluster_occupancy(const LaunchRequest& request, bool potential_size, int* answer) {
  if (!ready_) return cudaErrorInitializationError;
  if (!request.function) return cudaErrorInvalidDeviceFunction;
  if (!make_context_current()) return cudaErrorDeviceUninitialized;
  thread_local std::vector<CUlaunchAttribute> attributes;
  CUlaunchConfig config = make_launch_config(request, attributes);
  auto function = static_cast<CUfunction>(request.function);
  return cu_to_cuda_error(potential_size ? driver_.cuOccupancyMaxPotentialClusterSize(answer, function, &config)
                                         : driver_.cuOccupancyMaxActiveClusters(answer, function, &config));
}

}  // namespace rgpu::server::cuda
