// Zero-copy (mapped) host memory, as PyTorch's batched LU through MAGMA uses it: an array of device
// addresses built by the host in pinned memory and handed to a kernel as is (unified addressing, no
// cudaHostGetDevicePointer), results written by kernels into mapped memory and read by the host
// after cudaDeviceSynchronize; a second round after the host changed inputs in place; pointers
// stored in mapped memory that point into mapped memory; cudaHostRegister'd memory with the mapped
// flag written by a kernel.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "suite_check.h"

constexpr int kBatch = 48;  // torch.linalg's failing case: 48 matrices
constexpr int kLen = 48 * 48;

// Block b sums its matrix, read through the array of pointers, scaled by *scale.
__global__ void batched_sum(float* const* matrices, int len, const float* scale, float* sums) {
  __shared__ float part[128];
  const float* m = matrices[blockIdx.x];
  float s = 0;
  for (int i = threadIdx.x; i < len; i += blockDim.x) s += m[i];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = part[0] * *scale;
}

// out[i] = 2 * in[i] + 1, for each element, writing host memory across the bus.
__global__ void affine(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i] + 1;
}

static double expected_sum(int b, float value_scale) {
  double s = 0;
  for (int i = 0; i < kLen; ++i) s += static_cast<float>((b * 7 + i) % 13) * value_scale;
  return s;
}

static bool sums_match(const float* sums, const int* order, float scale, float value_scale) {
  for (int b = 0; b < kBatch; ++b)
    if (sums[b] != static_cast<float>(expected_sum(order[b], value_scale) * scale)) return false;
  return true;
}

int main() {
  // Device matrices, and the array of their addresses in pinned host memory (torch's pin_memory:
  // cudaHostAlloc with default flags).
  float* dev[kBatch];
  std::vector<float> host(kLen);
  for (int b = 0; b < kBatch; ++b) {
    for (int i = 0; i < kLen; ++i) host[i] = static_cast<float>((b * 7 + i) % 13);
    CHECK_CUDA(cudaMalloc(&dev[b], kLen * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(dev[b], host.data(), kLen * sizeof(float), cudaMemcpyHostToDevice));
  }
  float** ptrs = nullptr;
  CHECK_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&ptrs), kBatch * sizeof(float*), cudaHostAllocDefault));
  float* scale = nullptr;
  CHECK_CUDA(cudaMallocHost(reinterpret_cast<void**>(&scale), sizeof(float)));
  float* sums = nullptr;
  CHECK_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&sums), kBatch * sizeof(float), cudaHostAllocMapped));
  float* sums_dev = nullptr;
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&sums_dev), sums, 0));
  say("device pointer of mapped memory: %s\n", sums_dev ? "yes" : "no");

  int order[kBatch];
  for (int b = 0; b < kBatch; ++b) order[b] = b, ptrs[b] = dev[b];
  *scale = 1.0f;
  std::memset(sums, 0, kBatch * sizeof(float));
  batched_sum<<<kBatch, 128>>>(ptrs, kLen, scale, sums_dev);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  expect(sums_match(sums, order, 1.0f, 1.0f), "round 1: sums through a pinned array of pointers");
  say("round 1: sum[0] %.1f sum[47] %.1f\n", sums[0], sums[kBatch - 1]);

  // Round 2: the host reverses the array and changes the scale in place; the same launch.
  for (int b = 0; b < kBatch; ++b) order[b] = kBatch - 1 - b, ptrs[b] = dev[kBatch - 1 - b];
  *scale = 0.5f;
  batched_sum<<<kBatch, 128>>>(ptrs, kLen, scale, sums_dev);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  expect(sums_match(sums, order, 0.5f, 1.0f), "round 2: the host's changes reached the kernel");
  say("round 2: sum[0] %.1f sum[47] %.1f\n", sums[0], sums[kBatch - 1]);

  // Round 3: the matrices themselves in mapped memory, the array holding their device addresses.
  float* mapped_values = nullptr;
  CHECK_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&mapped_values), size_t{kBatch} * kLen * sizeof(float),
                           cudaHostAllocMapped));
  float* mapped_values_dev = nullptr;
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mapped_values_dev), mapped_values, 0));
  for (int b = 0; b < kBatch; ++b) {
    for (int i = 0; i < kLen; ++i) mapped_values[static_cast<size_t>(b) * kLen + i] = static_cast<float>((b * 7 + i) % 13) * 2;
    order[b] = b;
    ptrs[b] = mapped_values_dev + static_cast<size_t>(b) * kLen;
  }
  *scale = 1.0f;
  batched_sum<<<kBatch, 128>>>(ptrs, kLen, scale, sums_dev);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaStreamSynchronize(0));
  expect(sums_match(sums, order, 1.0f, 2.0f), "round 3: matrices in mapped memory");
  say("round 3: sum[0] %.1f sum[47] %.1f\n", sums[0], sums[kBatch - 1]);

  // Registered memory with the mapped flag: the kernel reads and writes it; the host changes the
  // input between two launches.
  constexpr int kN = 10000;
  int* in = static_cast<int*>(std::aligned_alloc(4096, 40960));
  int* out = static_cast<int*>(std::aligned_alloc(4096, 40960));
  CHECK_CUDA(cudaHostRegister(in, 40960, cudaHostRegisterMapped));
  CHECK_CUDA(cudaHostRegister(out, 40960, cudaHostRegisterMapped));
  int *in_dev = nullptr, *out_dev = nullptr;
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&in_dev), in, 0));
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&out_dev), out, 0));
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < kN; ++i) in[i] = i * (round + 1);
    affine<<<(kN + 255) / 256, 256>>>(in_dev, out_dev, kN);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    bool ok = true;
    long long sum = 0;
    for (int i = 0; i < kN; ++i) {
      ok = ok && out[i] == 2 * i * (round + 1) + 1;
      sum += out[i];
    }
    say("registered round %d: checksum %lld\n", round + 1, sum);
    expect(ok, "registered mapped memory written by the kernel");
  }
  CHECK_CUDA(cudaHostUnregister(in));
  CHECK_CUDA(cudaHostUnregister(out));
  std::free(in);
  std::free(out);

  CHECK_CUDA(cudaFreeHost(mapped_values));
  CHECK_CUDA(cudaFreeHost(sums));
  CHECK_CUDA(cudaFreeHost(scale));
  CHECK_CUDA(cudaFreeHost(ptrs));
  for (float* d : dev) CHECK_CUDA(cudaFree(d));
  return finish("36_zero_copy");
}
