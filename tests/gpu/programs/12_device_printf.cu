// GPU suite: printf from device code, one printing thread per launch and a sync after each, so the
// interleaving of host and device lines is fixed and must come out the same natively and remotely.
#include "suite_check.h"

__global__ void report(int launch, const int* data, int n) {
  // Only one thread prints, so the line order inside a launch never depends on scheduling.
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) {
    long long sum = 0;
    for (int i = 0; i < n; ++i) sum += data[i];
    printf("device: launch %d of grid %d x %d, sum %lld, as float %.3f, hex %x, %s\n", launch, gridDim.x,
           blockDim.x, sum, static_cast<double>(sum) / 7.0, static_cast<unsigned int>(sum), "done");
  }
}

__global__ void fill(int* data, int n, int launch) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = i * (launch + 1);
}

int main() {
  const int n = 1000;
  int* data;
  CHECK_CUDA(cudaMalloc(&data, n * sizeof(int)));
  for (int launch = 0; launch < 4; ++launch) {
    say("host: before launch %d\n", launch);
    fill<<<(n + 255) / 256, 256>>>(data, n, launch);
    report<<<launch + 1, 64>>>(launch, data, n);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    say("host: after sync %d\n", launch);
  }
  // Two printing launches before one sync: both lines appear, in launch order, at the sync.
  report<<<1, 32>>>(10, data, n);
  report<<<1, 32>>>(11, data, n);
  CHECK_CUDA(cudaDeviceSynchronize());
  say("host: after the last sync\n");
  CHECK_CUDA(cudaFree(data));
  return finish("device_printf");
}
