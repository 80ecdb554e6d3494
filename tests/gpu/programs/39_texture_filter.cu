// GPU suite: CUDA arrays, texture and surface objects. An image filter reads one array through a
// texture object (normalised coordinates, linear filtering, clamp addressing) and writes a second
// array through a surface object; the result comes back with cudaMemcpy2DFromArray and is checked
// against a host reference and checksummed. Then a 3D array round trip (host -> array -> array ->
// host), batched copies (cudaMemcpyBatchAsync), and a mipmapped array whose level 2 is filled by
// copy and read back through a texture with tex2DLod. Remotely the arrays are ids mapped on the
// server and the objects are the server's own values, so every line printed must match the
// native run.
#include <cmath>
#include <cstring>
#include <vector>

#include "suite_check.h"

// Each output pixel is the mean of four bilinear samples a quarter texel around its centre.
__global__ void blur(cudaTextureObject_t tex, cudaSurfaceObject_t surf, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float u = (x + 0.5f) / width, v = (y + 0.5f) / height;
  float du = 0.25f / width, dv = 0.25f / height;
  float sum = tex2D<float>(tex, u - du, v - dv) + tex2D<float>(tex, u + du, v - dv) +
              tex2D<float>(tex, u - du, v + dv) + tex2D<float>(tex, u + du, v + dv);
  surf2Dwrite(sum * 0.25f, surf, x * static_cast<int>(sizeof(float)), y);
}

// Reads level `level` of a mipmapped texture at each texel centre (point filtering: exact values).
__global__ void read_level(cudaTextureObject_t tex, float* out, int width, int height, float level) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  out[y * width + x] = tex2DLod<float>(tex, (x + 0.5f) / width, (y + 0.5f) / height, level);
}

// The host's bilinear sample with clamp addressing (the hardware weighs with 8-bit fractions,
// hence the tolerance of the comparison).
static float sample(const std::vector<float>& img, int width, int height, float u, float v) {
  float xb = u * width - 0.5f, yb = v * height - 0.5f;
  int x0 = static_cast<int>(std::floor(xb)), y0 = static_cast<int>(std::floor(yb));
  float a = xb - x0, b = yb - y0;
  auto at = [&](int x, int y) {
    x = x < 0 ? 0 : (x >= width ? width - 1 : x);
    y = y < 0 ? 0 : (y >= height ? height - 1 : y);
    return img[y * width + x];
  };
  return (1 - a) * (1 - b) * at(x0, y0) + a * (1 - b) * at(x0 + 1, y0) + (1 - a) * b * at(x0, y0 + 1) +
         a * b * at(x0 + 1, y0 + 1);
}

