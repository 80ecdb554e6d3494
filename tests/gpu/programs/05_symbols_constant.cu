// GPU suite: __constant__ and __device__ symbols written, read and addressed through the symbol API.
#include <vector>

#include "suite_check.h"

constexpr int kCoefficients = 4;
constexpr int kTable = 256;

__constant__ float poly_coefficients[kCoefficients];
__device__ int lookup_table[kTable];
__device__ unsigned int call_counter;

// out[i] = c0 + c1*x + c2*x^2 + c3*x^3 + lookup_table[i % kTable], with x = i % 8.
__global__ void evaluate(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = static_cast<float>(i % 8);
  float y = poly_coefficients[kCoefficients - 1];
  for (int c = kCoefficients - 2; c >= 0; --c) y = y * x + poly_coefficients[c];
  out[i] = y + static_cast<float>(lookup_table[i % kTable]);
  atomicAdd(&call_counter, 1u);
}

int main() {
  const int n = 4096;
  const float coefficients[kCoefficients] = {1.0f, -2.0f, 0.5f, 0.25f};
  // Written in two parts to exercise the offset argument.
  CHECK_CUDA(cudaMemcpyToSymbol(poly_coefficients, coefficients, 2 * sizeof(float)));
  CHECK_CUDA(cudaMemcpyToSymbol(poly_coefficients, coefficients + 2, 2 * sizeof(float), 2 * sizeof(float)));

  // The table is written through its device address rather than by symbol.
  int* table_address = nullptr;
  size_t table_size = 0;
  CHECK_CUDA(cudaGetSymbolAddress(reinterpret_cast<void**>(&table_address), lookup_table));
  CHECK_CUDA(cudaGetSymbolSize(&table_size, lookup_table));
  say("lookup_table size: %zu\n", table_size);
  expect(table_address != nullptr && table_size == kTable * sizeof(int), "symbol address and size");
  std::vector<int> table(kTable);
  for (int i = 0; i < kTable; ++i) table[i] = (i * 37) % 101;
  CHECK_CUDA(cudaMemcpy(table_address, table.data(), table_size, cudaMemcpyHostToDevice));

  const unsigned int zero = 0;
  CHECK_CUDA(cudaMemcpyToSymbol(call_counter, &zero, sizeof(zero)));

  float* d_out;
  CHECK_CUDA(cudaMalloc(&d_out, n * sizeof(float)));
  evaluate<<<n / 128, 128>>>(d_out, n);
  CHECK_CUDA(cudaGetLastError());
  std::vector<float> out(n);
  CHECK_CUDA(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));

  int wrong = 0;
  double checksum = 0;
  for (int i = 0; i < n; ++i) {
    float x = static_cast<float>(i % 8);
    float y = coefficients[kCoefficients - 1];
    for (int c = kCoefficients - 2; c >= 0; --c) y = y * x + coefficients[c];
    if (out[i] != y + static_cast<float>(table[i % kTable])) ++wrong;
    checksum += out[i];
  }
  say("elements: %d, wrong: %d, checksum: %.2f\n", n, wrong, checksum);
  expect(wrong == 0, "kernel used the constant coefficients and the table");

  unsigned int calls = 0;
  CHECK_CUDA(cudaMemcpyFromSymbol(&calls, call_counter, sizeof(calls)));
  say("call_counter: %u\n", calls);
  expect(calls == static_cast<unsigned int>(n), "counter read back by symbol");

  float read_back[kCoefficients] = {};
  CHECK_CUDA(cudaMemcpyFromSymbol(read_back, poly_coefficients, sizeof(read_back)));
  bool same = true;
  for (int c = 0; c < kCoefficients; ++c) same = same && read_back[c] == coefficients[c];
  expect(same, "constant memory read back by symbol");

  int tail[2] = {};
  CHECK_CUDA(cudaMemcpyFromSymbol(tail, lookup_table, sizeof(tail), (kTable - 2) * sizeof(int)));
  expect(tail[0] == table[kTable - 2] && tail[1] == table[kTable - 1], "read from symbol at an offset");

  CHECK_CUDA(cudaFree(d_out));
  return finish("symbols_constant");
}
