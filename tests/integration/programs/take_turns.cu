// Holds one large allocation and uses it in rounds with idle pauses between them, checking each
// time that what it wrote last is still there: over an over-committed pool its memory is swapped
// out while it idles and back at its next call. `take_turns MIB ROUNDS IDLE_MS [SEED]` prints, per
// round, how long the round's first call took (a swap-in's pause shows there) and ends with PASS.
#include <cuda_runtime.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr size_t kSample = 1 << 20;
constexpr int kSamples = 16;

// Samples spread over the allocation, each compared with `value`.
bool intact(const unsigned char* p, size_t bytes, unsigned char value, std::vector<unsigned char>& buf) {
  for (int i = 0; i < kSamples; ++i) {
    size_t off = (bytes - kSample) / (kSamples - 1) * i;
    if (cudaMemcpy(buf.data(), p + off, kSample, cudaMemcpyDeviceToHost) != cudaSuccess) return false;
    for (size_t j = 0; j < kSample; ++j)
      if (buf[j] != value) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: take_turns MIB ROUNDS IDLE_MS [SEED]\n");
    return 2;
  }
  const size_t bytes = static_cast<size_t>(std::atol(argv[1])) << 20;
  const int rounds = std::atoi(argv[2]);
  const int idle_ms = std::atoi(argv[3]);
  const int seed = argc > 4 ? std::atoi(argv[4]) : 1;
  unsigned char* p = nullptr;
  if (bytes < kSample || cudaMalloc(&p, bytes) != cudaSuccess) {
    std::printf("FAIL: cudaMalloc of %zu MiB\n", bytes >> 20);
    return 1;
  }
  std::vector<unsigned char> buf(kSample);
  unsigned char value = 0;
  for (int r = 0; r < rounds; ++r) {
    auto start = std::chrono::steady_clock::now();
    bool ok = r == 0 || intact(p, bytes, value, buf);
    const double first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!ok) {
      std::printf("FAIL: round %d: the data written in round %d changed\n", r, r - 1);
      return 1;
    }
    value = static_cast<unsigned char>(seed * 37 + r * 11 + 1);
    if (cudaMemset(p, value, bytes) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
      std::printf("FAIL: round %d: cudaMemset\n", r);
      return 1;
    }
    std::printf("round %d: first call after idle %.1f ms, data intact\n", r, first_ms);
    std::fflush(stdout);
    usleep(static_cast<useconds_t>(idle_ms) * 1000);
  }
  const bool ok = intact(p, bytes, value, buf);
  std::printf("%s\n", ok ? "PASS" : "FAIL: the last round's data changed");
  return ok ? 0 : 1;
}
