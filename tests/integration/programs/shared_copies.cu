// Copies to and from pinned host memory (cudaMallocHost, cudaHostAlloc) and pageable memory come
// back byte for byte at many sizes and offsets, synchronous and async on streams with a kernel
// between them (waited for through the stream or an event), small synchronous reads, and a
// cudaFreeHost with copies still queued on its memory lets them finish first.
// Over a Unix socket (run_unix_tests.sh) pinned memory is shared with the session and pageable
// copies are staged through shared chunks, so no byte of these copies crosses the socket; the
// script checks the session's traffic. Over TCP, or with sharing off, the same checks hold on the
// socket path.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../../gpu/programs/byte_patterns.h"

#define CHECK_OK(x)                                                                          \
  do {                                                                                       \
    cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) return std::printf("FAIL %s: %s\n", #x, cudaGetErrorName(e_)), 1; \
  } while (0)

__global__ void touch(unsigned char* p, size_t n) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) p[i] = p[i];
}


int main() {
  const size_t big = (64u << 20) + 4099;
  const size_t room = big + 8192;  // the largest copy at the largest offset, with guard bytes
  unsigned char* up = nullptr;    // the source of H2D copies
  unsigned char* down = nullptr;  // where D2H copies land
  CHECK_OK(cudaMallocHost(&up, room));
  CHECK_OK(cudaHostAlloc(reinterpret_cast<void**>(&down), room, cudaHostAllocPortable));
  unsigned int flags = 0;
  CHECK_OK(cudaHostGetFlags(&flags, down));
  if (flags != cudaHostAllocPortable) return std::printf("FAIL cudaHostGetFlags: %u\n", flags), 1;
  cudaPointerAttributes attrs{};
  CHECK_OK(cudaPointerGetAttributes(&attrs, up + 100));
  if (attrs.type != cudaMemoryTypeHost) return std::printf("FAIL pinned memory is not host memory: %d\n", attrs.type), 1;
  unsigned char* dev = nullptr;
  CHECK_OK(cudaMalloc(&dev, room));

  // Synchronous copies of many sizes at many offsets, each direction.
  const size_t sizes[] = {1, 7, 4096, 65537, (1u << 20) + 3, (17u << 20) + 5, big - 16};
  const size_t offsets[] = {1, 13, 4095};
  int round = 0;
  for (size_t n : sizes) {
    for (size_t off : offsets) {
      ++round;
      fill_pattern(up + off, n, round);
      std::memset(down, 0, room);
      CHECK_OK(cudaMemcpy(dev + off + 3, up + off, n, cudaMemcpyHostToDevice));
      CHECK_OK(cudaMemcpy(down + off + 5, dev + off + 3, n, cudaMemcpyDeviceToHost));
      if (!holds_pattern(down + off + 5, n, round))
        return std::printf("FAIL sync copy of %zu bytes at offset %zu\n", n, off), 1;
      // The direction left to the memory map (cudaMemcpyDefault).
      std::memset(down, 0, room);
      CHECK_OK(cudaMemcpy(down + off, dev + off + 3, n, cudaMemcpyDefault));
      if (!holds_pattern(down + off, n, round)) return std::printf("FAIL cudaMemcpyDefault of %zu bytes\n", n), 1;
    }
  }

  // Async copies on a stream with a kernel between them: in the stream's order, the D2H bytes there
  // once the stream (or an event after them) is synchronised.
  cudaStream_t s = nullptr;
  CHECK_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t done = nullptr;
  CHECK_OK(cudaEventCreate(&done));
  for (size_t n : sizes) {
    ++round;
    fill_pattern(up + 9, n, round);
    std::memset(down, 0, room);
    CHECK_OK(cudaMemcpyAsync(dev + 1, up + 9, n, cudaMemcpyHostToDevice, s));
    touch<<<static_cast<unsigned>((n + 255) / 256), 256, 0, s>>>(dev + 1, n);
    CHECK_OK(cudaGetLastError());
    CHECK_OK(cudaMemcpyAsync(down + 2, dev + 1, n, cudaMemcpyDeviceToHost, s));
    if (round % 2) {
      CHECK_OK(cudaStreamSynchronize(s));
    } else {
      CHECK_OK(cudaEventRecord(done, s));
      CHECK_OK(cudaEventSynchronize(done));
    }
    if (!holds_pattern(down + 2, n, round)) return std::printf("FAIL async copies of %zu bytes on a stream\n", n), 1;
  }
  // The per-thread default stream, and the legacy one.
  for (cudaStream_t on : {cudaStreamPerThread, static_cast<cudaStream_t>(nullptr)}) {
    ++round;
    const size_t n = (3u << 20) + 1;
    fill_pattern(up + 1, n, round);
    std::memset(down, 0, room);
    CHECK_OK(cudaMemcpyAsync(dev, up + 1, n, cudaMemcpyHostToDevice, on));
    CHECK_OK(cudaMemcpyAsync(down + 1, dev, n, cudaMemcpyDeviceToHost, on));
    CHECK_OK(cudaStreamSynchronize(on));
    if (!holds_pattern(down + 1, n, round)) return std::printf("FAIL async copies on a default stream\n"), 1;
  }

  // cudaFreeHost with copies still queued on its memory: they finish first, with the bytes the memory
  // held, and the session goes on.
  {
    ++round;
    const size_t n = (32u << 20) + 77;
    unsigned char* temp = nullptr;
    CHECK_OK(cudaMallocHost(&temp, n));
    fill_pattern(temp, n, round);
    for (int k = 0; k < 4; ++k) CHECK_OK(cudaMemcpyAsync(dev + k, temp, n, cudaMemcpyHostToDevice, s));
    CHECK_OK(cudaFreeHost(temp));
    std::vector<unsigned char> check(n + 2, 0);
    CHECK_OK(cudaMemcpy(check.data() + 1, dev + 3, n, cudaMemcpyDeviceToHost));
    if (!holds_pattern(check.data() + 1, n, round)) return std::printf("FAIL copies queued before cudaFreeHost\n"), 1;
  }

  // Pageable memory (staged through shared chunks when memory is shared): many sizes around the chunk
  // size at odd offsets, sync and async on a stream with a kernel between.
  {
    std::vector<unsigned char> from_buffer(room), to_buffer(room);
    unsigned char* from = from_buffer.data();
    unsigned char* to = to_buffer.data();
    const size_t pageable_sizes[] = {(1u << 20) - 1, 1u << 20, (8u << 20) - 1, 8u << 20, (8u << 20) + 1,
                                     (33u << 20) + 4097, big - 16};
    for (size_t n : pageable_sizes) {
      for (size_t off : {size_t{1}, size_t{4095}}) {
        ++round;
        fill_pattern(from + off, n, round);
        std::memset(to, 0, room);
        CHECK_OK(cudaMemcpy(dev + off, from + off, n, cudaMemcpyHostToDevice));
        CHECK_OK(cudaMemcpy(to + off + 2, dev + off, n, cudaMemcpyDeviceToHost));
        if (!holds_pattern(to + off + 2, n, round)) return std::printf("FAIL pageable sync copy of %zu bytes\n", n), 1;
      }
      ++round;
      fill_pattern(from + 3, n, round);
      std::memset(to, 0, room);
      CHECK_OK(cudaMemcpyAsync(dev + 7, from + 3, n, cudaMemcpyHostToDevice, s));
      touch<<<static_cast<unsigned>((n + 255) / 256), 256, 0, s>>>(dev + 7, n);
      CHECK_OK(cudaMemcpyAsync(to + 1, dev + 7, n, cudaMemcpyDeviceToHost, s));
      CHECK_OK(cudaStreamSynchronize(s));
      if (!holds_pattern(to + 1, n, round)) return std::printf("FAIL pageable async copies of %zu bytes\n", n), 1;
    }
  }

  // Pageable memory beside pinned: its copies still come back right.
  {
    ++round;
    const size_t n = (5u << 20) + 3;
    std::vector<unsigned char> pageable(n + 2, 0);
    fill_pattern(up, n, round);
    CHECK_OK(cudaMemcpy(dev, up, n, cudaMemcpyHostToDevice));
    CHECK_OK(cudaMemcpy(pageable.data() + 1, dev, n, cudaMemcpyDeviceToHost));
    if (!holds_pattern(pageable.data() + 1, n, round)) return std::printf("FAIL D2H to pageable memory\n"), 1;
  }

  // Small synchronous reads into pageable memory (a loss or a flag read each step): over a Unix
  // socket they land in a slot of the signal page (client/runtime/stream_signals.h), at sizes around
  // a slot's, and a small read past the allocation fails as the usual copy does.
  {
    ++round;
    fill_pattern(up, 4096, round);
    CHECK_OK(cudaMemcpy(dev, up, 4096, cudaMemcpyHostToDevice));
    unsigned char small[300];
    for (size_t n : {size_t{1}, size_t{4}, size_t{255}, size_t{256}, size_t{257}}) {
      for (size_t off : {size_t{0}, size_t{3}, size_t{1000}}) {
        std::memset(small, 0, sizeof small);
        CHECK_OK(cudaMemcpy(small, dev + off, n, cudaMemcpyDeviceToHost));
        if (std::memcmp(small, up + off, n) != 0 || small[n] != 0)
          return std::printf("FAIL small read of %zu bytes at offset %zu\n", n, off), 1;
      }
    }
    if (cudaMemcpy(small, dev + room + (1u << 20), 4, cudaMemcpyDeviceToHost) == cudaSuccess)
      return std::printf("FAIL a small read past the allocation succeeded\n"), 1;
    cudaGetLastError();
    CHECK_OK(cudaMemcpy(small, dev + 3, 4, cudaMemcpyDeviceToHost));
    if (std::memcmp(small, up + 3, 4) != 0) return std::printf("FAIL small read after the failed one\n"), 1;
  }

  // A copy past the device allocation fails, and the session goes on.
  if (cudaMemcpy(down, dev + big, big, cudaMemcpyDeviceToHost) == cudaSuccess)
    return std::printf("FAIL a copy past the allocation succeeded\n"), 1;
  cudaGetLastError();
  ++round;
  fill_pattern(up, 4096, round);
  std::memset(down, 0, 8192);
  CHECK_OK(cudaMemcpy(dev, up, 4096, cudaMemcpyHostToDevice));
  CHECK_OK(cudaMemcpy(down + 1, dev, 4096, cudaMemcpyDeviceToHost));
  if (!holds_pattern(down + 1, 4096, round)) return std::printf("FAIL copy after the failed one\n"), 1;

  // An event never recorded is complete at once; one recorded on a default stream (per-thread and
  // legacy) behind copies and a kernel has their bytes there once synchronised. Over a Unix socket
  // these waits are answered through shared memory (client/runtime/stream_signals.h).
  {
    cudaEvent_t fresh = nullptr;
    CHECK_OK(cudaEventCreateWithFlags(&fresh, cudaEventDisableTiming));
    CHECK_OK(cudaEventSynchronize(fresh));
    for (cudaStream_t on : {cudaStreamPerThread, static_cast<cudaStream_t>(nullptr)}) {
      ++round;
      const size_t n = (2u << 20) + 9;
      fill_pattern(up + 5, n, round);
      std::memset(down, 0, n + 16);
      CHECK_OK(cudaMemcpyAsync(dev + 2, up + 5, n, cudaMemcpyHostToDevice, on));
      touch<<<static_cast<unsigned>((n + 255) / 256), 256, 0, on>>>(dev + 2, n);
      CHECK_OK(cudaGetLastError());
      CHECK_OK(cudaMemcpyAsync(down + 3, dev + 2, n, cudaMemcpyDeviceToHost, on));
      CHECK_OK(cudaEventRecord(fresh, on));
      CHECK_OK(cudaEventSynchronize(fresh));
      if (!holds_pattern(down + 3, n, round)) return std::printf("FAIL copies before an event on a default stream\n"), 1;
    }
    CHECK_OK(cudaEventDestroy(fresh));
  }

  CHECK_OK(cudaEventDestroy(done));
  CHECK_OK(cudaStreamDestroy(s));
  CHECK_OK(cudaFree(dev));
  CHECK_OK(cudaFreeHost(up));
  CHECK_OK(cudaFreeHost(down));
  std::printf("ok: shared_copies\n");
  return 0;
}
