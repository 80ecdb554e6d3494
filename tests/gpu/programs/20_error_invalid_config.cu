// GPU suite, error case: an invalid launch configuration is refused at launch; cudaGetLastError reports it once
// (it is not sticky) and the next valid launch works. The error's name is printed, not assumed: CUDA 12 said
// cudaErrorInvalidConfiguration for 2048 threads per block, CUDA 13 on an H200 says cudaErrorInvalidValue.
#include "suite_check.h"

__global__ void set_ones(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = 1;
}

int main() {
  const int n = 4096;
  int* data;
  CHECK_CUDA(cudaMalloc(&data, n * sizeof(int)));
  CHECK_CUDA(cudaMemset(data, 0, n * sizeof(int)));

  set_ones<<<2, 2048>>>(data, n);  // more threads per block than any GPU allows
  cudaError_t too_many_threads = cudaGetLastError();
  cudaError_t read_again = cudaGetLastError();
  set_ones<<<dim3(1, 1, 1 << 20), 32>>>(data, n);  // grid z above its 65535 limit
  cudaError_t grid_too_large = cudaPeekAtLastError();
  cudaError_t peeked_still = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();

  say("2048 threads per block: %s\n", cudaGetErrorName(too_many_threads));
  say("cudaGetLastError again: %s\n", cudaGetErrorName(read_again));
  say("grid z 1048576, peeked: %s\n", cudaGetErrorName(grid_too_large));
  say("cudaGetLastError after peek: %s\n", cudaGetErrorName(peeked_still));
  say("cudaDeviceSynchronize: %s\n", cudaGetErrorName(sync));
  expect(too_many_threads != cudaSuccess, "too many threads refused");
  expect(read_again == cudaSuccess, "error cleared after reading it");
  expect(grid_too_large != cudaSuccess && peeked_still == grid_too_large,
         "peek leaves the error for the next read");
  expect(sync == cudaSuccess, "the context is still usable");

  int host[n];
  CHECK_CUDA(cudaMemcpy(host, data, sizeof(host), cudaMemcpyDeviceToHost));
  bool untouched = true;
  for (int v : host) untouched = untouched && v == 0;
  expect(untouched, "refused launches wrote nothing");

  set_ones<<<n / 256, 256>>>(data, n);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(host, data, sizeof(host), cudaMemcpyDeviceToHost));
  int ones = 0;
  for (int v : host) ones += v;
  say("ones after a valid launch: %d\n", ones);
  expect(ones == n, "valid launch after the errors works");
  CHECK_CUDA(cudaFree(data));
  return finish("error_invalid_config");
}
