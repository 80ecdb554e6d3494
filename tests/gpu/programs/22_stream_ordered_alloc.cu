// GPU suite: stream-ordered allocation (cudaMallocAsync / cudaFreeAsync) and stream priorities.
#include <vector>

#include "suite_check.h"

__global__ void iota(int* data, int n, int start) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = start + i;
}

__global__ void add_into(const int* a, int* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] += a[i];
}

int main() {
  int least = 0, greatest = 0;
  CHECK_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  expect(greatest <= least, "priority range ordered (greater priority is a lower number)");
  cudaStream_t high, low;
  CHECK_CUDA(cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, greatest));
  CHECK_CUDA(cudaStreamCreateWithPriority(&low, cudaStreamNonBlocking, least));
  int read_priority = 1;
  CHECK_CUDA(cudaStreamGetPriority(high, &read_priority));
  expect(read_priority == greatest, "stream priority read back");

  const int n = 1 << 18;
  const int rounds = 10;
  int* result;
  CHECK_CUDA(cudaMallocAsync(&result, n * sizeof(int), low));
  CHECK_CUDA(cudaMemsetAsync(result, 0, n * sizeof(int), low));
  cudaEvent_t ready;
  CHECK_CUDA(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
  for (int r = 0; r < rounds; ++r) {
    // A temporary lives only between its stream-ordered allocation and free.
    int* temporary;
    CHECK_CUDA(cudaMallocAsync(&temporary, n * sizeof(int), high));
    iota<<<n / 256, 256, 0, high>>>(temporary, n, r);
    CHECK_CUDA(cudaEventRecord(ready, high));
    CHECK_CUDA(cudaStreamWaitEvent(low, ready, 0));
    add_into<<<n / 256, 256, 0, low>>>(temporary, result, n);
    CHECK_CUDA(cudaFreeAsync(temporary, low));
  }
  std::vector<int> host(n);
  CHECK_CUDA(cudaMemcpyAsync(host.data(), result, n * sizeof(int), cudaMemcpyDeviceToHost, low));
  CHECK_CUDA(cudaStreamSynchronize(low));
  CHECK_CUDA(cudaFreeAsync(result, low));
  CHECK_CUDA(cudaStreamSynchronize(low));

  int wrong = 0;
  for (int i = 0; i < n; ++i)
    if (host[i] != rounds * i + rounds * (rounds - 1) / 2) ++wrong;
  say("rounds: %d, elements: %d, wrong: %d\n", rounds, n, wrong);
  expect(wrong == 0, "stream-ordered temporaries correct");

  CHECK_CUDA(cudaEventDestroy(ready));
  CHECK_CUDA(cudaStreamDestroy(high));
  CHECK_CUDA(cudaStreamDestroy(low));
  return finish("stream_ordered_alloc");
}
