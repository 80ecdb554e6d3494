// GPU suite: launch attributes through cudaLaunchKernelEx. A cluster launch whose blocks read each
// other's shared memory (distributed shared memory), the cluster occupancy queries, a programmatic
// dependent launch (the second kernel starts early and waits in cudaGridDependencySynchronize), and
// a launch with a priority. Hopper and later; the sm_75 build of the kernels only marks failure.
#include <vector>

#include <cooperative_groups.h>

#include "suite_check.h"

namespace cg = cooperative_groups;

constexpr int kThreads = 128;
constexpr int kBlocks = 8;
constexpr int kCluster = 2;

// Each block fills its shared memory, then reads its cluster neighbour's.
__global__ void swap_with_neighbour(int* out) {
#if __CUDA_ARCH__ >= 900
  __shared__ int mine[kThreads];
  cg::cluster_group cluster = cg::this_cluster();
  mine[threadIdx.x] = static_cast<int>(blockIdx.x) * 1000 + static_cast<int>(threadIdx.x);
  cluster.sync();
  const unsigned neighbour = (cluster.block_rank() + 1) % cluster.num_blocks();
  const int* theirs = cluster.map_shared_rank(mine, neighbour);
  out[blockIdx.x * kThreads + threadIdx.x] = theirs[threadIdx.x];
  cluster.sync();  // no block leaves while a neighbour may still read its shared memory
#else
  out[blockIdx.x * kThreads + threadIdx.x] = -1;
#endif
}

__global__ void produce(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = 3 * i;
#if __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

__global__ void consume(const int* data, int* out, int n) {
#if __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();  // the producer's writes are visible from here on
#endif
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = data[i] + 1;
}

int main() {
  int device = 0, major = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  CHECK_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  expect(major >= 9, "the GPU launches clusters (compute capability 9 or later)");
  if (major < 9) return finish("cluster_launch");

  const int n = kBlocks * kThreads;
  int* out = nullptr;
  CHECK_CUDA(cudaMalloc(&out, n * sizeof(int)));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = kCluster, cluster.val.clusterDim.y = 1, cluster.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(kBlocks);
  config.blockDim = dim3(kThreads);
  config.stream = stream;
  config.attrs = &cluster;
  config.numAttrs = 1;
  CHECK_CUDA(cudaLaunchKernelEx(&config, swap_with_neighbour, out));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  std::vector<int> got(n);
  CHECK_CUDA(cudaMemcpy(got.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
  bool ok = true;
  long long sum = 0;
  for (int b = 0; b < kBlocks; ++b) {
    const int neighbour = b / kCluster * kCluster + (b % kCluster + 1) % kCluster;
    for (int t = 0; t < kThreads; ++t) {
      ok = ok && got[b * kThreads + t] == neighbour * 1000 + t;
      sum += got[b * kThreads + t];
    }
  }
  expect(ok, "each block read its cluster neighbour's shared memory");
  say("cluster launch checksum: %lld\n", sum);

  int cluster_size = 0, clusters = 0;
  CHECK_CUDA(cudaOccupancyMaxPotentialClusterSize(&cluster_size, (void*)swap_with_neighbour, &config));
  CHECK_CUDA(cudaOccupancyMaxActiveClusters(&clusters, (void*)swap_with_neighbour, &config));
  say("largest cluster: %d blocks; clusters of %d resident at once: %d\n", cluster_size, kCluster, clusters);
  size_t smem = 0;
  CHECK_CUDA(cudaOccupancyAvailableDynamicSMemPerBlock(&smem, (void*)produce, 4, kThreads));
  say("dynamic shared memory per block with 4 blocks resident: %zu bytes\n", smem);

  // Programmatic dependent launch: consume may start before produce ends.
  int* data = nullptr;
  CHECK_CUDA(cudaMalloc(&data, n * sizeof(int)));
  CHECK_CUDA(cudaMemset(out, 0, n * sizeof(int)));
  produce<<<kBlocks, kThreads, 0, stream>>>(data, n);
  CHECK_CUDA(cudaGetLastError());
  cudaLaunchAttribute early{};
  early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &early;
  CHECK_CUDA(cudaLaunchKernelEx(&config, consume, static_cast<const int*>(data), out, n));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaMemcpy(got.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
  ok = true;
  for (int i = 0; i < n; ++i) ok = ok && got[i] == 3 * i + 1;
  expect(ok, "the dependent kernel saw everything the first one wrote");

  // A launch with a priority (the stream's range: its highest).
  int least = 0, greatest = 0;
  CHECK_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaLaunchAttribute priority{};
  priority.id = cudaLaunchAttributePriority;
  priority.val.priority = greatest;
  config.attrs = &priority;
  CHECK_CUDA(cudaLaunchKernelEx(&config, produce, out, n));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaMemcpy(got.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
  ok = true;
  for (int i = 0; i < n; ++i) ok = ok && got[i] == 3 * i;
  expect(ok, "a launch with the highest priority ran");

  CHECK_CUDA(cudaFree(data));
  CHECK_CUDA(cudaFree(out));
  CHECK_CUDA(cudaStreamDestroy(stream));
  return finish("cluster_launch");
}
