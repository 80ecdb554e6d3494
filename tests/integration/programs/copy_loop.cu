// Copies KIB KiB to the device and back, round after round with a new pattern each, and checks
// every byte that came back, until a copy fails or SECONDS pass (at least one round): the fault
// tests (run_fault_tests.sh) stop, kill or cut its server under it. A wrong byte after copies that
// said cudaSuccess is the one outcome that must never happen.
//   usage: copy_loop SECONDS KIB [pinned]   (pinned: the host buffers come from cudaMallocHost)
//   exit 0: "every copy came back right (N rounds)"; 3: "a copy failed after S s (round N): ERROR";
//   4: "FAIL round N: wrong data after cudaSuccess"; 2: no session to begin with
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 10;
  const size_t n = (argc > 2 ? static_cast<size_t>(std::atol(argv[2])) : 16384) << 10;
  const bool pinned = argc > 3 && std::strcmp(argv[3], "pinned") == 0;
  std::vector<unsigned char> pageable_src(pinned ? 0 : n), pageable_back(pinned ? 0 : n);
  unsigned char* src = pageable_src.data();
  unsigned char* back = pageable_back.data();
  if (pinned && (cudaMallocHost(&src, n) != cudaSuccess || cudaMallocHost(&back, n) != cudaSuccess))
    return std::printf("no session: cudaMallocHost failed\n"), 2;
  unsigned char* dev = nullptr;
  if (cudaMalloc(&dev, n) != cudaSuccess) return std::printf("no session: cudaMalloc failed\n"), 2;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  long round = 0;
  do {
    // A pattern of its own each round, so that bytes left over from an earlier round are wrong.
    for (size_t i = 0; i < n; ++i) src[i] = static_cast<unsigned char>(i * 131 + (i >> 13) + round * 7 + 1);
    std::fill(back, back + n, 0);
    cudaError_t st = cudaMemcpy(dev, src, n, cudaMemcpyHostToDevice);
    if (st == cudaSuccess) st = cudaMemcpy(back, dev, n, cudaMemcpyDeviceToHost);
    if (st != cudaSuccess) {
      std::printf("a copy failed after %.1f s (round %ld): %s\n", elapsed(), round, cudaGetErrorName(st));
      return 3;
    }
    if (std::memcmp(back, src, n) != 0) return std::printf("FAIL round %ld: wrong data after cudaSuccess\n", round), 4;
    if (round++ == 0) std::printf("copying\n");
    std::fflush(stdout);
  } while (elapsed() < seconds);
  std::printf("every copy came back right (%ld rounds)\n", round);
  return 0;
}
