// Launch configuration building and shape validation.
#include "server/backends/cuda/launch_config.h"

namespace rgpu::server::cuda {

CUlaunchConfig make_launch_config(const LaunchRequest& request, CUlaunchAttribute* cooperative_attribute) {
  CUlaunchConfig config{};
  config.gridDimX = request.grid[0];
  config.gridDimY = request.grid[1];
  config.gridDimZ = request.grid[2];
  config.blockDimX = request.block[0];
  config.blockDimY = request.block[1];
  config.blockDimZ = request.block[2];
  config.sharedMemBytes = request.shared_mem;
  config.hStream = static_cast<CUstream>(request.stream);  // cudaStream_t and CUstream are one object
  if (request.cooperative) {
    *cooperative_attribute = CUlaunchAttribute{};
    cooperative_attribute->id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    cooperative_attribute->value.cooperative = 1;
    config.attrs = cooperative_attribute;
    config.numAttrs = 1;
  }
  return config;
}

bool launch_shape_valid(const LaunchRequest& request, const LaunchLimits& limits, int max_threads_per_block) {
  uint64_t threads = 1;
  for (int i = 0; i < 3; ++i) {
    if (request.grid[i] == 0 || request.grid[i] > limits.max_grid[i]) return false;
    if (request.block[i] == 0 || request.block[i] > limits.max_block[i]) return false;
    threads *= request.block[i];
  }
  return max_threads_per_block <= 0 || threads <= static_cast<uint64_t>(max_threads_per_block);
}

}  // namespace rgpu::server::cuda
