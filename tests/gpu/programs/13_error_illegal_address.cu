// GPU suite, error case: a kernel writes through a wild pointer; the illegal address surfaces at the next
// synchronisation and stays (sticky) for the calls after it, exactly as CUDA reports it.
#include <cstdint>

#include "suite_check.h"

__global__ void write_through(int* target) { *target = 42; }

int main() {
  // Warm the context up first, so the first call's answer is not about initialisation.
  int* valid;
  CHECK_CUDA(cudaMalloc(&valid, sizeof(int)));

  // The first pages of the address space are never mapped on the GPU, natively or behind a server.
  int* wild = reinterpret_cast<int*>(uintptr_t{0x1000});
  write_through<<<1, 1>>>(wild);
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  int* after = nullptr;
  cudaError_t malloc_after = cudaMalloc(&after, 1024);
  cudaError_t last = cudaGetLastError();
  cudaError_t sync_again = cudaDeviceSynchronize();

  say("launch: %s\n", cudaGetErrorName(launch));
  say("cudaDeviceSynchronize: %s\n", cudaGetErrorName(sync));
  say("cudaMalloc after: %s\n", cudaGetErrorName(malloc_after));
  say("cudaGetLastError after: %s\n", cudaGetErrorName(last));
  say("cudaDeviceSynchronize again: %s\n", cudaGetErrorName(sync_again));
  expect(launch == cudaSuccess, "launch itself accepted");
  expect(sync == cudaErrorIllegalAddress, "illegal address reported at the sync");
  expect(malloc_after == cudaErrorIllegalAddress && sync_again == cudaErrorIllegalAddress, "error is sticky");
  return finish("error_illegal_address");
}
