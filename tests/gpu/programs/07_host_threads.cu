// GPU suite: several host threads, each with its own stream and buffers, working on the GPU at the same time.
#include <thread>
#include <vector>

#include "suite_check.h"

__global__ void accumulate(int* data, int n, int addend) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += addend + i % 7;
}

struct ThreadResult {
  cudaError_t error = cudaSuccess;
  int wrong = -1;
  long long checksum = 0;
};

// One worker: rounds of copy in, kernel, copy out on its own stream; the result goes back through `result`.
static void worker(int id, int n, int rounds, ThreadResult* result) {
  auto fail = [result](cudaError_t err) { result->error = err; return err != cudaSuccess; };
  if (fail(cudaSetDevice(0))) return;
  cudaStream_t stream;
  if (fail(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking))) return;
  std::vector<int> host(n);
  for (int i = 0; i < n; ++i) host[i] = id * 100000 + i;
  int* dev;
  if (fail(cudaMalloc(&dev, n * sizeof(int)))) return;
  for (int round = 0; round < rounds; ++round) {
    if (fail(cudaMemcpyAsync(dev, host.data(), n * sizeof(int), cudaMemcpyHostToDevice, stream))) return;
    accumulate<<<(n + 127) / 128, 128, 0, stream>>>(dev, n, id + round);
    if (fail(cudaGetLastError())) return;
    if (fail(cudaMemcpyAsync(host.data(), dev, n * sizeof(int), cudaMemcpyDeviceToHost, stream))) return;
    if (fail(cudaStreamSynchronize(stream))) return;
  }
  int wrong = 0;
  long long checksum = 0;
  for (int i = 0; i < n; ++i) {
    int expected = id * 100000 + i;
    for (int round = 0; round < rounds; ++round) expected += id + round + i % 7;
    if (host[i] != expected) ++wrong;
    checksum += host[i];
  }
  result->wrong = wrong;
  result->checksum = checksum;
  if (fail(cudaFree(dev))) return;
  fail(cudaStreamDestroy(stream));
}

int main() {
  const int threads_count = 6;
  const int n = 50000 + 1;
  const int rounds = 8;
  std::vector<ThreadResult> results(threads_count);
  std::vector<std::thread> threads;
  for (int id = 0; id < threads_count; ++id) threads.emplace_back(worker, id, n + id, rounds, &results[id]);
  for (auto& t : threads) t.join();

  bool all_ok = true;
  for (int id = 0; id < threads_count; ++id) {
    const ThreadResult& r = results[id];
    say("thread %d: error %s, wrong %d, checksum %lld\n", id, cudaGetErrorName(r.error), r.wrong, r.checksum);
    all_ok = all_ok && r.error == cudaSuccess && r.wrong == 0;
  }
  expect(all_ok, "every thread correct");
  return finish("host_threads");
}