int main() {
  // ---- the filter: 2D arrays, a texture object and a surface object ----
  const int width = 250, height = 130;
  std::vector<float> image(width * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) image[y * width + x] = 0.5f + 0.5f * std::sin(x * 0.11f) * std::cos(y * 0.07f);
  // The host rows are wider than the image: the copy takes width * 4 bytes from each pitched row.
  const size_t host_pitch = (width + 6) * sizeof(float);
  std::vector<float> pitched_image(host_pitch / sizeof(float) * height, -9.f);
  for (int y = 0; y < height; ++y)
    std::memcpy(&pitched_image[y * host_pitch / sizeof(float)], &image[y * width], width * sizeof(float));

  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t in = nullptr, out = nullptr;
  CHECK_CUDA(cudaMallocArray(&in, &desc, width, height));
  CHECK_CUDA(cudaMallocArray(&out, &desc, width, height, cudaArraySurfaceLoadStore));
  CHECK_CUDA(cudaMemcpy2DToArray(in, 0, 0, pitched_image.data(), host_pitch, width * sizeof(float), height,
                                 cudaMemcpyHostToDevice));
  cudaChannelFormatDesc got{};
  CHECK_CUDA(cudaGetChannelDesc(&got, in));
  expect(got.x == 32 && got.f == cudaChannelFormatKindFloat, "channel format of the input array");
  cudaExtent extent{};
  unsigned flags = 0;
  CHECK_CUDA(cudaArrayGetInfo(nullptr, &extent, &flags, out));
  say("output array: %zux%zux%zu, flags %u\n", extent.width, extent.height, extent.depth, flags);

  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = in;
  cudaTextureDesc td{};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = 1;
  cudaTextureObject_t tex = 0;
  CHECK_CUDA(cudaCreateTextureObject(&tex, &res, &td, nullptr));
  cudaResourceDesc out_res{};
  out_res.resType = cudaResourceTypeArray;
  out_res.res.array.array = out;
  cudaSurfaceObject_t surf = 0;
  CHECK_CUDA(cudaCreateSurfaceObject(&surf, &out_res));
  cudaTextureDesc td_back{};
  CHECK_CUDA(cudaGetTextureObjectTextureDesc(&td_back, tex));
  expect(td_back.filterMode == cudaFilterModeLinear && td_back.normalizedCoords == 1 &&
             td_back.addressMode[0] == cudaAddressModeClamp,
         "texture description reads back as set");
  cudaResourceDesc res_back{};
  CHECK_CUDA(cudaGetSurfaceObjectResourceDesc(&res_back, surf));
  expect(res_back.resType == cudaResourceTypeArray && res_back.res.array.array == out,
         "surface resource reads back as set");

  dim3 threads(16, 16), grid((width + 15) / 16, (height + 15) / 16);
  blur<<<grid, threads>>>(tex, surf, width, height);
  CHECK_CUDA(cudaGetLastError());
  std::vector<float> filtered(width * height, 0.f);
  CHECK_CUDA(cudaMemcpy2DFromArray(filtered.data(), width * sizeof(float), out, 0, 0, width * sizeof(float), height,
                                   cudaMemcpyDeviceToHost));
  double checksum = 0, worst = 0;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      float u = (x + 0.5f) / width, v = (y + 0.5f) / height, du = 0.25f / width, dv = 0.25f / height;
      float ref = 0.25f * (sample(image, width, height, u - du, v - dv) + sample(image, width, height, u + du, v - dv) +
                           sample(image, width, height, u - du, v + dv) + sample(image, width, height, u + du, v + dv));
      worst = std::fmax(worst, std::fabs(ref - filtered[y * width + x]));
      checksum += filtered[y * width + x];
    }
  }
  say("filtered %dx%d image, checksum %.6f\n", width, height, checksum);
  expect(worst < 1e-2, "filter matches the host's bilinear reference");

  // ---- 3D: host -> array -> array -> host ----
  const cudaExtent vol{33, 17, 9};
  cudaChannelFormatDesc d2 = cudaCreateChannelDesc<float2>();
  cudaArray_t a3 = nullptr, b3 = nullptr;
  CHECK_CUDA(cudaMalloc3DArray(&a3, &d2, vol));
  CHECK_CUDA(cudaMalloc3DArray(&b3, &d2, vol));
  std::vector<float2> box(vol.width * vol.height * vol.depth), box_back(box.size());
  for (size_t i = 0; i < box.size(); ++i) box[i] = make_float2(static_cast<float>(i), -static_cast<float>(i) * 0.5f);
  cudaMemcpy3DParms p{};
  p.srcPtr = make_cudaPitchedPtr(box.data(), vol.width * sizeof(float2), vol.width, vol.height);
  p.dstArray = a3;
  p.extent = vol;
  p.kind = cudaMemcpyHostToDevice;
  CHECK_CUDA(cudaMemcpy3D(&p));
  cudaMemcpy3DParms q{};
  q.srcArray = a3;
  q.dstArray = b3;
  q.extent = vol;
  q.kind = cudaMemcpyDeviceToDevice;
  CHECK_CUDA(cudaMemcpy3D(&q));
  cudaMemcpy3DParms r{};
  r.srcArray = b3;
  r.dstPtr = make_cudaPitchedPtr(box_back.data(), vol.width * sizeof(float2), vol.width, vol.height);
  r.extent = vol;
  r.kind = cudaMemcpyDeviceToHost;
  CHECK_CUDA(cudaMemcpy3D(&r));
  expect(std::memcmp(box.data(), box_back.data(), box.size() * sizeof(float2)) == 0,
         "3D array round trip (host, array, array, host)");

  // ---- a batch: the filtered image to the device and back to the host, on a stream ----
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float* d_img = nullptr;
  CHECK_CUDA(cudaMalloc(&d_img, filtered.size() * sizeof(float)));
  std::vector<float> again(filtered.size(), 0.f);
  void* dsts[2] = {d_img, again.data()};
  const void* srcs[2] = {filtered.data(), d_img};
  size_t sizes[2] = {filtered.size() * sizeof(float), filtered.size() * sizeof(float)};
  cudaMemcpyAttributes attrs[1] = {};
  attrs[0].srcAccessOrder = cudaMemcpySrcAccessOrderStream;
  size_t idxs[1] = {0};
  CHECK_CUDA(cudaMemcpyBatchAsync(dsts, srcs, sizes, 1, attrs, idxs, 1, stream));
  CHECK_CUDA(cudaMemcpyBatchAsync(dsts + 1, srcs + 1, sizes + 1, 1, attrs, idxs, 1, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  expect(again == filtered, "batched copies to the device and back");
  CHECK_CUDA(cudaFree(d_img));
  CHECK_CUDA(cudaStreamDestroy(stream));

  // ---- a mipmapped array: level 2 filled by copy, read through a texture at that level ----
  cudaMipmappedArray_t mip = nullptr;
  CHECK_CUDA(cudaMallocMipmappedArray(&mip, &desc, make_cudaExtent(64, 48, 0), 4));
  cudaArray_t level2 = nullptr;
  CHECK_CUDA(cudaGetMipmappedArrayLevel(&level2, mip, 2));
  CHECK_CUDA(cudaArrayGetInfo(nullptr, &extent, nullptr, level2));
  say("mip level 2: %zux%zu\n", extent.width, extent.height);
  const int lw = static_cast<int>(extent.width), lh = static_cast<int>(extent.height);
  std::vector<float> texels(lw * lh), read(lw * lh, 0.f);
  for (int i = 0; i < lw * lh; ++i) texels[i] = static_cast<float>(i % 97) * 0.25f;
  CHECK_CUDA(cudaMemcpy2DToArray(level2, 0, 0, texels.data(), lw * sizeof(float), lw * sizeof(float), lh,
                                 cudaMemcpyHostToDevice));
  cudaResourceDesc mres{};
  mres.resType = cudaResourceTypeMipmappedArray;
  mres.res.mipmap.mipmap = mip;
  cudaTextureDesc mtd{};
  mtd.addressMode[0] = mtd.addressMode[1] = cudaAddressModeClamp;
  mtd.filterMode = cudaFilterModePoint;
  mtd.mipmapFilterMode = cudaFilterModePoint;
  mtd.readMode = cudaReadModeElementType;
  mtd.normalizedCoords = 1;
  mtd.maxMipmapLevelClamp = 3;
  cudaTextureObject_t mtex = 0;
  CHECK_CUDA(cudaCreateTextureObject(&mtex, &mres, &mtd, nullptr));
  float* d_read = nullptr;
  CHECK_CUDA(cudaMalloc(&d_read, read.size() * sizeof(float)));
  read_level<<<dim3((lw + 15) / 16, (lh + 15) / 16), dim3(16, 16)>>>(mtex, d_read, lw, lh, 2.0f);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(read.data(), d_read, read.size() * sizeof(float), cudaMemcpyDeviceToHost));
  expect(read == texels, "mip level 2 read through tex2DLod equals what was copied in");

  CHECK_CUDA(cudaDestroyTextureObject(mtex));
  CHECK_CUDA(cudaDestroyTextureObject(tex));
  CHECK_CUDA(cudaDestroySurfaceObject(surf));
  CHECK_CUDA(cudaFree(d_read));
  CHECK_CUDA(cudaFreeMipmappedArray(mip));
  CHECK_CUDA(cudaFreeArray(b3));
  CHECK_CUDA(cudaFreeArray(a3));
  CHECK_CUDA(cudaFreeArray(out));
  CHECK_CUDA(cudaFreeArray(in));
  return finish("texture_filter");
}
