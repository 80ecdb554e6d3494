// rgpu-bench-worker: the CUDA side of `rgpu bench`. One binary, linked to libcudart.so.13
// dynamically, so the driver runs it natively (the real library first on LD_LIBRARY_PATH) and
// remotely (rgpu's shim first) and compares like with like.
//
//   rgpu-bench-worker [--quick] SCENARIO...      SCENARIO: copy, latency, launch
//
// stdout carries only machine-readable lines, parsed by rgpu-bench (bench/cli/worker_output.h):
//   info device <name>
//   metric <name> <value> <unit>
// stderr carries progress. Any CUDA error prints the failed call and exits 1.
// Times are host wall-clock times (what a program sees), not CUDA events: the remote cost we
// measure is the time the calling thread spends, which device-side events would not show.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

#define CHECK(expr) check((expr), #expr, __LINE__)

void check(cudaError_t err, const char* what, int line) {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "rgpu-bench-worker: %s failed (line %d): %s: %s\n", what, line, cudaGetErrorName(err),
               cudaGetErrorString(err));
  std::exit(1);
}

__global__ void empty_kernel() {}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Runs `op` `warmup` times untimed, then `reps` timed times; the median of the timed runs in s.
template <typename Op>
double median_seconds(int warmup, int reps, Op op) {
  for (int i = 0; i < warmup; ++i) op();
  std::vector<double> t(reps);
  for (int i = 0; i < reps; ++i) {
    auto start = Clock::now();
    op();
    t[i] = seconds_since(start);
  }
  return median(std::move(t));
}

void metric(const std::string& name, double value, const char* unit) {
  std::printf("metric %s %.6g %s\n", name.c_str(), value, unit);
  std::fflush(stdout);  // the driver reads lines as they come
}

std::string size_name(size_t bytes) {
  return bytes >= (1u << 20) ? std::to_string(bytes >> 20) + "MiB" : std::to_string(bytes >> 10) + "KiB";
}

// Copy bandwidth for one size: H2D and D2H from pinned (async + stream sync, the way programs
// that care use pinned memory) and pageable memory (synchronous cudaMemcpy), and D2D.
// GB/s are decimal (1e9 bytes/s), as CUDA's bandwidth samples report them.
void copy_size(size_t bytes, cudaStream_t stream) {
  // Enough repetitions that small sizes are not one noisy sample, few enough that 256 MiB stays
  // a few seconds over a slow link.
  const int reps = static_cast<int>(std::clamp<size_t>((size_t{64} << 20) / bytes, 5, 100));
  std::fprintf(stderr, "copy %s: %d reps\n", size_name(bytes).c_str(), reps);
  void *dev = nullptr, *dev2 = nullptr, *pinned = nullptr;
  CHECK(cudaMalloc(&dev, bytes));
  CHECK(cudaMalloc(&dev2, bytes));
  CHECK(cudaMallocHost(&pinned, bytes));
  std::vector<char> pageable(bytes);
  std::memset(pageable.data(), 1, bytes);  // touched, so page faults are not part of the copy
  std::memset(pinned, 1, bytes);
  auto gbps = [&](double s) { return static_cast<double>(bytes) / s / 1e9; };
  const std::string sz = size_name(bytes);

  metric("copy_h2d_pinned_" + sz, gbps(median_seconds(1, reps, [&] {
           CHECK(cudaMemcpyAsync(dev, pinned, bytes, cudaMemcpyHostToDevice, stream));
           CHECK(cudaStreamSynchronize(stream));
         })), "GB/s");
  metric("copy_d2h_pinned_" + sz, gbps(median_seconds(1, reps, [&] {
           CHECK(cudaMemcpyAsync(pinned, dev, bytes, cudaMemcpyDeviceToHost, stream));
           CHECK(cudaStreamSynchronize(stream));
         })), "GB/s");
  metric("copy_h2d_pageable_" + sz, gbps(median_seconds(1, reps, [&] {
           CHECK(cudaMemcpy(dev, pageable.data(), bytes, cudaMemcpyHostToDevice));
         })), "GB/s");
  metric("copy_d2h_pageable_" + sz, gbps(median_seconds(1, reps, [&] {
           CHECK(cudaMemcpy(pageable.data(), dev, bytes, cudaMemcpyDeviceToHost));
         })), "GB/s");
  // A D2D cudaMemcpy may return before the copy ends: the device sync makes it count. Bytes
  // copied per second (not read + written).
  metric("copy_d2d_" + sz, gbps(median_seconds(1, reps, [&] {
           CHECK(cudaMemcpy(dev2, dev, bytes, cudaMemcpyDeviceToDevice));
           CHECK(cudaDeviceSynchronize());
         })), "GB/s");

  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(dev2));
  CHECK(cudaFree(dev));
}

