// GPU suite: a cooperative launch whose kernel synchronises the whole grid between two phases.
#include <vector>

#include <cooperative_groups.h>

#include "suite_check.h"

namespace cg = cooperative_groups;

// Phase 1 writes one value per thread; after grid.sync() phase 2 reads a neighbour written by another block.
__global__ void rotate_across_grid(int* scratch, int* out, int rounds) {
  cg::grid_group grid = cg::this_grid();
  int n = static_cast<int>(grid.size());
  int i = static_cast<int>(grid.thread_rank());
  int value = i;
  for (int r = 0; r < rounds; ++r) {
    scratch[i] = value;
    grid.sync();
    value = scratch[(i + blockDim.x) % n] + 1;  // the same lane of the next block
    grid.sync();
  }
  out[i] = value;
}

int main() {
  int device = 0, supported = 0, sms = 0, blocks_per_sm = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  CHECK_CUDA(cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, device));
  expect(supported == 1, "cooperative launch supported");
  if (!supported) return finish("cooperative");

  const int threads = 128;
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, rotate_across_grid, threads, 0));
  expect(blocks_per_sm >= 1, "at least one block per multiprocessor");
  // One block per multiprocessor is always co-resident; the grid size printed below is then the GPU's.
  const int blocks = sms;
  const int n = blocks * threads;
  const int rounds = 5;

  int *scratch, *out;
  CHECK_CUDA(cudaMalloc(&scratch, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&out, n * sizeof(int)));
  int rounds_arg = rounds;
  void* args[] = {&scratch, &out, &rounds_arg};
  CHECK_CUDA(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(rotate_across_grid), dim3(blocks),
                                         dim3(threads), args, 0, nullptr));
  CHECK_CUDA(cudaDeviceSynchronize());

  std::vector<int> host(n);
  CHECK_CUDA(cudaMemcpy(host.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    int expected = (i + rounds * threads) % n + rounds;
    if (host[i] != expected) ++wrong;
  }
  say("rounds: %d, threads per block: %d, wrong: %d\n", rounds, threads, wrong);
  expect(wrong == 0, "grid-wide sync ordered the phases");

  CHECK_CUDA(cudaFree(scratch));
  CHECK_CUDA(cudaFree(out));
  return finish("cooperative");
}
