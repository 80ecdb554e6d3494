// Allocates device memory, says so, and waits to be killed: the kill test checks that the server
// frees a vanished client's memory.
#include <cuda_runtime.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
  size_t mib = argc > 1 ? static_cast<size_t>(atol(argv[1])) : 256;
  void* p = nullptr;
  cudaError_t st = cudaMalloc(&p, mib << 20);
  if (st != cudaSuccess) {
    std::printf("cudaMalloc failed: %s\n", cudaGetErrorName(st));
    return 1;
  }
  cudaMemset(p, 1, mib << 20);
  cudaDeviceSynchronize();
  std::printf("holding %zu MiB\n", mib);
  std::fflush(stdout);
  for (;;) pause();
}
