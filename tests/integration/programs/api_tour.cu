// Integration workload for the emulated backend: exercises every runtime path except kernel
// results (the emulated device accepts launches but does not run them) and checks each result it
// can check through copies alone. Prints one line per check and exits non-zero on any failure.
#include <cuda_runtime.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

static int failures = 0;
#define CHECK(cond, what)                                              \
  do {                                                                 \
    bool ok_ = (cond);                                                 \
    std::printf("%s: %s\n", ok_ ? "ok" : "FAIL", what);                \
    if (!ok_) ++failures;                                              \
  } while (0)
// A failed call's line names its status too (an earlier asynchronous call's error surfaces at the
// next synchronous one, so the name says more than the call).
#define CUDA_OK(call)                                                                     \
  do {                                                                                    \
    cudaError_t st_ = (call);                                                             \
    if (st_ == cudaSuccess) std::printf("ok: %s\n", #call);                               \
    else std::printf("FAIL: %s: %s\n", #call, cudaGetErrorName(st_)), ++failures;        \
  } while (0)

#include "tour_arrays.h"

__constant__ int table[16];
__device__ float scale_factor;

__global__ void scale(float* data, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= f * scale_factor + table[i % 16];
}

static void CUDART_CB host_fn(void* arg) { *static_cast<int*>(arg) += 1; }
static void CUDART_CB sleeping_host_fn(void*) { usleep(200 * 1000); }

// A kernel launched, memory copied and freed by a static destructor, as a library's cleanup may do:
// by then the main thread's thread_locals are gone (the client's launch configurations were one).
// Any failure ends the program with status 3.
struct WorkAtExit {
  bool armed = false;
  ~WorkAtExit() {
    if (!armed) return;
    float* d = nullptr;
    float h[32] = {};
    if (cudaMalloc(&d, sizeof h) != cudaSuccess || cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice) != cudaSuccess)
      _exit(3);
    scale<<<1, 32>>>(d, 32, 1.f);
    if (cudaGetLastError() != cudaSuccess || cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaFree(d) != cudaSuccess)
      _exit(3);
    std::printf("ok: a kernel launched, memory copied and freed at exit\n");
  }
} g_work_at_exit;

// Memory pools: the device's pool is one handle however it is asked for; a created pool keeps its
// attributes and access; allocations from it are device memory the client knows (cudaMemcpyDefault),
// its figures follow them, and a trim gives back what the release threshold kept.
static void pool_tour() {
  cudaMemPool_t def1, def2, current;
  CUDA_OK(cudaDeviceGetDefaultMemPool(&def1, 0));
  CUDA_OK(cudaDeviceGetDefaultMemPool(&def2, 0));
  CUDA_OK(cudaDeviceGetMemPool(&current, 0));
  CHECK(def1 == def2 && def1 == current, "the device's default pool is one handle, and the current one");
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t pool;
  CUDA_OK(cudaMemPoolCreate(&pool, &props));
  CHECK(pool != def1, "a created pool is a handle of its own");
  uint64_t threshold = 64u << 20, got = 0;
  CUDA_OK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  CUDA_OK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &got));
  CHECK(got == threshold, "a pool's release threshold reads back");
  int reuse = 0;
  CUDA_OK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &reuse));
  reuse = 7;
  CUDA_OK(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &reuse));
  CHECK(reuse == 0, "an int attribute reads back as an int");
  cudaMemLocation here{cudaMemLocationTypeDevice, 0};
  cudaMemAccessFlags access = cudaMemAccessFlagsProtNone;
  CUDA_OK(cudaMemPoolGetAccess(&access, pool, &here));
  CHECK(access == cudaMemAccessFlagsProtReadWrite, "the owning device may read and write the pool");
  CUDA_OK(cudaDeviceSetMemPool(0, pool));
  CUDA_OK(cudaDeviceGetMemPool(&current, 0));
  CHECK(current == pool, "cudaDeviceGetMemPool answers the pool cudaDeviceSetMemPool set");
  CUDA_OK(cudaDeviceSetMemPool(0, def1));

  cudaStream_t s;
  CUDA_OK(cudaStreamCreate(&s));
  int* p = nullptr;
  CUDA_OK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&p), 8u << 20, pool, s));
  std::vector<int> in(256, 42), out(256, 0);
  CUDA_OK(cudaMemcpyAsync(p, in.data(), in.size() * sizeof(int), cudaMemcpyDefault, s));
  CUDA_OK(cudaMemcpyAsync(out.data(), p, out.size() * sizeof(int), cudaMemcpyDefault, s));
  CUDA_OK(cudaStreamSynchronize(s));
  CHECK(in == out, "memory from a created pool holds data (cudaMemcpyDefault knows it)");
  uint64_t used = 0, reserved = 0;
  CUDA_OK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  CHECK(used >= (8u << 20), "the pool counts what it gave out");
  CUDA_OK(cudaFreeAsync(p, s));
  CUDA_OK(cudaStreamSynchronize(s));
  CUDA_OK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  CUDA_OK(cudaMemPoolTrimTo(pool, 0));
  CUDA_OK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  CHECK(used == 0 && reserved == 0, "after the free and a trim the pool holds nothing");
  CHECK(cudaMemPoolDestroy(def1) != cudaSuccess, "the default pool cannot be destroyed");
  CUDA_OK(cudaMemPoolDestroy(pool));
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &got) == cudaErrorInvalidResourceHandle,
        "a destroyed pool's handle is refused");
  cudaGetLastError();  // the two refusals above were the last errors
  CUDA_OK(cudaStreamDestroy(s));
}

