// GPU suite: tiled matrix multiply through shared memory, checked against a CPU product.
#include <cmath>
#include <vector>

#include "suite_check.h"

constexpr int kTile = 16;

// C = A (m x k) * B (k x n), row-major; each block computes one kTile x kTile tile of C.
__global__ void matmul_tiled(const float* a, const float* b, float* c, int m, int k, int n) {
  __shared__ float tile_a[kTile][kTile];
  __shared__ float tile_b[kTile][kTile];
  int row = blockIdx.y * kTile + threadIdx.y;
  int col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (k + kTile - 1) / kTile; ++t) {
    int a_col = t * kTile + threadIdx.x;
    int b_row = t * kTile + threadIdx.y;
    tile_a[threadIdx.y][threadIdx.x] = (row < m && a_col < k) ? a[row * k + a_col] : 0.0f;
    tile_b[threadIdx.y][threadIdx.x] = (b_row < k && col < n) ? b[b_row * n + col] : 0.0f;
    __syncthreads();
    for (int j = 0; j < kTile; ++j) acc += tile_a[threadIdx.y][j] * tile_b[j][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}

int main() {
  // Sizes not a multiple of the tile, so the edge handling is exercised too.
  const int m = 200, k = 130, n = 170;
  std::vector<float> a(m * k), b(k * n), c(m * n), expected(m * n, 0.0f);
  // Small integers keep every partial sum exact in float, so GPU and CPU agree bit for bit.
  for (int i = 0; i < m * k; ++i) a[i] = static_cast<float>((i * 7) % 11 - 5);
  for (int i = 0; i < k * n; ++i) b[i] = static_cast<float>((i * 3) % 13 - 6);
  for (int r = 0; r < m; ++r)
    for (int j = 0; j < k; ++j)
      for (int col = 0; col < n; ++col) expected[r * n + col] += a[r * k + j] * b[j * n + col];

  float *da, *db, *dc;
  CHECK_CUDA(cudaMalloc(&da, a.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&db, b.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dc, c.size() * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));

  dim3 block(kTile, kTile);
  dim3 grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  matmul_tiled<<<grid, block>>>(da, db, dc, m, k, n);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost));

  int wrong = 0;
  double checksum = 0;
  for (int i = 0; i < m * n; ++i) {
    if (c[i] != expected[i]) ++wrong;
    checksum += c[i];
  }
  say("C is %dx%d (k=%d), tile %d, wrong: %d, checksum: %.1f\n", m, n, k, kTile, wrong, checksum);
  expect(wrong == 0, "matches CPU product");

  CHECK_CUDA(cudaFree(da));
  CHECK_CUDA(cudaFree(db));
  CHECK_CUDA(cudaFree(dc));
  return finish("matmul_tiled");
}
