// The client's record of the CUDA arrays and mipmapped arrays it created: their handles are
// client-made ids (bound on the server to the real arrays), and what they were made with answers
// cudaGetChannelDesc and cudaArrayGetInfo locally and gives the element size copies need.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>

namespace rgpu::client {

struct ArrayRecord {
  cudaChannelFormatDesc desc{};
  cudaExtent extent{};  // as cudaArrayGetInfo reports it: 0 for an absent height or depth
  unsigned flags = 0;
  int device = 0;
  uint64_t owner = 0;   // the mipmapped array (a level) or array (a plane) it belongs to; 0: itself
};

std::optional<ArrayRecord> find_array(cudaArray_const_t array);

// A device reset destroyed the device's arrays on the server.
void forget_arrays(int device);

}  // namespace rgpu::client
