// Shared helpers of the GPU suite programs: fail loudly on CUDA errors, print checks, report a verdict.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

// Every line goes out flushed at once, so host output keeps its place relative to device printf
// output (which the runtime writes when the device synchronises) whether stdout is a tty or a pipe.
inline void say(const char* format, ...) {
  va_list args;
  va_start(args, format);
  vprintf(format, args);
  va_end(args);
  fflush(stdout);
}

// A CUDA call that must succeed: on failure print the call, the error name and where, then exit 1.
#define CHECK_CUDA(call) check_cuda((call), #call, __LINE__)
inline void check_cuda(cudaError_t err, const char* call, int line) {
  if (err != cudaSuccess) {
    say("FAIL: %s returned %s (line %d)\n", call, cudaGetErrorName(err), line);
    exit(1);
  }
}

inline int g_failed_checks = 0;

// One named check: prints "<what>: yes" or "<what>: no" and counts the failures.
inline void expect(bool ok, const char* what) {
  say("%s: %s\n", what, ok ? "yes" : "no");
  if (!ok) ++g_failed_checks;
}

// The last line of every program; its return value is the program's exit code.
inline int finish(const char* program) {
  say("%s: %s\n", program, g_failed_checks == 0 ? "PASS" : "FAIL");
  return g_failed_checks == 0 ? 0 : 1;
}

// A host vector's copy in new device memory (never freed: a program's lifetime).
template <typename T>
T* to_device(const std::vector<T>& host) {
  T* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, host.size() * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

// n elements of device memory, copied back.
template <typename T>
std::vector<T> to_host(const T* d, size_t n) {
  std::vector<T> host(n);
  CHECK_CUDA(cudaMemcpy(host.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

// The same in `stream`, after the work queued there.
template <typename T>
std::vector<T> to_host(const T* d, size_t n, cudaStream_t stream) {
  std::vector<T> host(n);
  CHECK_CUDA(cudaMemcpyAsync(host.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  return host;
}
