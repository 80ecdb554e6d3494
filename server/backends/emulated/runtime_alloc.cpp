// Emulated CUDA Runtime: device memory allocation and its accounting.
#include <limits>

#include "server/backends/emulated/runtime.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {

cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  RuntimeState& s = state();
  int device = current_device();
  if (!s.valid_device(device)) return cudaErrorInvalidDevice;
  uint64_t capacity = s.memory.capacity();
  if (free) *free = capacity - s.memory.used(device);
  if (total) *total = capacity;
  return cudaSuccess;
}

cudaError_t cudaMalloc(void** devPtr, size_t size) {
  if (!devPtr) return cudaErrorInvalidValue;
  if (!state().valid_device(current_device())) return cudaErrorInvalidDevice;
  return state().memory.allocate(current_device(), size, devPtr);
}

cudaError_t cudaFree(void* devPtr) { return state().memory.free(devPtr); }

cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height) {
  if (!devPtr || !pitch) return cudaErrorInvalidValue;
  size_t row = (width + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
  if (row < width || (height != 0 && row > std::numeric_limits<size_t>::max() / height))
    return cudaErrorMemoryAllocation;
  *pitch = row;
  return emulated::cudaMalloc(devPtr, row * height);
}

cudaError_t cudaMallocAsync(void** devPtr, size_t size, cudaStream_t hStream) {
  // Stream-ordered allocation is immediate here; inside a capture it would need allocation nodes.
  if (cudaError_t err = state().forbid_in_capture(hStream); err != cudaSuccess) return err;
  return emulated::cudaMalloc(devPtr, size);
}

cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t hStream) {
  if (cudaError_t err = state().forbid_in_capture(hStream); err != cudaSuccess) return err;
  return emulated::cudaFree(devPtr);
}

}  // namespace rgpu::server::emulated
