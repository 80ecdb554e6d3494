// GPU suite: one templated kernel (and a templated block reduction) instantiated for float, double and int.
#include <cstdio>
#include <vector>

#include "suite_check.h"

template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Sums each block's elements in shared memory; kBlock is a template parameter, so the loop unrolls.
template <typename T, int kBlock>
__global__ void block_sums(const T* in, T* sums, int n) {
  __shared__ T partial[kBlock];
  int i = blockIdx.x * kBlock + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
#pragma unroll
  for (int stride = kBlock / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
}

template <typename T>
static bool run_for(const char* type_name) {
  constexpr int kBlock = 128;
  const int n = 10000;
  const int blocks = (n + kBlock - 1) / kBlock;
  const T a = T(3);
  std::vector<T> x(n), y(n), sums(blocks);
  // Small integer values keep float and double results exact, so the CPU check is an equality.
  for (int i = 0; i < n; ++i) {
    x[i] = T(i % 17);
    y[i] = T(i % 5);
  }
  T *dx, *dy, *dsums;
  CHECK_CUDA(cudaMalloc(&dx, n * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dy, n * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dsums, blocks * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(dx, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dy, y.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  axpy<T><<<blocks, kBlock>>>(a, dx, dy, n);
  block_sums<T, kBlock><<<blocks, kBlock>>>(dy, dsums, n);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(sums.data(), dsums, blocks * sizeof(T), cudaMemcpyDeviceToHost));

  int wrong = 0;
  double total = 0;
  for (int b = 0; b < blocks; ++b) {
    T expected = T(0);
    for (int i = b * kBlock; i < n && i < (b + 1) * kBlock; ++i) expected += a * x[i] + y[i];
    if (sums[b] != expected) ++wrong;
    total += static_cast<double>(sums[b]);
  }
  say("%s: blocks %d, wrong %d, total %.1f\n", type_name, blocks, wrong, total);
  CHECK_CUDA(cudaFree(dx));
  CHECK_CUDA(cudaFree(dy));
  CHECK_CUDA(cudaFree(dsums));
  return wrong == 0;
}

int main() {
  expect(run_for<float>("float"), "float instantiation correct");
  expect(run_for<double>("double"), "double instantiation correct");
  expect(run_for<int>("int"), "int instantiation correct");
  return finish("templates");
}
