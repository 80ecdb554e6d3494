// rgpu-bench-worker: the CUDA side of `rgpu bench`. One binary, linked to libcudart.so.13
// dynamically, so the driver runs it natively (the real library first on LD_LIBRARY_PATH) and
// remotely (rgpu's shim first) and compares like with like.
//
//   rgpu-bench-worker [--quick] SCENARIO...      SCENARIO: copy, latency, launch, spin, requests, turns
//   spin's options: [--kernel-us N] [--sync-every N] [--duration S] [--epoch NS] [--bin-ms N] [--block-us N]
//   requests' options: [--kernel-us N] [--gap-us N] [--duration S] [--epoch NS]
//   turns' options: [--mib N] [--rounds N] [--idle-ms N]
//
// stdout carries only machine-readable lines, parsed by rgpu-bench (bench/cli/worker_output.h):
//   info device <name>
//   metric <name> <value> <unit>
//   bins <name> <epoch_ns> <width_ns> <from_ns> <to_ns> <count>...    (spin)
// stderr carries progress. Any CUDA error prints the failed call and exits 1.
// Times are host wall-clock times (what a program sees), not CUDA events: the remote cost we
// measure is the time the calling thread spends, which device-side events would not show.
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <ctime>
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

// Latency of the calls a training loop waits on most: a small synchronous read-back (a loss's
// .item()), a launch it waits for (through the stream, or through an event recorded after it, as
// timing code does), an allocation. Each is the median of single calls after
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
  cudaEvent_t done = nullptr;
  CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));

  double d2h = 1e30, launch_sync = 1e30, launch_event = 1e30, malloc_free = 1e30;
  for (int round = 0; round < kRounds; ++round) {
    std::fprintf(stderr,
                 "latency round %d of %d: 4-byte D2H, launch + stream or event sync (x %d), cudaMalloc + cudaFree (x %d)\n",
                 round + 1, kRounds, iters, alloc_iters);
    d2h = std::min(d2h, median_seconds(warmup, iters, [&] {
                     CHECK(cudaMemcpy(&host, dev, 4, cudaMemcpyDeviceToHost));
                   }));
    launch_sync = std::min(launch_sync, median_seconds(warmup, iters, [&] {
                             empty_kernel<<<1, 1, 0, stream>>>();
                             CHECK(cudaStreamSynchronize(stream));
                           }));
    launch_event = std::min(launch_event, median_seconds(warmup, iters, [&] {
                              empty_kernel<<<1, 1, 0, stream>>>();
                              CHECK(cudaEventRecord(done, stream));
                              CHECK(cudaEventSynchronize(done));
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
  metric("latency_launch_event_sync", us(launch_event), "us");
  metric("latency_malloc_free_1MiB", us(malloc_free), "us");
  CHECK(cudaEventDestroy(done));
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

// --- spin: the tenant mix of `rgpu bench pool` -------------------------------------------------
//
// A kernel that spins for --kernel-us on every SM (one block of 32 threads per SM), launched in a
// loop with a cudaStreamSynchronize every --sync-every launches, from --epoch (CLOCK_MONOTONIC ns; default:
// now) until --duration seconds after it. Completions are counted in --bin-ms bins from the
// epoch, so the driver can line several tenants up on one time axis. Each kernel's block 0 stores
// its %globaltimer start and end: on a GPU the completions are binned by those (mapped to the host
// clock), so a bin holds exactly the kernels that ended in it, whatever --sync-every is; without
// stamps (the emulated backend runs no kernels) by the time each sync returned ("info timing host").
// With --block-us B the kernel is instead waves of blocks that spin B us each and fill every SM's
// thread slots (16 blocks of 128 threads per SM), kernel-us / B waves: the shape of a real
// trainer's kernels, which leave no room on the GPU beside them until their blocks retire.

struct SpinOptions {
  int64_t kernel_us = 1000;
  int sync_every = 8;
  double duration_s = 3;
  int64_t epoch_ns = -1;  // -1: when the loop starts
  int64_t bin_ms = 10;
  int64_t block_us = 0;  // 0: one block per SM for the whole kernel
};

// A spin kernel's launch shape (see spin above).
struct SpinShape {
  int blocks = 1;
  int threads = 32;
  uint64_t block_ns = 0;   // how long each block spins
  uint64_t kernel_ns = 0;  // how long the kernel spins: its waves of blocks
};
constexpr int kFillBlocksPerSm = 16, kFillThreads = 128;  // 2048 threads: a full SM

int64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

void sleep_until(int64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

// The GPU's nanosecond clock, one for the whole device. volatile: read anew each time, never
// hoisted out of the loop or removed.
__device__ __forceinline__ uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Spins until `ns` of GPU time have passed since the block started. The first block's start and
// the last block's end go to stamps[2 * slot]: the loop's end time depends on the clock it read,
// so the compiler cannot drop it, and the host checks the stamps say the kernel really spun.
__global__ void spin_kernel(uint64_t ns, uint64_t* stamps, uint32_t slot) {
  const uint64_t start = global_ns();
  uint64_t now = start;
  while (now - start < ns) now = global_ns();
  if (threadIdx.x == 0 && blockIdx.x == 0) stamps[2 * slot] = start;
  if (threadIdx.x == 0 && blockIdx.x == gridDim.x - 1) stamps[2 * slot + 1] = now;
}

__global__ void clock_kernel(uint64_t* out) { *out = global_ns(); }

// globaltimer - CLOCK_MONOTONIC, from the tightest of a few launch + sync round trips (the
// kernel ran between the two host reads; the midpoint is off by at most half the round trip).
int64_t gpu_clock_offset(cudaStream_t stream) {
  uint64_t* dev = nullptr;
  CHECK(cudaMalloc(&dev, sizeof(uint64_t)));
  CHECK(cudaMemset(dev, 0, sizeof(uint64_t)));
  int64_t best_rtt = INT64_MAX, offset = 0;
  for (int i = 0; i < 8; ++i) {
    int64_t t0 = monotonic_ns();
    clock_kernel<<<1, 1, 0, stream>>>(dev);
    CHECK(cudaStreamSynchronize(stream));
    int64_t t1 = monotonic_ns();
    uint64_t gpu = 0;
    CHECK(cudaMemcpy(&gpu, dev, sizeof gpu, cudaMemcpyDeviceToHost));
    if (t1 - t0 < best_rtt) {
      best_rtt = t1 - t0;
      offset = static_cast<int64_t>(gpu) - (t0 + (t1 - t0) / 2);
    }
  }
  CHECK(cudaFree(dev));
  return offset;
}

// The current device's SM count: one spinning block each keeps the whole GPU busy.
int sm_count() {
  int device = 0, sms = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return std::max(sms, 1);
}

SpinShape spin_shape(const SpinOptions& o) {
  const int sms = sm_count();
  const uint64_t kernel_ns = static_cast<uint64_t>(o.kernel_us) * 1000;
  if (o.block_us <= 0 || o.block_us >= o.kernel_us) return SpinShape{sms, 32, kernel_ns, kernel_ns};
  const int waves = static_cast<int>(o.kernel_us / o.block_us);
  const uint64_t block_ns = static_cast<uint64_t>(o.block_us) * 1000;
  return SpinShape{sms * kFillBlocksPerSm * waves, kFillThreads, block_ns, block_ns * static_cast<uint64_t>(waves)};
}

void spin(const SpinOptions& o, cudaStream_t stream) {
  const SpinShape shape = spin_shape(o);
  const uint64_t kernel_ns = shape.kernel_ns;
  const int64_t duration_ns = static_cast<int64_t>(o.duration_s * 1e9);
  const int64_t width_ns = o.bin_ms * 1000000;
  // On a GPU the stream runs its kernels one after another, each at least kernel_ns long, so
  // this many slots hold every launch; beyond it (only where kernels take no time) slots wrap and
  // the host's clock is used.
  const uint64_t capacity =
      std::min<uint64_t>(static_cast<uint64_t>(duration_ns) / kernel_ns * 5 / 4 + 4096, uint64_t{1} << 22);
  uint64_t* stamps = nullptr;
  CHECK(cudaMalloc(&stamps, capacity * 2 * sizeof(uint64_t)));
  CHECK(cudaMemset(stamps, 0, capacity * 2 * sizeof(uint64_t)));
  // Warm-up: the module is loaded and the first launch's cost paid before the clock starts.
  spin_kernel<<<shape.blocks, shape.threads, 0, stream>>>(shape.block_ns, stamps, 0);
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaGetLastError());
  const int64_t offset = gpu_clock_offset(stream);

  const int64_t epoch = o.epoch_ns >= 0 ? o.epoch_ns : monotonic_ns();
  std::fprintf(stderr, "spin: %lld us kernels of %d blocks x %d threads spinning %.0f us each, sync every %d, %.2f s%s\n",
               static_cast<long long>(o.kernel_us), shape.blocks, shape.threads, static_cast<double>(shape.block_ns) / 1e3,
               o.sync_every, o.duration_s,
               epoch > monotonic_ns() ? ", waiting for the epoch" : "");
  sleep_until(epoch);
  const int64_t deadline = epoch + duration_ns;
  const int64_t from = monotonic_ns();
  std::vector<std::pair<int64_t, int>> syncs;  // host time a sync returned, launches it covered
  syncs.reserve(1 << 16);
  uint64_t launches = 0;
  int pending = 0;
  int64_t now = from;
  while (now < deadline) {
    spin_kernel<<<shape.blocks, shape.threads, 0, stream>>>(shape.block_ns, stamps, static_cast<uint32_t>(launches % capacity));
    ++launches;
    if (++pending == o.sync_every) {
      CHECK(cudaStreamSynchronize(stream));
      syncs.emplace_back(monotonic_ns(), pending);
      pending = 0;
    }
    now = monotonic_ns();
  }
  const int64_t to = std::min(now, deadline);
  if (from >= deadline) {  // nothing ran in the window: no bins to report, and no rate
    std::fprintf(stderr,
                 "rgpu-bench-worker: started %.0f ms after the epoch, past its %.0f ms window: its session waited in "
                 "the pool's queue or its CUDA start-up was slow; nothing was measured (a longer --duration, or "
                 "fewer other sessions on the pool, gives it room)\n",
                 static_cast<double>(from - epoch) / 1e6, static_cast<double>(duration_ns) / 1e6);
    std::exit(1);
  }
  if (pending) {
    CHECK(cudaStreamSynchronize(stream));
    syncs.emplace_back(monotonic_ns(), pending);
  }
  CHECK(cudaGetLastError());

  const uint64_t stored = std::min(launches, capacity);
  std::vector<uint64_t> host(stored * 2);
  CHECK(cudaMemcpy(host.data(), stamps, host.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(stamps));
  bool device_timing = launches <= capacity && launches > 0;
  std::vector<double> spun_us;
  for (uint64_t i = 0; device_timing && i < stored; ++i) {
    device_timing = host[2 * i] != 0 && host[2 * i + 1] >= host[2 * i];
    spun_us.push_back(static_cast<double>(host[2 * i + 1] - host[2 * i]) / 1e3);
  }
  if (device_timing) {
    // The check that the kernel spins: on a GPU every kernel lasted its --kernel-us (its waves).
    double measured = median(spun_us);
    metric("spin_kernel_measured", measured, "us");
    if (measured < 0.95 * static_cast<double>(shape.kernel_ns) / 1e3) {
      std::fprintf(stderr, "rgpu-bench-worker: the spin kernel ran %.1f us, not %.1f us: it does not spin\n",
                   measured, static_cast<double>(shape.kernel_ns) / 1e3);
      std::exit(1);
    }
  }

  std::vector<int64_t> counts;
  auto count = [&](int64_t t, int64_t n) {
    int64_t bin = std::max<int64_t>(0, (t - epoch) / width_ns);
    if (static_cast<size_t>(bin) >= counts.size()) counts.resize(bin + 1, 0);
    counts[bin] += n;
  };
  if (device_timing)
    for (uint64_t i = 0; i < stored; ++i) count(static_cast<int64_t>(host[2 * i + 1]) - offset, 1);
  else
    for (const auto& [t, n] : syncs) count(t, n);

  std::printf("info timing %s\n", device_timing ? "device" : "host");
  metric("spin_launches", static_cast<double>(launches), "launches");
  metric("spin_rate", static_cast<double>(launches) / (static_cast<double>(to - from) / 1e9), "launches/s");
  std::printf("bins spin_completions %lld %lld %lld %lld", static_cast<long long>(epoch),
              static_cast<long long>(width_ns), static_cast<long long>(from - epoch),
              static_cast<long long>(to - epoch));
  for (int64_t c : counts) std::printf(" %lld", static_cast<long long>(c));
  std::printf("\n");
  std::fflush(stdout);
}

// --- requests: a latency-bound tenant for `rgpu bench pool --priority` ------------------------
//
// One request = one spin kernel of --kernel-us on every SM, then cudaStreamSynchronize; the next
// request comes a gap after the last one's answer (a service answering one query at a time), from
// --epoch for --duration seconds. The gaps are drawn evenly from 0.5 to 1.5 x --gap-us (a fixed
// seed): requests 2 ms apart exactly arrived in step with a neighbour's 1 ms kernels on the H200,
// and their wait then depended on the phase alone (1.07 to 1.72 ms p50 for gaps of 2.75 and 3.1 ms). Prints each request's latency as its client sees it (launch
// to the sync's return) as percentiles, and the fraction of wall time its kernels kept the GPU.
void requests(const SpinOptions& o, int64_t gap_us, cudaStream_t stream) {
  const int sms = sm_count();
  const uint64_t kernel_ns = static_cast<uint64_t>(o.kernel_us) * 1000;
  uint64_t* stamps = nullptr;
  CHECK(cudaMalloc(&stamps, 2 * sizeof(uint64_t)));
  spin_kernel<<<sms, 32, 0, stream>>>(kernel_ns, stamps, 0);  // warm-up
  CHECK(cudaStreamSynchronize(stream));
  const int64_t epoch = o.epoch_ns >= 0 ? o.epoch_ns : monotonic_ns();
  sleep_until(epoch);
  const int64_t deadline = epoch + static_cast<int64_t>(o.duration_s * 1e9);
  std::vector<double> latency_us;
  latency_us.reserve(1 << 16);
  std::mt19937 random(1);
  std::uniform_int_distribution<int64_t> gap(gap_us / 2, gap_us + gap_us / 2);
  const int64_t from = monotonic_ns();
  int64_t now = from;
  while (now < deadline) {
    const int64_t sent = monotonic_ns();
    spin_kernel<<<sms, 32, 0, stream>>>(kernel_ns, stamps, 0);
    CHECK(cudaStreamSynchronize(stream));
    now = monotonic_ns();
    latency_us.push_back(static_cast<double>(now - sent) / 1e3);
    sleep_until(now + gap(random) * 1000);
    now = monotonic_ns();
  }
  CHECK(cudaGetLastError());
  CHECK(cudaFree(stamps));
  std::vector<double> sorted = latency_us;
  std::sort(sorted.begin(), sorted.end());
  auto at = [&](double q) { return sorted.empty() ? 0.0 : sorted[static_cast<size_t>(q * static_cast<double>(sorted.size() - 1))]; };
  metric("requests", static_cast<double>(sorted.size()), "requests");
  metric("request_p50", at(0.50), "us");
  metric("request_p99", at(0.99), "us");
  metric("request_busy", static_cast<double>(sorted.size()) * static_cast<double>(kernel_ns) /
                             static_cast<double>(std::max<int64_t>(now - from, 1)), "fraction");
  std::fflush(stdout);
}

// --- turns: a tenant of `rgpu bench pool --overcommit` ------------------------------------------
//
// Holds one allocation of --mib MiB and uses it in --rounds rounds with --idle-ms pauses between
// them (over an over-committed pool it is swapped out while idle and back at its next call): each
// round's first call reads samples of what the last round wrote, timed (the pause a swapped tenant
// sees: its swap-in and any wait for room), and writes a new value over all of it.
void turns(int64_t mib, int rounds, int64_t idle_ms) {
  const size_t bytes = static_cast<size_t>(mib) << 20, sample = 1 << 20;
  constexpr int kSamples = 16;
  unsigned char* p = nullptr;
  CHECK(cudaMalloc(&p, bytes));
  std::vector<unsigned char> buf(sample);
  auto intact = [&](unsigned char value) {
    for (int i = 0; i < kSamples; ++i) {
      CHECK(cudaMemcpy(buf.data(), p + (bytes - sample) / (kSamples - 1) * i, sample, cudaMemcpyDeviceToHost));
      for (unsigned char b : buf)
        if (b != value) return false;
    }
    return true;
  };
  bool ok = true;
  std::vector<double> pauses_ms;
  unsigned char value = 0;
  for (int r = 0; r < rounds && ok; ++r) {
    if (r > 0) {
      const int64_t start = monotonic_ns();
      ok = intact(value);
      pauses_ms.push_back(static_cast<double>(monotonic_ns() - start) / 1e6);
    }
    value = static_cast<unsigned char>(r * 37 + 11);
    CHECK(cudaMemset(p, value, bytes));
    CHECK(cudaDeviceSynchronize());
    usleep(static_cast<useconds_t>(idle_ms) * 1000);
  }
  ok = ok && intact(value);
  CHECK(cudaFree(p));
  std::sort(pauses_ms.begin(), pauses_ms.end());
  metric("turns_intact", ok ? 1 : 0, "bool");
  metric("turn_pause_median", pauses_ms.empty() ? 0 : pauses_ms[pauses_ms.size() / 2], "ms");
  metric("turn_pause_max", pauses_ms.empty() ? 0 : pauses_ms.back(), "ms");
  std::fflush(stdout);
}

// --- hold: the tenants of `rgpu bench pool --queue` --------------------------------------------
//
// Says when its session is up (its calls before this one started it: a queued session waits in
// them) and how long that took since the program began, holds its slice for --idle-ms, and says
// when it lets go, just before the program exits (the rest of its exit is counted against rgpu).
// Times are CLOCK_MONOTONIC in ns, comparable between the host's processes.
void hold(int64_t program_began_ns, int64_t idle_ms) {
  const int64_t up = monotonic_ns();
  std::printf("info hold_up_ns %lld\n", static_cast<long long>(up));
  metric("hold_start", static_cast<double>(up - program_began_ns) / 1e6, "ms");
  usleep(static_cast<useconds_t>(idle_ms) * 1000);
  std::printf("info hold_end_ns %lld\n", static_cast<long long>(monotonic_ns()));
  std::fflush(stdout);
}

int usage() {
  std::fprintf(stderr,
               "usage: rgpu-bench-worker [--quick] copy|latency|launch|spin|requests|turns|hold...\n"
               "       spin options: [--kernel-us N] [--sync-every N] [--duration S] [--epoch NS] [--bin-ms N] [--block-us N]\n"
               "       requests options: [--kernel-us N] [--gap-us N] [--duration S] [--epoch NS]\n"
               "       turns options: [--mib N] [--rounds N] [--idle-ms N]\n"
               "       hold options: [--idle-ms N]\n");
  return 2;
}

// A whole number in [lo, hi], or nothing.
bool parse_number(const char* text, long long lo, long long hi, long long& out) {
  char* end = nullptr;
  long long v = std::strtoll(text, &end, 10);
  if (!*text || *end || v < lo || v > hi) return false;
  out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t began_ns = monotonic_ns();
  bool quick = false;
  SpinOptions spin_options;
  int64_t gap_us = 1000;
  int64_t turns_mib = 256, turns_rounds = 3, turns_idle_ms = 1000;
  std::vector<std::string> scenarios;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    long long v = 0;
    const bool has_value = i + 1 < argc;
    if (a == "--quick") quick = true;
    else if (a == "copy" || a == "latency" || a == "launch" || a == "spin" || a == "requests" || a == "turns" ||
             a == "hold") scenarios.push_back(a);
    else if (a == "--mib" && has_value && parse_number(argv[++i], 2, 1 << 24, v)) turns_mib = v;
    else if (a == "--rounds" && has_value && parse_number(argv[++i], 1, 1000, v)) turns_rounds = v;
    else if (a == "--idle-ms" && has_value && parse_number(argv[++i], 0, 600000, v)) turns_idle_ms = v;
    else if (a == "--gap-us" && has_value && parse_number(argv[++i], 0, 10000000, v)) gap_us = v;
    else if (a == "--kernel-us" && has_value && parse_number(argv[++i], 1, 10000000, v)) spin_options.kernel_us = v;
    else if (a == "--sync-every" && has_value && parse_number(argv[++i], 1, 1000000, v)) spin_options.sync_every = static_cast<int>(v);
    else if (a == "--epoch" && has_value && parse_number(argv[++i], 0, INT64_MAX, v)) spin_options.epoch_ns = v;
    else if (a == "--bin-ms" && has_value && parse_number(argv[++i], 1, 1000, v)) spin_options.bin_ms = v;
    else if (a == "--block-us" && has_value && parse_number(argv[++i], 1, 10000000, v)) spin_options.block_us = v;
    else if (a == "--duration" && has_value) {
      char* end = nullptr;
      spin_options.duration_s = std::strtod(argv[++i], &end);
      if (*end || !(spin_options.duration_s > 0 && spin_options.duration_s <= 3600)) return usage();
    } else return usage();
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
    else if (s == "spin") spin(spin_options, stream);
    else if (s == "requests") requests(spin_options, gap_us, stream);
    else if (s == "turns") turns(turns_mib, static_cast<int>(turns_rounds), turns_idle_ms);
    else if (s == "hold") hold(began_ns, turns_idle_ms);
    else launch(quick, stream);
  }
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
