// Prints the device's free memory in MiB (the kill test compares it before and after).
#include <cuda_runtime.h>

#include <cstdio>

int main() {
  size_t free_mem = 0, total = 0;
  cudaError_t st = cudaMemGetInfo(&free_mem, &total);
  if (st != cudaSuccess) {
    std::printf("cudaMemGetInfo failed: %s\n", cudaGetErrorName(st));
    return 1;
  }
  std::printf("%zu\n", free_mem >> 20);
  return 0;
}
