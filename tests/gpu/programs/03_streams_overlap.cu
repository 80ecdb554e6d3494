// GPU suite: several streams each copying a chunk in, transforming it and copying it back, from pinned memory.
#include <cstdint>

#include "suite_check.h"

__global__ void transform(const uint32_t* in, uint32_t* out, int n, uint32_t salt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 3u + salt;
}

int main() {
  const int streams_count = 4;
  const int chunks_per_stream = 3;
  const int chunk = 1 << 18;
  const int total = streams_count * chunks_per_stream * chunk;
  const size_t chunk_bytes = chunk * sizeof(uint32_t);

  uint32_t *host_in, *host_out, *dev_in, *dev_out;
  CHECK_CUDA(cudaMallocHost(&host_in, total * sizeof(uint32_t)));
  CHECK_CUDA(cudaMallocHost(&host_out, total * sizeof(uint32_t)));
  CHECK_CUDA(cudaMalloc(&dev_in, total * sizeof(uint32_t)));
  CHECK_CUDA(cudaMalloc(&dev_out, total * sizeof(uint32_t)));
  for (int i = 0; i < total; ++i) {
    host_in[i] = static_cast<uint32_t>(i) * 2654435761u;
    host_out[i] = 0;
  }

  cudaStream_t streams[streams_count];
  for (auto& s : streams) CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  // Chunk c goes to stream c % streams_count, so each stream's copies overlap the others' kernels.
  for (int c = 0; c < streams_count * chunks_per_stream; ++c) {
    cudaStream_t s = streams[c % streams_count];
    size_t offset = static_cast<size_t>(c) * chunk;
    CHECK_CUDA(cudaMemcpyAsync(dev_in + offset, host_in + offset, chunk_bytes, cudaMemcpyHostToDevice, s));
    transform<<<chunk / 256, 256, 0, s>>>(dev_in + offset, dev_out + offset, chunk, static_cast<uint32_t>(c));
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpyAsync(host_out + offset, dev_out + offset, chunk_bytes, cudaMemcpyDeviceToHost, s));
  }
  for (auto& s : streams) CHECK_CUDA(cudaStreamSynchronize(s));

  int wrong = 0;
  uint64_t checksum = 0;
  for (int i = 0; i < total; ++i) {
    uint32_t expected = host_in[i] * 3u + static_cast<uint32_t>(i / chunk);
    if (host_out[i] != expected) ++wrong;
    checksum += host_out[i];
  }
  say("streams: %d, chunks: %d, elements: %d, wrong: %d, checksum: %llu\n", streams_count,
      streams_count * chunks_per_stream, total, wrong, static_cast<unsigned long long>(checksum));
  expect(wrong == 0, "all chunks correct");

  for (auto& s : streams) CHECK_CUDA(cudaStreamQuery(s));
  for (auto& s : streams) CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_CUDA(cudaFreeHost(host_in));
  CHECK_CUDA(cudaFreeHost(host_out));
  CHECK_CUDA(cudaFree(dev_in));
  CHECK_CUDA(cudaFree(dev_out));
  return finish("streams_overlap");
}
