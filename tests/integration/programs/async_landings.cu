// Async D2H copies behind a long kernel neither hold up the session nor land late: while the
// copies wait for their stream, the server still answers (a query says the stream is busy, and a
// call of no stream returns); once the stream's event, the stream or the device is synchronised,
// every byte has landed, small (on the pipe) and large (striped with RGPU_STRIPES > 1 and
// RGPU_STRIPE_MIN_MB at most 40), into pinned and into pageable memory; a host function behind a
// copy on its stream reads what it brought down.
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
};

void CUDART_CB check_in_host_function(void* p) {
  auto* s = static_cast<Seen*>(p);
  s->matched = std::memcmp(s->dst, s->expected, s->n) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const double spin_s = argc > 1 ? std::atof(argv[1]) : 2;
  const size_t small = 4099, large = (40u << 20) + 4097;
  std::vector<unsigned char> pattern(large);
  for (size_t i = 0; i < large; ++i) pattern[i] = static_cast<unsigned char>(i * 7 + (i >> 11));
  unsigned char *dev = nullptr, *pinned = nullptr, *scratch = nullptr;
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
    CHECK_OK(cudaMalloc(&scratch, 4096));
    CHECK_OK(cudaFree(scratch));
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

  // A host function behind a copy on its stream sees the copy's bytes.
  std::memset(pageable.data(), 0, large);
  Seen seen{pageable.data(), pattern.data(), large};
  CHECK_OK(cudaMemcpyAsync(pageable.data(), dev, large, cudaMemcpyDeviceToHost, s));
  CHECK_OK(cudaLaunchHostFunc(s, check_in_host_function, &seen));
  CHECK_OK(cudaStreamSynchronize(s));
  if (!seen.matched) return std::printf("FAIL a host function ran before the copy ahead of it landed\n"), 1;

  CHECK_OK(cudaEventDestroy(after));
  CHECK_OK(cudaStreamDestroy(s));
  CHECK_OK(cudaFreeHost(pinned));
  CHECK_OK(cudaFree(dev));
  std::printf("ok: async_landings\n");
  return 0;
}