int main() {
  int count = 0;
  CUDA_OK(cudaGetDeviceCount(&count));
  CHECK(count >= 1, "at least one device");
  cudaDeviceProp prop{};
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  int warp = 0;
  CUDA_OK(cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0));
  CHECK(warp == prop.warpSize && warp == 32, "attribute agrees with properties");
  int runtime = 0;
  CUDA_OK(cudaRuntimeGetVersion(&runtime));
  CHECK(runtime >= 13000, "runtime version 13");

  const int n = 1 << 20;
  std::vector<float> host(n), back(n, 0.f);
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i);
  float *a = nullptr, *b = nullptr;
  CUDA_OK(cudaMalloc(&a, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&b, n * sizeof(float)));
  cudaPointerAttributes attr{};
  CUDA_OK(cudaPointerGetAttributes(&attr, a + 10));
  CHECK(attr.type == cudaMemoryTypeDevice, "pointer attributes: device memory");
  CUDA_OK(cudaMemcpy(a, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(b, a, n * sizeof(float), cudaMemcpyDeviceToDevice));
  CUDA_OK(cudaMemcpy(back.data(), b, n * sizeof(float), cudaMemcpyDefault));
  CHECK(back == host, "H2D, D2D, D2H (default kind) round trip");

  CUDA_OK(cudaMemset(b, 0, n * sizeof(float)));
  CUDA_OK(cudaMemcpy(back.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(back[0] == 0.f && back[n - 1] == 0.f, "memset");

  // Pinned memory, streams, async copies, events, host function.
  float* pinned = nullptr;
  CUDA_OK(cudaMallocHost(&pinned, n * sizeof(float)));
  cudaStream_t s;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CUDA_OK(cudaEventCreate(&e0));
  CUDA_OK(cudaEventCreate(&e1));
  int calls = 0;
  CUDA_OK(cudaEventRecord(e0, s));
  CUDA_OK(cudaMemcpyAsync(b, host.data(), n * sizeof(float), cudaMemcpyHostToDevice, s));
  CUDA_OK(cudaMemcpyAsync(pinned, b, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  CUDA_OK(cudaLaunchHostFunc(s, host_fn, &calls));
  CUDA_OK(cudaEventRecord(e1, s));
  CUDA_OK(cudaStreamSynchronize(s));
  CHECK(std::memcmp(pinned, host.data(), n * sizeof(float)) == 0, "async D2H landed before the stream sync returned");
  CHECK(calls == 1, "host function ran before the stream sync returned");
  float ms = -1.f;
  CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
  CHECK(ms >= 0.f, "event elapsed time");

  // Work after a host function starts only once the function has returned: an event recorded after
  // one that sleeps 200 ms is at least that much later than one recorded before it.
  CUDA_OK(cudaEventRecord(e0, s));
  CUDA_OK(cudaLaunchHostFunc(s, sleeping_host_fn, nullptr));
  CUDA_OK(cudaEventRecord(e1, s));
  CUDA_OK(cudaEventSynchronize(e1));
  CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
  CHECK(ms >= 190.f, "work after a host function waits until it returned");
  if (ms < 190.f) std::printf("  (%.1f ms between the events)\n", ms);
  // A synchronous copy large enough to stream its bytes, right behind a host function on the
  // legacy stream: it waits for the function, and its bytes for the copy.
  {
    std::vector<float> big(1 << 20), big_back(1 << 20, 0.f);
    for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i % 1000);
    float* d_big = nullptr;
    CUDA_OK(cudaMalloc(&d_big, big.size() * sizeof(float)));
    CUDA_OK(cudaLaunchHostFunc(0, sleeping_host_fn, nullptr));
    CUDA_OK(cudaMemcpy(d_big, big.data(), big.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(big_back.data(), d_big, big.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(big_back == big, "a streamed copy right behind a host function");
    CUDA_OK(cudaFree(d_big));
  }

  // 2D copies with a pitched allocation.
  size_t pitch = 0;
  float* pitched = nullptr;
  const int w = 100, h = 37;
  CUDA_OK(cudaMallocPitch(reinterpret_cast<void**>(&pitched), &pitch, w * sizeof(float), h));
  CHECK(pitch >= w * sizeof(float), "pitch covers a row");
  CUDA_OK(cudaMemcpy2D(pitched, pitch, host.data(), w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
  std::vector<float> rows(w * h, 0.f);
  CUDA_OK(cudaMemcpy2D(rows.data(), w * sizeof(float), pitched, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost));
  CHECK(std::equal(rows.begin(), rows.end(), host.begin()), "2D round trip");

  tour_arrays();

  // Device symbols.
  int values[16];
  for (int i = 0; i < 16; ++i) values[i] = i * i;
  CUDA_OK(cudaMemcpyToSymbol(table, values, sizeof values));
  int readback[16] = {};
  CUDA_OK(cudaMemcpyFromSymbol(readback, table, sizeof readback));
  CHECK(std::memcmp(values, readback, sizeof values) == 0, "constant symbol round trip");
  size_t sym_size = 0;
  CUDA_OK(cudaGetSymbolSize(&sym_size, scale_factor));
  CHECK(sym_size == sizeof(float), "symbol size");

  // Launches: accepted; an invalid configuration fails at once and is reported once.
  scale<<<n / 256, 256>>>(a, n, 2.f);
  CUDA_OK(cudaGetLastError());
  scale<<<1, 4096>>>(a, n, 2.f);
  cudaError_t bad = cudaGetLastError();
  CHECK(bad != cudaSuccess, "an oversized block is refused");
  CHECK(cudaGetLastError() == cudaSuccess, "the launch error is not sticky");
  cudaFuncAttributes fattr{};
  CUDA_OK(cudaFuncGetAttributes(&fattr, scale));
  CHECK(fattr.maxThreadsPerBlock > 0, "function attributes");
  // scale(float*, int, float): the layout the launches are packed by.
  size_t offsets[3] = {}, sizes[3] = {};
  const void* scale_fn = reinterpret_cast<const void*>(scale);
  for (size_t i = 0; i < 3; ++i) CUDA_OK(cudaFuncGetParamInfo(scale_fn, i, &offsets[i], &sizes[i]));
  CHECK(offsets[0] == 0 && sizes[0] == 8 && offsets[1] == 8 && sizes[1] == 4 && offsets[2] == 12 && sizes[2] == 4,
        "cudaFuncGetParamInfo gives the kernel's parameter layout");
  CHECK(cudaFuncGetParamInfo(scale_fn, 3, &offsets[0], nullptr) == cudaErrorInvalidValue,
        "cudaFuncGetParamInfo refuses an index past the last parameter");
  CHECK(cudaGetLastError() == cudaErrorInvalidValue, "the refusal is the thread's last error, as CUDA's are");
  // Deprecated and without effect since Volta, but still checked: a known kernel, a known bank size.
#pragma nv_diag_suppress 1444
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  CUDA_OK(cudaFuncSetSharedMemConfig(scale_fn, cudaSharedMemBankSizeFourByte));
  CHECK(cudaFuncSetSharedMemConfig(scale_fn, static_cast<cudaSharedMemConfig>(7)) == cudaErrorInvalidValue,
        "cudaFuncSetSharedMemConfig refuses a bank size CUDA has not");
  CHECK(cudaFuncSetSharedMemConfig(&failures, cudaSharedMemBankSizeDefault) == cudaErrorInvalidDeviceFunction,
        "cudaFuncSetSharedMemConfig refuses what is not a kernel");
#pragma GCC diagnostic pop
#pragma nv_diag_default 1444
  cudaGetLastError();
  int blocks = 0;
  CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, scale, 256, 0));
  CHECK(blocks > 0, "occupancy");
  cudaKernel_t kernel_handle = nullptr;
  CUDA_OK(cudaGetKernel(&kernel_handle, scale_fn));
  cudaFuncAttributes by_handle{};
  CUDA_OK(cudaFuncGetAttributes(&by_handle, reinterpret_cast<const void*>(kernel_handle)));
  CHECK(kernel_handle && by_handle.maxThreadsPerBlock == fattr.maxThreadsPerBlock,
        "cudaGetKernel's handle names the kernel");
  CHECK(cudaGetKernel(&kernel_handle, &failures) == cudaErrorInvalidDeviceFunction, "cudaGetKernel refuses a non-kernel");
  cudaGetLastError();
  size_t dynamic_smem = 0;
  CUDA_OK(cudaOccupancyAvailableDynamicSMemPerBlock(&dynamic_smem, scale_fn, 2, 256));
  size_t less_smem = 0;
  CUDA_OK(cudaOccupancyAvailableDynamicSMemPerBlock(&less_smem, scale_fn, 8, 256));
  CHECK(dynamic_smem > 0 && less_smem < dynamic_smem, "more resident blocks leave each less dynamic shared memory");

  // Launch attributes travel with the launch (a cluster of two blocks, a priority); a cluster that
  // does not divide the grid fails as asynchronous launch errors do (the thread's last error once
  // the server's answer is in).
  {
    int count = 1024;
    float factor = 1.f;
    void* kernel_args[] = {&a, &count, &factor};
    cudaLaunchAttribute attrs[2] = {};
    attrs[0].id = cudaLaunchAttributeClusterDimension;
    attrs[0].val.clusterDim.x = 2, attrs[0].val.clusterDim.y = 1, attrs[0].val.clusterDim.z = 1;
    attrs[1].id = cudaLaunchAttributePriority;
    attrs[1].val.priority = 0;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(4);
    config.blockDim = dim3(256);
    config.stream = s;
    config.attrs = attrs;
    config.numAttrs = 2;
    CUDA_OK(cudaLaunchKernelExC(&config, scale_fn, kernel_args));
    CUDA_OK(cudaStreamSynchronize(s));
    int cluster_size = 0, clusters = 0, sms = 0;
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CUDA_OK(cudaOccupancyMaxPotentialClusterSize(&cluster_size, scale_fn, &config));
    CUDA_OK(cudaOccupancyMaxActiveClusters(&clusters, scale_fn, &config));
    CHECK(cluster_size >= 2 && clusters > 0 && clusters * 2 <= blocks * sms,
          "cluster occupancy: a cluster of two fits, and no more clusters than blocks fit");
    attrs[0].val.clusterDim.x = 3;
    CUDA_OK(cudaLaunchKernelExC(&config, scale_fn, kernel_args));
    cudaStreamSynchronize(s);
    CHECK(cudaGetLastError() == cudaErrorInvalidClusterSize,
          "a cluster that does not divide the grid is the thread's error after the next synchronisation");
  }

  // Stream capture into a graph, replayed twice.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CUDA_OK(cudaMemsetAsync(b, 0, n * sizeof(float), s));
  CUDA_OK(cudaMemcpyAsync(b, a, 1024 * sizeof(float), cudaMemcpyDeviceToDevice, s));
  CUDA_OK(cudaStreamEndCapture(s, &graph));
  size_t nodes = 0;
  CUDA_OK(cudaGraphGetNodes(graph, nullptr, &nodes));
  CHECK(nodes == 2, "captured graph has two nodes");
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_OK(cudaGraphLaunch(exec, s));
  CUDA_OK(cudaGraphLaunch(exec, s));
  CUDA_OK(cudaStreamSynchronize(s));

  // A host function captured into a graph runs at every launch.
  cudaGraph_t host_graph;
  cudaGraphExec_t host_exec;
  int graph_calls = 0;
  CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CUDA_OK(cudaLaunchHostFunc(s, host_fn, &graph_calls));
  CUDA_OK(cudaStreamEndCapture(s, &host_graph));
  CUDA_OK(cudaGraphInstantiate(&host_exec, host_graph, 0));
  for (int i = 0; i < 3; ++i) CUDA_OK(cudaGraphLaunch(host_exec, s));
  CUDA_OK(cudaStreamSynchronize(s));
  CHECK(graph_calls == 3, "a captured host function ran at each of 3 graph launches");
  CUDA_OK(cudaGraphExecDestroy(host_exec));
  CUDA_OK(cudaGraphDestroy(host_graph));

  // A capture across two streams (fork/join through events); the joined stream's D2H copy comes
  // back to host memory each time the graph runs.
  cudaStream_t s2;
  cudaEvent_t fork_ev, join_ev;
  CUDA_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CUDA_OK(cudaEventCreateWithFlags(&fork_ev, cudaEventDisableTiming));
  CUDA_OK(cudaEventCreateWithFlags(&join_ev, cudaEventDisableTiming));
  std::vector<float> joined(256, -1.f);
  cudaGraph_t graph2;
  cudaGraphExec_t exec2;
  CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CUDA_OK(cudaEventRecord(fork_ev, s));
  CUDA_OK(cudaStreamWaitEvent(s2, fork_ev, 0));
  CUDA_OK(cudaMemcpyAsync(joined.data(), b, joined.size() * sizeof(float), cudaMemcpyDeviceToHost, s2));
  CUDA_OK(cudaEventRecord(join_ev, s2));
  CUDA_OK(cudaStreamWaitEvent(s, join_ev, 0));
  CUDA_OK(cudaStreamEndCapture(s, &graph2));
  CUDA_OK(cudaGraphInstantiate(&exec2, graph2, 0));
  for (int round = 0; round < 2; ++round) {
    std::vector<float> fill(256, static_cast<float>(round + 5));
    // On s, not with cudaMemcpy: a pageable H2D cudaMemcpy may return before its DMA has landed,
    // and s is non-blocking, so nothing would order the graph's read of b after it (on a busy GPU
    // the two copies start together and the graph read the previous round's values).
    CUDA_OK(cudaMemcpyAsync(b, fill.data(), fill.size() * sizeof(float), cudaMemcpyHostToDevice, s));
    CUDA_OK(cudaGraphLaunch(exec2, s));
    CUDA_OK(cudaStreamSynchronize(s));
    CHECK(joined == fill, "a copy on a stream that joined the capture lands at each launch");
    if (joined != fill) std::printf("  (round %d: %g landed, %g expected)\n", round, joined[0], fill[0]);
  }
  CUDA_OK(cudaGraphExecDestroy(exec2));
  CUDA_OK(cudaGraphDestroy(graph2));
  CUDA_OK(cudaStreamDestroy(s2));

  pool_tour();

  size_t free_mem = 0, total_mem = 0;
  CUDA_OK(cudaMemGetInfo(&free_mem, &total_mem));
  CHECK(free_mem < total_mem, "memory info reflects allocations");

  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(graph));
  CUDA_OK(cudaEventDestroy(e0));
  CUDA_OK(cudaEventDestroy(e1));
  CUDA_OK(cudaStreamDestroy(s));
  CUDA_OK(cudaFreeHost(pinned));
  CUDA_OK(cudaFree(pitched));
  CUDA_OK(cudaFree(a));
  CUDA_OK(cudaFree(b));
  CUDA_OK(cudaDeviceSynchronize());

  // A device reset mid-program: modules upload again, symbols and launches work afterwards.
  CUDA_OK(cudaDeviceReset());
  float* c = nullptr;
  CUDA_OK(cudaMalloc(&c, 1024 * sizeof(float)));
  CUDA_OK(cudaMemcpyToSymbol(table, values, sizeof values));
  CUDA_OK(cudaMemcpyFromSymbol(readback, table, sizeof readback));
  CHECK(std::memcmp(values, readback, sizeof values) == 0, "constant symbol after a device reset");
  scale<<<4, 256>>>(c, 1024, 1.f);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaFree(c));
  CUDA_OK(cudaDeviceSynchronize());
  g_work_at_exit.armed = failures == 0;
  std::printf("%s: %d failure(s)\n", failures ? "api_tour FAIL" : "api_tour PASS", failures);
  return failures ? 1 : 0;
}
