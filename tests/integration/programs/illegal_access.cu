// One tenant's fault: a kernel writes through a wild pointer. Prints what the synchronisation
// reports (cudaErrorIllegalAddress on a GPU; the emulated backend does not run kernels).
#include <cuda_runtime.h>

#include <cstdio>

__global__ void write_wild(int* p) { p[threadIdx.x * 1024 * 1024] = 1; }

int main() {
  write_wild<<<1, 32>>>(reinterpret_cast<int*>(0x10));
  cudaError_t st = cudaDeviceSynchronize();
  std::printf("synchronize after a wild write: %s\n", cudaGetErrorName(st));
  return 0;
}
