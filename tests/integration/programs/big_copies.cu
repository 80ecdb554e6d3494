// Large host<->device copies of odd sizes and offsets come back byte for byte, synchronous and
// async on a stream: the streamed bulk path (pieces through a staging ring) and, with
// RGPU_STRIPES > 1, the striped path.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK_OK(x)                                                     \
  do {                                                                  \
    if ((x) != cudaSuccess) return std::printf("FAIL %s\n", #x), 1;    \
  } while (0)

int main() {
  const size_t max = (48u << 20) + 4099;
  std::vector<unsigned char> src_buffer(max + 16), back_buffer(max + 16);  // freed on every return
  unsigned char* src = src_buffer.data();
  unsigned char* back = back_buffer.data();
  for (size_t i = 0; i < max + 16; ++i) src[i] = static_cast<unsigned char>(i * 131 + (i >> 13));
  unsigned char* dev = nullptr;
  if (cudaMalloc(&dev, max + 16) != cudaSuccess) return std::printf("FAIL cudaMalloc\n"), 1;
  const size_t sizes[] = {(1u << 20) + 1, (8u << 20) + 7, (33u << 20) + 4097, max};
  for (size_t n : sizes) {
    std::memset(back, 0, max + 16);
    cudaError_t up = cudaMemcpy(dev + 5, src + 3, n, cudaMemcpyHostToDevice);
    cudaError_t down = cudaMemcpy(back + 1, dev + 5, n, cudaMemcpyDeviceToHost);
    if (up != cudaSuccess || down != cudaSuccess || std::memcmp(src + 3, back + 1, n) != 0 || back[0] != 0 ||
        back[n + 1] != 0)
      return std::printf("FAIL copy of %zu bytes: %d %d\n", n, up, down), 1;
    // Async D2H into pageable memory lands before the sync returns.
    std::memset(back, 0, max + 16);
    cudaError_t async = cudaMemcpyAsync(back, dev + 5, n, cudaMemcpyDeviceToHost, 0);
    cudaError_t sync = cudaStreamSynchronize(0);
    if (async != cudaSuccess || sync != cudaSuccess || std::memcmp(src + 3, back, n) != 0)
      return std::printf("FAIL async copy of %zu bytes\n", n), 1;
  }
  // Async H2D copies on a stream of their own (striped with RGPU_STRIPES > 1), from pageable and
  // from pinned memory, are in the stream's order: a D2H after them on the stream reads them.
  {
    cudaStream_t s = nullptr;
    CHECK_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned char* pinned = nullptr;
    const size_t n = (33u << 20) + 4097;
    CHECK_OK(cudaMallocHost(&pinned, n));
    std::memcpy(pinned, src + 7, n);
    CHECK_OK(cudaMemcpyAsync(dev + 5, src + 3, n, cudaMemcpyHostToDevice, s));
    std::memset(back, 0, n);
    CHECK_OK(cudaMemcpyAsync(back, dev + 5, n, cudaMemcpyDeviceToHost, s));
    CHECK_OK(cudaStreamSynchronize(s));
    if (std::memcmp(src + 3, back, n) != 0) return std::printf("FAIL async H2D from pageable memory on a stream\n"), 1;
    CHECK_OK(cudaMemcpyAsync(dev + 9, pinned, n, cudaMemcpyHostToDevice, s));
    std::memset(back, 0, n);
    CHECK_OK(cudaMemcpyAsync(back, dev + 9, n, cudaMemcpyDeviceToHost, s));
    CHECK_OK(cudaStreamSynchronize(s));
    if (std::memcmp(src + 7, back, n) != 0) return std::printf("FAIL async H2D from pinned memory on a stream\n"), 1;
    CHECK_OK(cudaFreeHost(pinned));
    CHECK_OK(cudaStreamDestroy(s));
  }
  // An H2D copy read from a host range that an async D2H is still landing in waits for it: the
  // bytes that go back up are the ones that came down.
  {
    const size_t n = (4u << 20) + 3;
    CHECK_OK(cudaMemcpy(dev + 5, src + 3, n, cudaMemcpyHostToDevice));
    std::memset(back, 0, n);
    CHECK_OK(cudaMemcpyAsync(back, dev + 5, n, cudaMemcpyDeviceToHost, 0));
    CHECK_OK(cudaMemcpy(dev + (16u << 20), back, n, cudaMemcpyHostToDevice));
    std::memset(back, 0, n);
    CHECK_OK(cudaMemcpy(back, dev + (16u << 20), n, cudaMemcpyDeviceToHost));
    if (std::memcmp(src + 3, back, n) != 0) return std::printf("FAIL H2D from a range a D2H was landing in\n"), 1;
  }
  // A copy that runs far past the end of the allocation fails, and the session goes on.
  cudaError_t past = cudaMemcpy(back, dev + max - 4096, max, cudaMemcpyDeviceToHost);
  if (past == cudaSuccess) return std::printf("FAIL copy past the allocation succeeded\n"), 1;
  cudaGetLastError();
  if (cudaMemcpy(back, dev + 5, 4096, cudaMemcpyDeviceToHost) != cudaSuccess || std::memcmp(src + 3, back, 4096) != 0)
    return std::printf("FAIL copy after the failed one\n"), 1;
  cudaFree(dev);
  std::printf("ok: big_copies\n");
  return 0;
}
