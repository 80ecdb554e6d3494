// With no server reachable, the runtime answers "no device" at once (the shim prints one line).
#include <cuda_runtime.h>

#include <cstdio>

int main() {
  int count = -1;
  cudaError_t st = cudaGetDeviceCount(&count);
  void* p = nullptr;
  cudaError_t m = cudaMalloc(&p, 16);
  std::printf("cudaGetDeviceCount: %s, count %d; cudaMalloc: %s\n", cudaGetErrorName(st), count, cudaGetErrorName(m));
  return st == cudaErrorNoDevice && count == 0 && m == cudaErrorNoDevice ? 0 : 1;
}
