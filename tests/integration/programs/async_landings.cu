// Async D2H copies behind a long kernel neither hold up the session nor land late: while the
// copies wait for their stream, the server still answers (a query says the stream is busy, and a
// call of no stream returns); once the stream's event, the stream or the device is synchronised,
// every byte has landed, small (on the pipe) and large (striped with RGPU_STRIPES > 1 and
// RGPU_STRIPE_MIN_MB at most 40), into pinned and into pageable memory; a host function behind a
// copy on its stream reads what it brought down. And in 16_host_callbacks' shape: rounds of a copy
// followed by a host function or a stream callback, all issued behind a long kernel before the
// first of them runs (on a GPU, the driver runs them later on a thread of its own; the emulated
// backend defers them likewise), each see their copy's bytes (1 MiB and more: striped when
// RGPU_STRIPE_MIN_MB is 1) however many copies were issued after it.
//   usage: async_landings SPIN_S  (each round's kernel spins SPIN_S seconds; the emulated backend's
//   kernels last RGPU_EMULATED_KERNEL_MS of its daemon instead)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK_OK(x)                                                                        \
  do {                                                                                     \
    if (cudaError_t e_ = (x); e_ != cudaSuccess) return std::printf("FAIL %s: %d\n", #x, e_), 1; \
  } while (0)

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

namespace {

struct Seen {
  const unsigned char* dst;
  const unsigned char* expected;
  size_t n;
  bool matched = false;
  bool ran = false;
};

void CUDART_CB check_in_host_function(void* p) {
  auto* s = static_cast<Seen*>(p);
  s->matched = std::memcmp(s->dst, s->expected, s->n) == 0;
  s->ran = true;
}

void CUDART_CB check_in_stream_callback(cudaStream_t, cudaError_t status, void* p) {
  if (status == cudaSuccess) check_in_host_function(p);
}

}  // namespace

int main(int argc, char** argv) {
  const double spin_s = argc > 1 ? std::atof(argv[1]) : 2;
  const size_t small = 4099, large = (40u << 20) + 4097;
  std::vector<unsigned char> pattern(large);
  for (size_t i = 0; i < large; ++i) pattern[i] = static_cast<unsigned char>(i * 7 + (i >> 11));
  unsigned char *dev = nullptr, *pinned = nullptr;
  CHECK_OK(cudaMalloc(&dev, large));
  CHECK_OK(cudaMemcpy(dev, pattern.data(), large, cudaMemcpyHostToDevice));
  CHECK_OK(cudaMallocHost(&pinned, small));
  std::vector<unsigned char> pageable(large);
  cudaStream_t s = nullptr;
  CHECK_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t after = nullptr;
  CHECK_OK(cudaEventCreateWithFlags(&after, cudaEventDisableTiming));
  int khz = 0;
  CHECK_OK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));

  const char* const syncs[] = {"cudaEventSynchronize", "cudaStreamSynchronize", "cudaDeviceSynchronize"};
  // A cudaMalloc a round, freed only at the end: a cudaFree synchronises the device, and a cudaMalloc
  // taking back a block freed before waits for the device in its stead (client/runtime/freed_blocks.h).
  void* scratch[3] = {};
  int round = 0;
  for (const char* how : syncs) {
    std::memset(pinned, 0, small);
    std::memset(pageable.data(), 0, large);
    spin<<<1, 1, 0, s>>>(static_cast<long long>(spin_s * khz * 1000.0));
    CHECK_OK(cudaGetLastError());
    CHECK_OK(cudaMemcpyAsync(pinned, dev + 3, small, cudaMemcpyDeviceToHost, s));
    CHECK_OK(cudaMemcpyAsync(pageable.data(), dev, large, cudaMemcpyDeviceToHost, s));
    CHECK_OK(cudaEventRecord(after, s));
    // The copies wait for the kernel; the session does not wait for them.
    if (cudaStreamQuery(s) != cudaErrorNotReady)
      return std::printf("FAIL %s round: the session answered only after the stream's copies\n", how), 1;
    CHECK_OK(cudaMalloc(&scratch[round++], 4096));
    if (cudaStreamQuery(s) != cudaErrorNotReady)
      return std::printf("FAIL %s round: a call of no stream waited for the stream's copies\n", how), 1;
    if (how == syncs[0]) CHECK_OK(cudaEventSynchronize(after));
    if (how == syncs[1]) CHECK_OK(cudaStreamSynchronize(s));
    if (how == syncs[2]) CHECK_OK(cudaDeviceSynchronize());
    if (std::memcmp(pinned, pattern.data() + 3, small) != 0)
      return std::printf("FAIL %s returned before a small copy landed\n", how), 1;
    if (std::memcmp(pageable.data(), pattern.data(), large) != 0)
      return std::printf("FAIL %s returned before a large copy landed\n", how), 1;
  }
  for (void* p : scratch) CHECK_OK(cudaFree(p));

  // A host function behind a copy on its stream sees the copy's bytes.
  std::memset(pageable.data(), 0, large);
  Seen seen{pageable.data(), pattern.data(), large};
  CHECK_OK(cudaMemcpyAsync(pageable.data(), dev, large, cudaMemcpyDeviceToHost, s));
  CHECK_OK(cudaLaunchHostFunc(s, check_in_host_function, &seen));
  CHECK_OK(cudaStreamSynchronize(s));
  if (!seen.matched) return std::printf("FAIL a host function ran before the copy ahead of it landed\n"), 1;

  // Rounds of a copy and then a host function (even rounds) or a stream callback (odd ones), all
  // issued before the first of them runs: behind a long kernel, and round 4 on a second stream
  // behind one of its own.
  constexpr int kRounds = 6;
  const size_t slot = (1u << 20) + 4099;
  unsigned char* slots = nullptr;
  CHECK_OK(cudaMallocHost(&slots, kRounds * slot));
  std::memset(slots, 0, kRounds * slot);
  cudaStream_t s2 = nullptr;
  CHECK_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  Seen rounds[kRounds] = {};
  for (int r = 0; r < kRounds; ++r) {
    cudaStream_t on = r == 4 ? s2 : s;
    if (r == 0 || r == 4) {
      spin<<<1, 1, 0, on>>>(static_cast<long long>(spin_s * khz * 1000.0));
      CHECK_OK(cudaGetLastError());
    }
    rounds[r] = Seen{slots + r * slot, pattern.data() + r * 4096, slot};
    CHECK_OK(cudaMemcpyAsync(slots + r * slot, dev + r * 4096, slot, cudaMemcpyDeviceToHost, on));
    if (r % 2 == 0) CHECK_OK(cudaLaunchHostFunc(on, check_in_host_function, &rounds[r]));
    else CHECK_OK(cudaStreamAddCallback(on, check_in_stream_callback, &rounds[r], 0));
  }
  CHECK_OK(cudaDeviceSynchronize());
  for (int r = 0; r < kRounds; ++r) {
    const char* what = r % 2 == 0 ? "host function" : "stream callback";
    if (!rounds[r].ran) return std::printf("FAIL round %d: its %s did not run\n", r, what), 1;
    if (!rounds[r].matched)
      return std::printf("FAIL round %d: its %s ran before the copy ahead of it landed\n", r, what), 1;
  }
  CHECK_OK(cudaStreamDestroy(s2));
  CHECK_OK(cudaFreeHost(slots));

  CHECK_OK(cudaEventDestroy(after));
  CHECK_OK(cudaStreamDestroy(s));
  CHECK_OK(cudaFreeHost(pinned));
  CHECK_OK(cudaFree(dev));
  std::printf("ok: async_landings\n");
  return 0;
}
