// GPU suite: cudaMemGetInfo sees a large cudaMalloc (free memory drops) and its cudaFree (it comes back).
#include "suite_check.h"

int main() {
  const size_t big = size_t{2} << 30;  // 2 GiB: far above any allocator granularity
  size_t free_before = 0, total_before = 0;
  CHECK_CUDA(cudaFree(nullptr));  // create the context first so its own memory is already counted
  CHECK_CUDA(cudaMemGetInfo(&free_before, &total_before));
  expect(free_before > big, "enough free memory for the test");

  void* block = nullptr;
  CHECK_CUDA(cudaMalloc(&block, big));
  CHECK_CUDA(cudaMemset(block, 0, big));
  size_t free_during = 0, total_during = 0;
  CHECK_CUDA(cudaMemGetInfo(&free_during, &total_during));
  expect(free_during < free_before, "decreased");
  expect(free_before - free_during >= big, "decreased by at least the allocation");
  expect(total_during == total_before, "total unchanged");

  CHECK_CUDA(cudaFree(block));
  size_t free_after = 0, total_after = 0;
  CHECK_CUDA(cudaMemGetInfo(&free_after, &total_after));
  expect(free_after > free_during, "increased after free");
  return finish("mem_get_info");
}
