// cudaPitchedPtr construction without driver_functions.h (an internal header when used alone).
#pragma once

#include <cuda_runtime_api.h>

namespace rgpu {

inline cudaPitchedPtr pitched(void* p, size_t pitch, size_t xsize, size_t ysize) {
  cudaPitchedPtr r{};
  r.ptr = p;
  r.pitch = pitch;
  r.xsize = xsize;
  r.ysize = ysize;
  return r;
}

}  // namespace rgpu
