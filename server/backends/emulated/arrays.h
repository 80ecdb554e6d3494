// Emulated CUDA arrays as the copies see them (runtime_array.cpp): an array is device memory of
// width x height x depth elements, rows and slices packed; its handle is checked against the
// table of live arrays before use.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace rgpu::server::emulated {

struct ArrayLayout {
  void* memory = nullptr;  // a device allocation (validated again by the copy that uses it)
  size_t elem = 0;         // bytes per element
  size_t width = 0;        // elements per row
  size_t height = 1;       // rows per slice (1 for a 1D array)
  size_t depth = 1;        // slices (1 for a 1D or 2D array)
  int device = 0;
};

// False for a handle that is not a live array (a level of a live mipmapped array counts).
bool array_layout(cudaArray_const_t array, ArrayLayout* out);

}  // namespace rgpu::server::emulated
