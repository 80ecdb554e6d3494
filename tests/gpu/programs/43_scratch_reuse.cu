// GPU suite: scratch memory allocated and freed call after call, as MAGMA does inside PyTorch's
// solvers. cudaFree synchronises the device, so a block freed while a kernel on one stream still
// writes it may be handed out again and written on another stream: the old kernel's writes land
// first, and the block ends with the new owner's bytes. rgpu keeps freed blocks for the next
// cudaMalloc of their size (client/runtime/freed_blocks.h) and must keep that promise: here the
// block is read once both streams are done, and only the new owner's bytes may be there.
#include "suite_check.h"

// Spins for about `cycles` clock cycles, then fills the buffer: a late writer.
__global__ void late_fill(int* data, int n, int value, long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) data[i] = value;
}

__global__ void add(int* data, int n, int value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += value;
}

__global__ void accumulate(int* total, const int* scratch) { *total += *scratch; }

int main() {
  const int n = 1 << 18;
  const size_t bytes = n * sizeof(int);
  cudaStream_t first, second;
  CHECK_CUDA(cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking));
  std::vector<int> host(n);

  bool all_new = true;
  for (int round = 0; round < 5; ++round) {
    int* old_block = nullptr;
    CHECK_CUDA(cudaMalloc(&old_block, bytes));
    late_fill<<<64, 256, 0, first>>>(old_block, n, -1, 20'000'000);  // ~10 ms at 2 GHz
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaFree(old_block));
    int* fresh = nullptr;
    CHECK_CUDA(cudaMalloc(&fresh, bytes));
    CHECK_CUDA(cudaMemsetAsync(fresh, 0, bytes, second));
    add<<<(n + 255) / 256, 256, 0, second>>>(fresh, n, round + 1);
    CHECK_CUDA(cudaGetLastError());
    // Both streams done: had the late writer still been running when `fresh` was handed out, its
    // bytes would be there now, written after the new owner's.
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(host.data(), fresh, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) all_new = all_new && host[i] == round + 1;
    CHECK_CUDA(cudaFree(fresh));
  }
  expect(all_new, "a block freed under a running kernel and allocated again holds only its new owner's bytes");

  // Three scratch allocations a step, each filled, added into a total on the device and freed.
  int* total = nullptr;
  CHECK_CUDA(cudaMalloc(&total, sizeof(int)));
  CHECK_CUDA(cudaMemset(total, 0, sizeof(int)));
  int want = 0;
  for (int step = 0; step < 200; ++step) {
    int* scratch[3];
    for (int k = 0; k < 3; ++k) {
      CHECK_CUDA(cudaMalloc(&scratch[k], (k + 1) * 4096));
      CHECK_CUDA(cudaMemsetAsync(scratch[k], 0, (k + 1) * 4096, first));
      add<<<1, 1, 0, first>>>(scratch[k], 1, step + k);
      accumulate<<<1, 1, 0, first>>>(total, scratch[k]);
      CHECK_CUDA(cudaGetLastError());
      want += step + k;
    }
    for (int k = 0; k < 3; ++k) CHECK_CUDA(cudaFree(scratch[k]));
  }
  CHECK_CUDA(cudaStreamSynchronize(first));
  int sum = -1;
  CHECK_CUDA(cudaMemcpy(&sum, total, sizeof sum, cudaMemcpyDeviceToHost));
  say("sum of 600 scratch values: %d (want %d)\n", sum, want);
  expect(sum == want, "200 steps of three scratch allocations, each used and freed, add up");
  CHECK_CUDA(cudaFree(total));

  size_t free_bytes = 0, total_bytes = 0;
  CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  expect(free_bytes > 0 && free_bytes <= total_bytes, "cudaMemGetInfo answers after the frees");
  CHECK_CUDA(cudaStreamDestroy(first));
  CHECK_CUDA(cudaStreamDestroy(second));
  return finish("43_scratch_reuse");
}
