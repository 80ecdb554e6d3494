// GPU suite: events recorded around a kernel time it, order streams, and refuse timing when created without it.
#include "suite_check.h"

__global__ void busy_loop(float* out, int iterations) {
  float x = threadIdx.x;
  for (int i = 0; i < iterations; ++i) x = x * 0.999f + 1.0f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

int main() {
  float* d_out;
  CHECK_CUDA(cudaMalloc(&d_out, 128 * 256 * sizeof(float)));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));

  cudaEvent_t start, stop, untimed;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  CHECK_CUDA(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));

  CHECK_CUDA(cudaEventRecord(start, stream));
  busy_loop<<<128, 256, 0, stream>>>(d_out, 20000);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaEventRecord(stop, stream));
  CHECK_CUDA(cudaEventRecord(untimed, stream));
  CHECK_CUDA(cudaEventSynchronize(stop));

  float ms = 0.0f;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  expect(ms > 0.0f, "elapsed positive");
  expect(cudaEventQuery(stop) == cudaSuccess, "stop event complete after synchronize");

  // Timing an event created with cudaEventDisableTiming is an error that CUDA names.
  CHECK_CUDA(cudaEventSynchronize(untimed));
  cudaError_t untimed_err = cudaEventElapsedTime(&ms, start, untimed);
  say("elapsed time with an untimed event: %s\n", cudaGetErrorName(untimed_err));
  expect(untimed_err != cudaSuccess, "untimed event refused");
  // The refusal is also the last error, which cudaGetLastError reports once and then clears.
  say("last error after the refusal: %s\n", cudaGetErrorName(cudaGetLastError()));
  say("last error after reading it: %s\n", cudaGetErrorName(cudaGetLastError()));

  // A query of unfinished work answers cudaErrorNotReady, which is not an error: CUDA does not
  // make it the last error.
  busy_loop<<<128, 256, 0, stream>>>(d_out, 2000000);
  CHECK_CUDA(cudaEventRecord(untimed, stream));
  cudaError_t pending = cudaEventQuery(untimed);
  say("query of a running kernel's event: %s\n", cudaGetErrorName(pending));
  say("last error after that query: %s\n", cudaGetErrorName(cudaGetLastError()));
  CHECK_CUDA(cudaStreamSynchronize(stream));

  // An event recorded on one stream orders another stream behind it.
  cudaStream_t other;
  CHECK_CUDA(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  busy_loop<<<1, 32, 0, stream>>>(d_out, 100);
  CHECK_CUDA(cudaEventRecord(untimed, stream));
  CHECK_CUDA(cudaStreamWaitEvent(other, untimed, 0));
  CHECK_CUDA(cudaMemsetAsync(d_out, 0, sizeof(float), other));
  CHECK_CUDA(cudaStreamSynchronize(other));
  float first = -1.0f;
  CHECK_CUDA(cudaMemcpy(&first, d_out, sizeof(float), cudaMemcpyDeviceToHost));
  expect(first == 0.0f, "memset ordered after the kernel by the event");

  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));
  CHECK_CUDA(cudaEventDestroy(untimed));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaStreamDestroy(other));
  CHECK_CUDA(cudaFree(d_out));
  return finish("events_timing");
}
