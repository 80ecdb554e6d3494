// A representative program whose round trips to rgpud are counted (run_daemon_tests.sh runs it
// with RGPU_STATS=1 and asserts the count). Everything here that CUDA can answer without the GPU
// -- current device, last error, properties and attributes, function and pointer attributes,
// capture status -- must cost no traffic, and asynchronous work must not wait. Expected:
//   1  the first device query (properties and attributes of all devices, then cached)
//   2  cudaMalloc x 2
//   1  the module upload, at the first launch
//   1  cudaFuncGetAttributes, once (then cached)
//   1  cudaOccupancyMaxActiveBlocksPerMultiprocessor, once per question (PyTorch asks every step)
//   1  cudaStreamSynchronize
//   1  cudaEventSynchronize (its event's creation and record wait for nothing)
//   1  the 4-byte D2H cudaMemcpy
// = 9 round trips, however many iterations the loop makes.
#include <cuda_runtime.h>

#include <cstdio>

#include "tour_checks.h"

__global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}

int main() {
  const int n = 1 << 16;
  int count = 0, device = -1, sms = 0;
  CHECK_CUDA(cudaGetDeviceCount(&count));
  CHECK_CUDA(cudaSetDevice(0));
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  float *x = nullptr, *y = nullptr;
  CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&y, n * sizeof(float)));
  static float host[n];
  for (int i = 0; i < n; ++i) host[i] = 1.0f;
  CHECK_CUDA(cudaMemcpy(x, host, sizeof host, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(y, host, sizeof host, cudaMemcpyHostToDevice));
  for (int step = 0; step < 200; ++step) {
    axpy<<<(n + 255) / 256, 256, 0, s>>>(2.0f, x, y, n);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaGetDevice(&device));
    cudaFuncAttributes fa;
    CHECK_CUDA(cudaFuncGetAttributes(&fa, axpy));
    cudaPointerAttributes pa;
    CHECK_CUDA(cudaPointerGetAttributes(&pa, y));
    int blocks = 0;
    CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, axpy, 256, 0));
    cudaStreamCaptureStatus cs;
    CHECK_CUDA(cudaStreamIsCapturing(s, &cs));
    CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    if (pa.type != cudaMemoryTypeDevice || cs != cudaStreamCaptureStatusNone || device != 0 || blocks <= 0) {
      std::printf("FAIL: wrong local answer\n");
      return 1;
    }
  }
  CHECK_CUDA(cudaStreamSynchronize(s));
  cudaEvent_t done;
  CHECK_CUDA(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  axpy<<<(n + 255) / 256, 256, 0, s>>>(2.0f, x, y, n);
  CHECK_CUDA(cudaEventRecord(done, s));
  CHECK_CUDA(cudaEventSynchronize(done));
  float first = 0;
  CHECK_CUDA(cudaMemcpy(&first, y, sizeof first, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaEventDestroy(done));
  CHECK_CUDA(cudaFree(x));
  CHECK_CUDA(cudaFree(y));
  CHECK_CUDA(cudaStreamDestroy(s));
  std::printf("ok: round_trips (%d device(s), %d SMs)\n", count, sms);
  return 0;
}
