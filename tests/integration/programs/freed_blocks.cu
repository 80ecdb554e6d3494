// Freed cudaMalloc blocks kept for the next cudaMalloc of their size (client/runtime/freed_blocks.h),
// as a library with per-call scratch uses them.
//   argv[1] "steps":   100 steps of three cudaMalloc, a kernel each and three cudaFree, then a
//                      stream sync, a cudaMalloc and a 4-byte copy back. run_daemon_tests.sh asserts
//                      its round trips (RGPU_STATS=1): the first step's three cudaMalloc, the module
//                      upload and the device snapshot at the first launch, the sync and the copy = 7
//                      in all; with nothing kept (RGPU_KEEP_FREED_MB=0), 298 cudaMalloc more.
//   argv[1] "semantics": what CUDA's cudaFree promises, whatever is kept (each line "ok: ...").
//   argv[1] "reuse":     a block freed while a kernel on another stream still writes it, taken back
//                        by a cudaMalloc: the kernel has ended before anything after that cudaMalloc
//                        runs, as after the cudaFree natively (run against an emulated daemon whose
//                        kernels last seconds, RGPU_EMULATED_KERNEL_MS).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#include "tour_checks.h"

__global__ void fill(float* p, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}

namespace {

constexpr size_t kSizes[] = {96 << 10, 1 << 20, 3000};

int steps() {
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  for (int step = 0; step < 100; ++step) {
    void* p[3];
    for (int i = 0; i < 3; ++i) {
      CHECK_CUDA(cudaMalloc(&p[i], kSizes[i]));
      const int n = static_cast<int>(kSizes[i] / sizeof(float));
      fill<<<(n + 255) / 256, 256, 0, s>>>(static_cast<float*>(p[i]), 1.0f, n);
      CHECK_CUDA(cudaGetLastError());
    }
    for (int i = 0; i < 3; ++i) CHECK_CUDA(cudaFree(p[i]));
  }
  CHECK_CUDA(cudaStreamSynchronize(s));
  void* last = nullptr;
  CHECK_CUDA(cudaMalloc(&last, kSizes[0]));
  int probe = 0;
  CHECK_CUDA(cudaMemcpy(&probe, last, sizeof probe, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaFree(last));
  CHECK_CUDA(cudaStreamDestroy(s));
  std::printf("ok: freed_blocks steps\n");
  return 0;
}

int semantics() {
  size_t free0 = 0, total = 0;
  CHECK_CUDA(cudaMemGetInfo(&free0, &total));
  void* p = nullptr;
  CHECK_CUDA(cudaMalloc(&p, 8 << 20));
  CHECK_CUDA(cudaMemset(p, 7, 8 << 20));
  CHECK_CUDA(cudaFree(p));
  cudaPointerAttributes pa;
  CHECK_CUDA(cudaPointerGetAttributes(&pa, p));
  EXPECT(pa.type == cudaMemoryTypeUnregistered, "a freed block is no device memory to the program");
  EXPECT(cudaFree(p) == cudaErrorInvalidValue, "freeing it again is cudaErrorInvalidValue");
  (void)cudaGetLastError();
  size_t free1 = 0;
  CHECK_CUDA(cudaMemGetInfo(&free1, &total));
  EXPECT(free1 == free0, "cudaMemGetInfo counts kept blocks as free");

  // A different size is a fresh allocation; the same size is the kept block, recorded again.
  void* q = nullptr;
  CHECK_CUDA(cudaMalloc(&q, 8 << 20));
  CHECK_CUDA(cudaPointerGetAttributes(&pa, q));
  EXPECT(pa.type == cudaMemoryTypeDevice, "a block taken back is device memory again");
  CHECK_CUDA(cudaFree(q));

  // Fill the device with kept blocks, then ask for more than is left: the kept ones are freed
  // and the allocation made, with no error left behind.
  CHECK_CUDA(cudaMemGetInfo(&free0, &total));
  const size_t block = 4 << 20;
  const size_t count = free0 / block < 16 ? free0 / block : 16;
  void* held[16] = {};
  for (size_t i = 0; i < count; ++i) CHECK_CUDA(cudaMalloc(&held[i], block));
  for (size_t i = 0; i < count; ++i) CHECK_CUDA(cudaFree(held[i]));
  void* big = nullptr;
  CHECK_CUDA(cudaMalloc(&big, free0 - (1 << 20)));
  EXPECT(cudaGetLastError() == cudaSuccess, "a device full of kept blocks still gives its memory to a cudaMalloc");
  CHECK_CUDA(cudaFree(big));

  // cudaDeviceReset frees everything, kept blocks included: a kept block is not handed out after it.
  void* r = nullptr;
  CHECK_CUDA(cudaMalloc(&r, 2 << 20));
  CHECK_CUDA(cudaFree(r));
  CHECK_CUDA(cudaDeviceReset());
  void* after = nullptr;
  CHECK_CUDA(cudaMalloc(&after, 2 << 20));
  CHECK_CUDA(cudaMemset(after, 1, 2 << 20));
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaFree(after));
  std::printf("ok: freed_blocks semantics\n");
  return 0;
}

int reuse() {
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const size_t bytes = 1 << 20;
  void* block = nullptr;
  CHECK_CUDA(cudaMalloc(&block, bytes));
  fill<<<256, 1024, 0, s>>>(static_cast<float*>(block), 2.0f, static_cast<int>(bytes / sizeof(float)));
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaFree(block));
  void* again = nullptr;
  CHECK_CUDA(cudaMalloc(&again, bytes));
  EXPECT(again == block, "the cudaMalloc takes the kept block back");
  EXPECT(cudaStreamQuery(s) == cudaSuccess, "the kernel still writing the block at its cudaFree has ended");
  CHECK_CUDA(cudaFree(again));
  CHECK_CUDA(cudaStreamDestroy(s));
  std::printf("ok: freed_blocks reuse\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "steps") == 0) return steps();
  if (argc == 2 && std::strcmp(argv[1], "semantics") == 0) return semantics();
  if (argc == 2 && std::strcmp(argv[1], "reuse") == 0) return reuse();
  std::fprintf(stderr, "usage: freed_blocks steps|semantics|reuse\n");
  return 2;
}
