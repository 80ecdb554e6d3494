// GPU suite: pinned host memory (cudaMallocHost, cudaHostAlloc) and pitched 2D memory (cudaMallocPitch,
// cudaMemset2D, cudaMemcpy2D both ways), with a kernel that walks the pitch.
#include <cstdint>
#include <cstring>

#include "suite_check.h"

__global__ void add_row_col(uint16_t* base, size_t pitch, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  auto* row = reinterpret_cast<uint16_t*>(reinterpret_cast<char*>(base) + y * pitch);
  row[x] = static_cast<uint16_t>(row[x] + y * 3 + x);
}

int main() {
  const int width = 203, height = 57;            // the whole pitched array, in elements
  const int sub_x = 10, sub_y = 5;               // where the host block goes inside it
  const int sub_width = 150, sub_height = 40;    // the host block, in elements
  const size_t elem = sizeof(uint16_t);

  uint16_t* dev = nullptr;
  size_t pitch = 0;
  CHECK_CUDA(cudaMallocPitch(reinterpret_cast<void**>(&dev), &pitch, width * elem, height));
  expect(pitch >= width * elem && pitch % 32 == 0, "pitch at least the row width and aligned");
  CHECK_CUDA(cudaMemset2D(dev, pitch, 0x11, width * elem, height));  // every element becomes 0x1111

  uint16_t* block_in;
  uint16_t* whole_out;
  CHECK_CUDA(cudaMallocHost(&block_in, sub_width * sub_height * elem));
  CHECK_CUDA(cudaHostAlloc(&whole_out, width * height * elem, cudaHostAllocDefault));
  for (int i = 0; i < sub_width * sub_height; ++i) block_in[i] = static_cast<uint16_t>(i % 1000);
  memset(whole_out, 0, width * height * elem);

  // Host block (tightly packed) into the middle of the pitched array, then the kernel, then all of it back.
  char* sub_dev = reinterpret_cast<char*>(dev) + sub_y * pitch + sub_x * elem;
  CHECK_CUDA(cudaMemcpy2D(sub_dev, pitch, block_in, sub_width * elem, sub_width * elem, sub_height,
                          cudaMemcpyHostToDevice));
  dim3 threads(32, 8);
  dim3 grid((width + 31) / 32, (height + 7) / 8);
  add_row_col<<<grid, threads>>>(dev, pitch, width, height);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy2D(whole_out, width * elem, dev, pitch, width * elem, height, cudaMemcpyDeviceToHost));

  int wrong = 0;
  long long checksum = 0;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      bool in_block = x >= sub_x && x < sub_x + sub_width && y >= sub_y && y < sub_y + sub_height;
      int before = in_block ? block_in[(y - sub_y) * sub_width + (x - sub_x)] : 0x1111;
      uint16_t expected = static_cast<uint16_t>(before + y * 3 + x);
      if (whole_out[y * width + x] != expected) ++wrong;
      checksum += whole_out[y * width + x];
    }
  }
  say("array %dx%d, block %dx%d at (%d,%d), wrong: %d, checksum: %lld\n", width, height, sub_width,
      sub_height, sub_x, sub_y, wrong, checksum);
  expect(wrong == 0, "2D round trip correct");

  // A device-to-device 2D copy of one column into a plain buffer.
  uint16_t* column_dev;
  CHECK_CUDA(cudaMalloc(&column_dev, height * elem));
  CHECK_CUDA(cudaMemcpy2D(column_dev, elem, dev + 7, pitch, elem, height, cudaMemcpyDeviceToDevice));
  uint16_t column[height];
  CHECK_CUDA(cudaMemcpy(column, column_dev, sizeof(column), cudaMemcpyDeviceToHost));
  bool column_ok = true;
  for (int y = 0; y < height; ++y) column_ok = column_ok && column[y] == whole_out[y * width + 7];
  expect(column_ok, "device-to-device 2D column copy");

  CHECK_CUDA(cudaFree(column_dev));
  CHECK_CUDA(cudaFreeHost(block_in));
  CHECK_CUDA(cudaFreeHost(whole_out));
  CHECK_CUDA(cudaFree(dev));
  return finish("pinned_2d");
}
