// Copies MIB MiB to the device and back each time a line arrives from CUE (a fifo the test writes
// to) and says how it went: the fault tests (run_fault_tests.sh) change what the server may
// allocate between the lines.
//   usage: copy_on_cue MIB CUE   prints "ready", then per line "copy: CODE NAME" (0 cudaSuccess: every
//   byte checked) or "copy: wrong data after cudaSuccess"; ends when CUE closes. The code, for the
//   emulated backend names few errors.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 3) return std::printf("usage: copy_on_cue MIB CUE\n"), 2;
  const size_t n = static_cast<size_t>(std::atol(argv[1])) << 20;
  std::vector<unsigned char> src(n), back(n);
  unsigned char* dev = nullptr;
  if (cudaMalloc(&dev, n) != cudaSuccess) return std::printf("no session: cudaMalloc failed\n"), 2;
  std::ifstream cue(argv[2]);
  std::printf("ready\n");
  std::fflush(stdout);
  long round = 0;
  for (std::string line; std::getline(cue, line); ++round) {
    for (size_t i = 0; i < n; ++i) src[i] = static_cast<unsigned char>(i * 131 + (i >> 13) + round * 7 + 1);
    back.assign(n, 0);
    cudaError_t st = cudaMemcpy(dev, src.data(), n, cudaMemcpyHostToDevice);
    if (st == cudaSuccess) st = cudaMemcpy(back.data(), dev, n, cudaMemcpyDeviceToHost);
    if (st == cudaSuccess && back != src) std::printf("copy: wrong data after cudaSuccess\n");
    else std::printf("copy: %d %s\n", st, cudaGetErrorName(st));
    std::fflush(stdout);
  }
  return 0;
}
