// GPU suite: a CUDA graph captured from a stream (copies and kernels), instantiated once and launched several times.
#include "suite_check.h"

__global__ void scale(int* data, int n, int factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}

__global__ void add_index(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += i;
}

int main() {
  const int n = 1 << 16;
  const size_t bytes = n * sizeof(int);
  int *host_in, *host_out, *dev;
  CHECK_CUDA(cudaMallocHost(&host_in, bytes));
  CHECK_CUDA(cudaMallocHost(&host_out, bytes));
  CHECK_CUDA(cudaMalloc(&dev, bytes));

  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CHECK_CUDA(cudaStreamIsCapturing(stream, &status));
  expect(status == cudaStreamCaptureStatusActive, "stream capturing");
  CHECK_CUDA(cudaMemcpyAsync(dev, host_in, bytes, cudaMemcpyHostToDevice, stream));
  scale<<<n / 256, 256, 0, stream>>>(dev, n, 3);
  add_index<<<n / 256, 256, 0, stream>>>(dev, n);
  scale<<<n / 256, 256, 0, stream>>>(dev, n, 2);
  CHECK_CUDA(cudaMemcpyAsync(host_out, dev, bytes, cudaMemcpyDeviceToHost, stream));
  cudaGraph_t graph;
  CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  CHECK_CUDA(cudaStreamIsCapturing(stream, &status));
  expect(status == cudaStreamCaptureStatusNone, "capture ended");

  size_t nodes = 0;
  CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
  say("graph nodes: %zu\n", nodes);

  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));

  // Each launch reads the pinned input as it is at launch time: change it between launches.
  const int launches = 5;
  int wrong = 0;
  long long checksum = 0;
  for (int launch = 0; launch < launches; ++launch) {
    for (int i = 0; i < n; ++i) {
      host_in[i] = (i % 100) + launch * 1000;
      host_out[i] = -1;
    }
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    for (int i = 0; i < n; ++i) {
      if (host_out[i] != (host_in[i] * 3 + i) * 2) ++wrong;
      checksum += host_out[i];
    }
  }
  say("launches: %d, wrong: %d, checksum: %lld\n", launches, wrong, checksum);
  expect(wrong == 0, "every graph launch correct");

  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFreeHost(host_in));
  CHECK_CUDA(cudaFreeHost(host_out));
  CHECK_CUDA(cudaFree(dev));
  return finish("graphs");
}
