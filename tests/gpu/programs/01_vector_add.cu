// GPU suite: element-wise vector add of 1M floats, checked element by element on the host.
#include <vector>

#include "suite_check.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 1 << 20;
  const size_t bytes = n * sizeof(float);
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i % 1000);
    b[i] = static_cast<float>(2 * (i % 777));
  }

  float *da, *db, *dc;
  CHECK_CUDA(cudaMalloc(&da, bytes));
  CHECK_CUDA(cudaMalloc(&db, bytes));
  CHECK_CUDA(cudaMalloc(&dc, bytes));
  CHECK_CUDA(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice));

  const int block = 256;
  vector_add<<<(n + block - 1) / block, block>>>(da, db, dc, n);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost));

  int wrong = 0;
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    if (c[i] != a[i] + b[i]) ++wrong;
    sum += c[i];
  }
  say("elements: %d, wrong: %d, sum: %.1f\n", n, wrong, sum);
  expect(wrong == 0, "all elements correct");

  CHECK_CUDA(cudaFree(da));
  CHECK_CUDA(cudaFree(db));
  CHECK_CUDA(cudaFree(dc));
  return finish("vector_add");
}
