// Launch configuration building and shape validation.
#include "server/backends/cuda/launch_config.h"

#include <cuda_runtime_api.h>

#include <cstring>

namespace rgpu::server::cuda {

CUlaunchConfig make_launch_config(const LaunchRequest& request, std::vector<CUlaunchAttribute>& attributes) {
  CUlaunchConfig config{};
  config.gridDimX = request.grid[0];
  config.gridDimY = request.grid[1];
  config.gridDimZ = request.grid[2];
  config.blockDimX = request.block[0];
  config.blockDimY = request.block[1];
  config.blockDimZ = request.block[2];
  config.sharedMemBytes = request.shared_mem;
  config.hStream = static_cast<CUstream>(request.stream);  // cudaStream_t and CUstream are one object
  // The runtime's launch attributes are the driver's: the same ids, the same value layout.
  static_assert(sizeof(CUlaunchAttribute) == sizeof(cudaLaunchAttribute) &&
                sizeof(CUlaunchAttributeValue) == sizeof(cudaLaunchAttributeValue));
  attributes.resize(request.attributes.size());
  if (!request.attributes.empty())
    std::memcpy(attributes.data(), request.attributes.data(), request.attributes.size_bytes());
  if (request.cooperative) {
    CUlaunchAttribute& cooperative = attributes.emplace_back();
    cooperative = CUlaunchAttribute{};
    cooperative.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    cooperative.value.cooperative = 1;
  }
  config.attrs = attributes.empty() ? nullptr : attributes.data();
  config.numAttrs = static_cast<unsigned>(attributes.size());
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
