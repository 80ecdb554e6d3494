// A tenant's view of its memory slice, driven by commands on stdin (one per line), each answered on
// stdout: `info` (what cudaMemGetInfo and the device properties say the GPU has), `alloc MIB`
// (one allocation), `pool MIB` (one allocation from a pool the program created, kept), `fill` (1 MiB allocations until one is refused, then proof the session still
// works), `quit`. The pool tests start it through rgpu run and talk to it through a fifo.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

std::vector<void*> held;
std::vector<void*> held_from_pool;  // freed with cudaFreeAsync
cudaMemPool_t created_pool;

// The error's name and number: the emulated backend has no runtime to name errors, so the tests
// read the number.
const char* named(cudaError_t st) {
  static char buf[4][96];
  static int next = 0;
  char* b = buf[next++ % 4];
  std::snprintf(b, sizeof buf[0], "%s (%d)", cudaGetErrorName(st), static_cast<int>(st));
  return b;
}

void info() {
  size_t free_bytes = 0, total = 0;
  cudaError_t st = cudaMemGetInfo(&free_bytes, &total);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("info: %s total %zu MiB free %zu MiB properties %zu MiB\n", named(st), total >> 20,
              free_bytes >> 20, prop.totalGlobalMem >> 20);
}

void alloc(size_t mib) {
  void* p = nullptr;
  cudaError_t st = cudaMalloc(&p, mib << 20);
  if (st == cudaSuccess) held.push_back(p);
  std::printf("alloc %zu MiB: %s\n", mib, named(st));
}

// From a created pool, which must not be a way around the slice.
void pool_alloc(size_t mib) {
  cudaError_t st = cudaSuccess;
  if (!created_pool) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    st = cudaMemPoolCreate(&created_pool, &props);
  }
  void* p = nullptr;
  if (st == cudaSuccess) st = cudaMallocFromPoolAsync(&p, mib << 20, created_pool, 0);
  if (st == cudaSuccess) st = cudaStreamSynchronize(0);
  if (st == cudaSuccess) held_from_pool.push_back(p);
  std::printf("pool %zu MiB: %s\n", mib, named(st));
}

void fill() {
  size_t n = 0;
  cudaError_t st = cudaSuccess;
  for (; n < (1u << 20); ++n) {
    void* p = nullptr;
    st = cudaMalloc(&p, 1u << 20);
    if (st != cudaSuccess) break;
    held.push_back(p);
  }
  // The refusal is an ordinary allocation failure: it is not sticky, and the session goes on.
  cudaError_t last = cudaGetLastError();
  void* probe = held.empty() ? nullptr : held.back();
  cudaError_t after = probe ? cudaMemset(probe, 7, 1u << 20) : cudaErrorInvalidValue;
  if (after == cudaSuccess) after = cudaDeviceSynchronize();
  std::printf("fill: %zu MiB allocated, then %s, last error %s; memset after it: %s\n", n, named(st), named(last),
              named(after));
}

}  // namespace

int main() {
  char line[128];
  // The session opens here (a refused one leaves no device and the reason on stderr).
  int devices = 0;
  cudaError_t st = cudaGetDeviceCount(&devices);
  std::printf("ready: %d device(s), %s\n", devices, named(st));
  std::fflush(stdout);
  while (std::fgets(line, sizeof line, stdin)) {
    size_t mib = 0;
    if (!std::strncmp(line, "info", 4)) info();
    else if (std::sscanf(line, "alloc %zu", &mib) == 1) alloc(mib);
    else if (std::sscanf(line, "pool %zu", &mib) == 1) pool_alloc(mib);
    else if (!std::strncmp(line, "fill", 4)) fill();
    else if (!std::strncmp(line, "quit", 4)) break;
    else std::printf("unknown command: %s", line);
    std::fflush(stdout);
  }
  for (void* p : held) cudaFree(p);
  for (void* p : held_from_pool) cudaFreeAsync(p, 0);
  if (created_pool) cudaMemPoolDestroy(created_pool);
  return 0;
}
