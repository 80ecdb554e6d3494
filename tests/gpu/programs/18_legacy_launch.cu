// GPU suite: the launch path of CUDA 12 binaries. Built with -Xcompiler -D__NV_LEGACY_LAUNCH (the host pass
// only: a plain -D breaks nvcc 13's generated stubs), so <<<>>> calls cudaLaunchKernel instead of
// __cudaLaunchKernel; the program also calls cudaLaunchKernel and cudaLaunchKernelExC with argument arrays.
#include <vector>

#include "suite_check.h"

#if !defined(__CUDA_ARCH__) && !defined(__NV_LEGACY_LAUNCH)
#error "build 18_legacy_launch with -Xcompiler -D__NV_LEGACY_LAUNCH"
#endif

struct Params {
  int scale;
  short offset;
  double weight;  // 8-byte aligned after the short: exercises argument layout by offset
};

__global__ void combine(const int* in, long long* out, int n, Params p, char tag) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<long long>(in[i]) * p.scale + p.offset + static_cast<long long>(p.weight) + tag;
}

static bool check(const std::vector<long long>& out, const std::vector<int>& in, const Params& p, char tag) {
  for (size_t i = 0; i < in.size(); ++i)
    if (out[i] != static_cast<long long>(in[i]) * p.scale + p.offset + static_cast<long long>(p.weight) + tag)
      return false;
  return true;
}

int main() {
  const int n = 3000;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = i * 13 - 5000;
  std::vector<long long> out(n);
  int* d_in;
  long long* d_out;
  CHECK_CUDA(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_out, n * sizeof(long long)));
  CHECK_CUDA(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  // 1. Triple chevrons, which this build turns into cudaLaunchKernel.
  Params p1{3, -7, 100.0};
  combine<<<(n + 127) / 128, 128>>>(d_in, d_out, n, p1, 'a');
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(out.data(), d_out, n * sizeof(long long), cudaMemcpyDeviceToHost));
  expect(check(out, in, p1, 'a'), "chevron launch correct");

  // 2. cudaLaunchKernel with an explicit argument array, on a stream.
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  Params p2{-2, 300, 0.5};
  char tag2 = 'z';
  int count = n;
  void* args[] = {&d_in, &d_out, &count, &p2, &tag2};
  CHECK_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(combine), dim3((n + 255) / 256), dim3(256), args, 0,
                              stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaMemcpy(out.data(), d_out, n * sizeof(long long), cudaMemcpyDeviceToHost));
  expect(check(out, in, p2, tag2), "cudaLaunchKernel with an argument array correct");

  // 3. cudaLaunchKernelExC with a launch config.
  Params p3{7, 1, 1e6};
  char tag3 = '0';
  void* args3[] = {&d_in, &d_out, &count, &p3, &tag3};
  cudaLaunchConfig_t config{};
  config.gridDim = dim3((n + 63) / 64);
  config.blockDim = dim3(64);
  config.stream = stream;
  CHECK_CUDA(cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(combine), args3));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaMemcpy(out.data(), d_out, n * sizeof(long long), cudaMemcpyDeviceToHost));
  expect(check(out, in, p3, tag3), "cudaLaunchKernelExC correct");

  long long checksum = 0;
  for (long long v : out) checksum += v;
  say("checksum: %lld\n", checksum);

  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(d_in));
  CHECK_CUDA(cudaFree(d_out));
  return finish("legacy_launch");
}
