// Makes a synchronous call every 20 ms until one fails or `seconds` pass, then says which error
// ended it: the liveness test stops the server under it (run_reliability_tests.sh). With `spin_s`,
// the first call is a kernel that spins that long on the GPU (a legitimately long call, which the
// liveness checks must not take for a hung server).
//   usage: keep_calling SECONDS [SPIN_S]
#include <cuda_runtime.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 60;
  const double spin_s = argc > 2 ? std::atof(argv[2]) : 0;
  void* p = nullptr;
  if (cudaMalloc(&p, 1 << 20) != cudaSuccess) return 2;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  if (spin_s > 0) {
    int khz = 0;
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
    spin<<<1, 1>>>(static_cast<long long>(spin_s * khz * 1000.0));
    const cudaError_t st = cudaDeviceSynchronize();
    std::printf("a %.0f s kernel ended after %.1f s: %s\n", spin_s, elapsed(), cudaGetErrorName(st));
    if (st != cudaSuccess) return 1;
  }
  std::printf("calling\n");
  std::fflush(stdout);
  while (elapsed() < seconds) {
    cudaError_t st = cudaMemset(p, 1, 1 << 20);
    if (st == cudaSuccess) st = cudaDeviceSynchronize();
    if (st != cudaSuccess) {
      std::printf("a call failed after %.1f s: %s\n", elapsed(), cudaGetErrorName(st));
      return 3;
    }
    usleep(20 * 1000);
  }
  std::printf("every call succeeded for %.0f s\n", seconds);
  return 0;
}