void copy(bool quick, cudaStream_t stream) {
  std::vector<size_t> sizes = {4u << 10, 64u << 10, 1u << 20, 16u << 20, 256u << 20};
  if (quick) sizes = {4u << 10, 1u << 20, 16u << 20};
  for (size_t bytes : sizes) copy_size(bytes, stream);
}

// Latency of the three calls a training loop waits on most: a small synchronous read-back (a
// loss's .item()), a launch it waits for, an allocation. Each is the median of single calls after
// warm-up, measured in kRounds interleaved rounds, and the best round counts: on a shared machine a
// round can land on a busy core, and that says nothing about the call (native and remote alike).
constexpr int kRounds = 3;

void latency(bool quick, cudaStream_t stream) {
  const int iters = quick ? 300 : 1000;
  const int warmup = quick ? 30 : 200;
  const int alloc_iters = quick ? 100 : 300;
  auto us = [](double s) { return s * 1e6; };
  void* dev = nullptr;
  CHECK(cudaMalloc(&dev, 4));
  CHECK(cudaMemset(dev, 0, 4));
  uint32_t host = 0;

  double d2h = 1e30, launch_sync = 1e30, malloc_free = 1e30;
  for (int round = 0; round < kRounds; ++round) {
    std::fprintf(stderr, "latency round %d of %d: 4-byte D2H, launch + sync (x %d), cudaMalloc + cudaFree (x %d)\n",
                 round + 1, kRounds, iters, alloc_iters);
    d2h = std::min(d2h, median_seconds(warmup, iters, [&] {
                     CHECK(cudaMemcpy(&host, dev, 4, cudaMemcpyDeviceToHost));
                   }));
    launch_sync = std::min(launch_sync, median_seconds(warmup, iters, [&] {
                             empty_kernel<<<1, 1, 0, stream>>>();
                             CHECK(cudaStreamSynchronize(stream));
                           }));
    CHECK(cudaGetLastError());  // a launch error stays the last error until read: one check covers all
    malloc_free = std::min(malloc_free, median_seconds(warmup / 4, alloc_iters, [&] {
                             void* p = nullptr;
                             CHECK(cudaMalloc(&p, 1u << 20));
                             CHECK(cudaFree(p));
                           }));
  }
  metric("latency_d2h_4B", us(d2h), "us");
  metric("latency_launch_sync", us(launch_sync), "us");
  metric("latency_malloc_free_1MiB", us(malloc_free), "us");
  CHECK(cudaFree(dev));
}

// Launch throughput: N launches queued back to back, then one sync (the async pipeline's rate).
void launch(bool quick, cudaStream_t stream) {
  const int n = quick ? 10000 : 100000;
  std::fprintf(stderr, "launch: %d empty kernels, then one sync, x 3\n", n);
  double s = median_seconds(1, 3, [&] {
    for (int i = 0; i < n; ++i) empty_kernel<<<1, 1, 0, stream>>>();
    CHECK(cudaStreamSynchronize(stream));
  });
  CHECK(cudaGetLastError());
  metric("launch_throughput", n / s, "launches/s");
}

int usage() {
  std::fprintf(stderr, "usage: rgpu-bench-worker [--quick] copy|latency|launch...\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::vector<std::string> scenarios;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") quick = true;
    else if (a == "copy" || a == "latency" || a == "launch") scenarios.push_back(a);
    else return usage();
  }
  if (scenarios.empty()) return usage();

  int device = 0;
  CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, device));
  std::printf("info device %s\n", prop.name);
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (const auto& s : scenarios) {
    if (s == "copy") copy(quick, stream);
    else if (s == "latency") latency(quick, stream);
    else launch(quick, stream);
  }
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
