// CUlaunchConfig for cuLaunchKernelEx from a LaunchRequest, and the configuration check that
// tells a bad grid/block shape (cudaErrorInvalidConfiguration, as the runtime reports it) from
// other invalid values.
#pragma once

#include <cuda.h>

#include <vector>

#include "server/backends/backend.h"

namespace rgpu::server::cuda {

// The device's launch limits, read once at init.
struct LaunchLimits {
  uint32_t max_block[3] = {1024, 1024, 64};
  uint32_t max_grid[3] = {2147483647u, 65535u, 65535u};
};

// A launch config with the request's shape, stream and attributes (cooperation included), which it
// points into `attributes` for (which must outlive the config; its storage is reused).
CUlaunchConfig make_launch_config(const LaunchRequest& request, std::vector<CUlaunchAttribute>& attributes);

// False when a grid or block dimension is zero or over its limit, or the block has more threads
// than `max_threads_per_block` (the kernel's own limit).
bool launch_shape_valid(const LaunchRequest& request, const LaunchLimits& limits, int max_threads_per_block);

}  // namespace rgpu::server::cuda
