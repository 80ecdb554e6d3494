// Copies between the device and pinned host memory (cudaMallocHost, cudaHostAlloc,
// cudaHostRegister) at many sizes and offsets, synchronous and async on a stream with a kernel
// between them that changes every byte, event and stream synchronisation, and a cudaFreeHost with
// copies still queued on its memory. Through rgpud over a Unix socket (RGPU_SUITE_SERVER=unix:...)
// cudaMallocHost and cudaHostAlloc memory is shared with the session and the GPU copies the
// client's own pages; the output is the same either way.
#include <cstring>
#include <vector>

#include "byte_patterns.h"
#include "suite_check.h"

__global__ void add_index(unsigned char* p, size_t n, int round) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    p[i] = static_cast<unsigned char>(p[i] + i + round);
}


int main() {
  const size_t big = (96u << 20) + 4099;
  const size_t room = big + 8192;
  unsigned char *up = nullptr, *down = nullptr, *dev = nullptr;
  CHECK_CUDA(cudaMallocHost(&up, room));
  CHECK_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&down), room, cudaHostAllocDefault));
  CHECK_CUDA(cudaMalloc(&dev, room));
  std::vector<unsigned char> registered_buffer(room);  // cudaHostRegister'ed
  unsigned char* registered = registered_buffer.data();
  CHECK_CUDA(cudaHostRegister(registered, room, cudaHostRegisterDefault));

  const size_t sizes[] = {1, 4096, 65537, (1u << 20) + 3, (16u << 20), (64u << 20) + 5, big - 16};
  const size_t offsets[] = {0, 13, 4095};
  int round = 0;
  bool sync_ok = true, default_ok = true, registered_ok = true;
  for (size_t n : sizes) {
    for (size_t off : offsets) {
      ++round;
      fill_pattern(up + off, n, round);
      std::memset(down, 0, room);
      CHECK_CUDA(cudaMemcpy(dev + off + 3, up + off, n, cudaMemcpyHostToDevice));
      CHECK_CUDA(cudaMemcpy(down + off + 5, dev + off + 3, n, cudaMemcpyDeviceToHost));
      sync_ok = sync_ok && holds_pattern(down + off + 5, n, round, false);
      std::memset(down, 0, room);
      CHECK_CUDA(cudaMemcpy(down + off + 1, dev + off + 3, n, cudaMemcpyDefault));
      default_ok = default_ok && holds_pattern(down + off + 1, n, round, false);
      std::memset(registered, 0, room);
      CHECK_CUDA(cudaMemcpy(registered + off + 1, dev + off + 3, n, cudaMemcpyDeviceToHost));
      registered_ok = registered_ok && holds_pattern(registered + off + 1, n, round, false);
    }
  }
  expect(sync_ok, "cudaMemcpy to and from pinned memory, every size and offset");
  expect(default_ok, "cudaMemcpyDefault into pinned memory");
  expect(registered_ok, "cudaMemcpy into cudaHostRegister'ed memory");

  cudaStream_t s = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t done = nullptr;
  CHECK_CUDA(cudaEventCreate(&done));
  bool async_ok = true;
  for (size_t n : sizes) {
    ++round;
    fill_pattern(up + 9, n, round);
    std::memset(down, 0, room);
    CHECK_CUDA(cudaMemcpyAsync(dev + 1, up + 9, n, cudaMemcpyHostToDevice, s));
    add_index<<<264, 256, 0, s>>>(dev + 1, n, round);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpyAsync(down + 2, dev + 1, n, cudaMemcpyDeviceToHost, s));
    if (round % 2) {
      CHECK_CUDA(cudaStreamSynchronize(s));
    } else {
      CHECK_CUDA(cudaEventRecord(done, s));
      CHECK_CUDA(cudaEventSynchronize(done));
    }
    async_ok = async_ok && holds_pattern(down + 2, n, round, true);
  }
  expect(async_ok, "async H2D, kernel, async D2H on a stream, every size");

  // Double buffering: while the GPU works on one half the host fills the other.
  bool pipelined_ok = true;
  {
    const size_t half = 32u << 20;
    for (int k = 0; k < 6; ++k) {
      ++round;
      unsigned char* h = up + (k % 2) * (half + 64) + 1;
      unsigned char* d = dev + (k % 2) * half;
      unsigned char* back = down + (k % 2) * (half + 64) + 1;
      CHECK_CUDA(cudaStreamSynchronize(s));
      if (k >= 2) pipelined_ok = pipelined_ok && holds_pattern(back, half, round - 2, true);
      fill_pattern(h, half, round);
      std::memset(back - 1, 0, half + 2);
      CHECK_CUDA(cudaMemcpyAsync(d, h, half, cudaMemcpyHostToDevice, s));
      add_index<<<264, 256, 0, s>>>(d, half, round);
      CHECK_CUDA(cudaMemcpyAsync(back, d, half, cudaMemcpyDeviceToHost, s));
    }
    CHECK_CUDA(cudaStreamSynchronize(s));
  }
  expect(pipelined_ok, "double-buffered pinned copies");

  bool freed_ok = true;
  {
    ++round;
    const size_t n = (32u << 20) + 77;
    unsigned char* temp = nullptr;
    CHECK_CUDA(cudaMallocHost(&temp, n));
    fill_pattern(temp, n, round);
    for (int k = 0; k < 4; ++k) CHECK_CUDA(cudaMemcpyAsync(dev + k, temp, n, cudaMemcpyHostToDevice, s));
    CHECK_CUDA(cudaFreeHost(temp));
    std::vector<unsigned char> check(n + 2, 0);
    CHECK_CUDA(cudaMemcpy(check.data() + 1, dev + 3, n, cudaMemcpyDeviceToHost));
    freed_ok = holds_pattern(check.data() + 1, n, round, false);
  }
  expect(freed_ok, "copies queued before cudaFreeHost read its bytes");

  CHECK_CUDA(cudaEventDestroy(done));
  CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_CUDA(cudaHostUnregister(registered));
  CHECK_CUDA(cudaFree(dev));
  CHECK_CUDA(cudaFreeHost(up));
  CHECK_CUDA(cudaFreeHost(down));
  return finish("33_pinned_copies");
}
