// GPU suite, -rdc program, part 2 of 2: a kernel calling a device function defined in another file,
// linked with device linking (-rdc=true), so the fatbin wrapper is the linked kind (version 2).
#include <vector>

#include "19_rdc_shared.h"
#include "suite_check.h"

__global__ void apply_mix(const int* in, int* out, int n, int salt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = mix(in[i], salt);
}

int main() {
  const int n = 5000;
  const int salt = 0x5a5a;
  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = i * 11;
  int *d_in, *d_out;
  CHECK_CUDA(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  const int zero = 0;
  CHECK_CUDA(cudaMemcpyToSymbol(rdc_calls, &zero, sizeof(zero)));

  apply_mix<<<(n + 127) / 128, 128>>>(d_in, d_out, n, salt);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  int calls = 0;
  CHECK_CUDA(cudaMemcpyFromSymbol(&calls, rdc_calls, sizeof(calls)));

  int wrong = 0;
  long long checksum = 0;
  for (int i = 0; i < n; ++i) {
    if (out[i] != (in[i] ^ salt) * 3 + (in[i] >> 2)) ++wrong;
    checksum += out[i];
  }
  say("elements: %d, wrong: %d, checksum: %lld, device calls: %d\n", n, wrong, checksum, calls);
  expect(wrong == 0, "cross-file device function correct");
  expect(calls == n, "cross-file device variable counted every call");
  CHECK_CUDA(cudaFree(d_in));
  CHECK_CUDA(cudaFree(d_out));
  return finish("rdc");
}
