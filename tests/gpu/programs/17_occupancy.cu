// GPU suite: cudaFuncGetAttributes and the occupancy calculator, printing values that depend only on the
// binary and the GPU, so they match natively and remotely on the same GPU.
#include "suite_check.h"

constexpr int kStaticShared = 2048;

__global__ void saxpy_with_scratch(float a, const float* x, float* y, int n) {
  __shared__ float scratch[kStaticShared / sizeof(float)];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  scratch[threadIdx.x % (kStaticShared / sizeof(float))] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (i < n) y[i] = a * scratch[threadIdx.x % (kStaticShared / sizeof(float))] + y[i];
}

__global__ void __launch_bounds__(256) bounded(int* out) { out[blockIdx.x * blockDim.x + threadIdx.x] = 1; }

int main() {
  cudaFuncAttributes attributes{};
  CHECK_CUDA(cudaFuncGetAttributes(&attributes, saxpy_with_scratch));
  say("saxpy_with_scratch: maxThreadsPerBlock %d, sharedSizeBytes %zu, numRegs %d, binaryVersion %d\n",
      attributes.maxThreadsPerBlock, attributes.sharedSizeBytes, attributes.numRegs, attributes.binaryVersion);
  expect(attributes.sharedSizeBytes == kStaticShared, "static shared size reported");

  for (size_t i = 0; i < 4; ++i) {
    size_t offset = 0, size = 0;
    CHECK_CUDA(cudaFuncGetParamInfo(reinterpret_cast<const void*>(saxpy_with_scratch), i, &offset, &size));
    say("saxpy_with_scratch parameter %zu: offset %zu, size %zu\n", i, offset, size);
  }
  size_t past = 0;
  say("a parameter past the last: %s\n",
      cudaGetErrorName(cudaFuncGetParamInfo(reinterpret_cast<const void*>(saxpy_with_scratch), 4, &past, nullptr)));
  say("and the last error then: %s\n", cudaGetErrorName(cudaGetLastError()));

  cudaFuncAttributes bounded_attributes{};
  CHECK_CUDA(cudaFuncGetAttributes(&bounded_attributes, bounded));
  say("bounded: maxThreadsPerBlock %d\n", bounded_attributes.maxThreadsPerBlock);
  expect(bounded_attributes.maxThreadsPerBlock <= 256, "__launch_bounds__ respected");

  int blocks_per_sm = 0;
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, saxpy_with_scratch, 256, 0));
  say("active blocks per SM at 256 threads: %d\n", blocks_per_sm);
  expect(blocks_per_sm >= 1, "at least one active block");

  int with_dynamic = 0;
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&with_dynamic, saxpy_with_scratch, 256, 40 * 1024));
  say("active blocks per SM at 256 threads and 40 KiB dynamic shared: %d\n", with_dynamic);
  expect(with_dynamic >= 1 && with_dynamic <= blocks_per_sm, "dynamic shared memory lowers occupancy or keeps it");

  int min_grid = 0, best_block = 0;
  CHECK_CUDA(cudaOccupancyMaxPotentialBlockSize(&min_grid, &best_block, saxpy_with_scratch, 0, 0));
  say("suggested block size: %d\n", best_block);
  expect(best_block > 0 && best_block <= 1024 && best_block % 32 == 0, "suggested block size is whole warps");
  int sms = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  expect(min_grid % sms == 0, "minimum grid is a multiple of the multiprocessor count");

  // The kernel still runs at the suggested size.
  const int n = 100000;
  float *x, *y;
  CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&y, n * sizeof(float)));
  CHECK_CUDA(cudaMemset(x, 0, n * sizeof(float)));
  CHECK_CUDA(cudaMemset(y, 0, n * sizeof(float)));
  saxpy_with_scratch<<<(n + best_block - 1) / best_block, best_block>>>(2.0f, x, y, n);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaFree(x));
  CHECK_CUDA(cudaFree(y));
  return finish("occupancy");
}
