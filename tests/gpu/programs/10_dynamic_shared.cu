// GPU suite: dynamic shared memory above the 48 KiB default, enabled with cudaFuncSetAttribute.
#include <vector>

#include "suite_check.h"

// Each block stages its whole slice in dynamic shared memory and writes it back reversed. Each instance
// (kInstance) is a function of its own with its own attributes, so one can keep the default limit.
template <int kInstance>
__global__ void reverse_slices(const int* in, int* out, int slice) {
  extern __shared__ int staged[];
  const int* src = in + blockIdx.x * slice;
  for (int i = threadIdx.x; i < slice; i += blockDim.x) staged[i] = src[i];
  __syncthreads();
  int* dst = out + blockIdx.x * slice;
  for (int i = threadIdx.x; i < slice; i += blockDim.x) dst[i] = staged[slice - 1 - i];
}

constexpr int kRaisedLimit = 0;
constexpr int kDefaultLimit = 1;

int main() {
  const int shared_bytes = 96 * 1024;
  const int slice = shared_bytes / sizeof(int);
  const int blocks = 64;
  const int n = slice * blocks;

  int optin = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  expect(optin >= shared_bytes, "device allows 96 KiB of shared memory per block");

  std::vector<int> host(n), result(n, 0);
  for (int i = 0; i < n; ++i) host[i] = i * 5 + 1;
  int *in, *out;
  CHECK_CUDA(cudaMalloc(&in, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&out, n * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  // Without the attribute, a launch asking for more than 48 KiB is refused at launch time.
  reverse_slices<kDefaultLimit><<<blocks, 256, shared_bytes>>>(in, out, slice);
  cudaError_t refused = cudaGetLastError();
  say("launch with 96 KiB before the attribute: %s\n", cudaGetErrorName(refused));
  expect(refused != cudaSuccess, "launch refused without the attribute");

  CHECK_CUDA(cudaFuncSetAttribute(reverse_slices<kRaisedLimit>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  shared_bytes));
  cudaFuncAttributes attributes{};
  CHECK_CUDA(cudaFuncGetAttributes(&attributes, reverse_slices<kRaisedLimit>));
  say("maxDynamicSharedSizeBytes: %d\n", attributes.maxDynamicSharedSizeBytes);
  expect(attributes.maxDynamicSharedSizeBytes == shared_bytes, "attribute read back");

  reverse_slices<kRaisedLimit><<<blocks, 256, shared_bytes>>>(in, out, slice);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(result.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int b = 0; b < blocks; ++b)
    for (int i = 0; i < slice; ++i)
      if (result[b * slice + i] != host[b * slice + slice - 1 - i]) ++wrong;
  say("blocks: %d, ints per block: %d, wrong: %d\n", blocks, slice, wrong);
  expect(wrong == 0, "every slice reversed through 96 KiB of shared memory");

  CHECK_CUDA(cudaFree(in));
  CHECK_CUDA(cudaFree(out));
  return finish("dynamic_shared");
}
