// api_tour's CUDA array checks (included once, by api_tour.cu, which defines CHECK and CUDA_OK):
// data round trips through arrays (H2D into an array, array to array, array to host, 2D with
// pitches, the legacy linear calls running from row to row, 3D, a mipmap level), and getters
// that give back what was set. The emulated device keeps an array as its packed elements.
#pragma once

#include <cuda_runtime.h>

#include <cstring>
#include <vector>

// The legacy linear array copies are deprecated, and exactly what is checked here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static void tour_arrays() {
  const size_t w = 37, h = 11;  // float elements
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  CHECK(desc.x == 32 && desc.y == 0 && desc.f == cudaChannelFormatKindFloat, "cudaCreateChannelDesc<float>");
  cudaArray_t arr = nullptr, arr2 = nullptr;
  CUDA_OK(cudaMallocArray(&arr, &desc, w, h, cudaArraySurfaceLoadStore));
  CUDA_OK(cudaMallocArray(&arr2, &desc, w, h));
  cudaChannelFormatDesc got{};
  CUDA_OK(cudaGetChannelDesc(&got, arr));
  CHECK(std::memcmp(&got, &desc, sizeof desc) == 0, "cudaGetChannelDesc gives the array's format");
  cudaExtent ext{};
  unsigned flags = 0;
  CUDA_OK(cudaArrayGetInfo(&got, &ext, &flags, arr));
  CHECK(ext.width == w && ext.height == h && ext.depth == 0 && flags == cudaArraySurfaceLoadStore,
        "cudaArrayGetInfo gives the extent and flags it was made with");

  // 2D with a host pitch wider than the rows: H2D, array to array, D2H into another pitch.
  const size_t spitch = (w + 5) * sizeof(float), dpitch = (w + 3) * sizeof(float);
  std::vector<float> src(spitch / sizeof(float) * h), dst(dpitch / sizeof(float) * h, -1.f);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i) * 0.5f;
  CUDA_OK(cudaMemcpy2DToArray(arr, 0, 0, src.data(), spitch, w * sizeof(float), h, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy2DArrayToArray(arr2, 0, 0, arr, 0, 0, w * sizeof(float), h, cudaMemcpyDeviceToDevice));
  CUDA_OK(cudaMemcpy2DFromArray(dst.data(), dpitch, arr2, 0, 0, w * sizeof(float), h, cudaMemcpyDeviceToHost));
  bool same = true;
  for (size_t y = 0; y < h; ++y)
    for (size_t x = 0; x < w; ++x) same &= dst[y * dpitch / sizeof(float) + x] == src[y * spitch / sizeof(float) + x];
  CHECK(same, "2D round trip through two arrays, with host pitches");

  // A sub-rectangle at an offset, asynchronously on a stream.
  cudaStream_t s;
  CUDA_OK(cudaStreamCreate(&s));
  std::vector<float> patch(4 * 3, 7.f), back(4 * 3, 0.f);
  CUDA_OK(cudaMemcpy2DToArrayAsync(arr, 5 * sizeof(float), 2, patch.data(), 4 * sizeof(float), 4 * sizeof(float), 3,
                                   cudaMemcpyHostToDevice, s));
  CUDA_OK(cudaMemcpy2DFromArrayAsync(back.data(), 4 * sizeof(float), arr, 5 * sizeof(float), 2, 4 * sizeof(float), 3,
                                     cudaMemcpyDeviceToHost, s));
  CUDA_OK(cudaStreamSynchronize(s));
  CHECK(back == patch, "async 2D copies at an offset inside the array");
  CHECK(cudaMemcpy2DToArray(arr, 34 * sizeof(float), 0, patch.data(), 4 * sizeof(float), 4 * sizeof(float), 1,
                            cudaMemcpyHostToDevice) != cudaSuccess,
        "a rectangle past the array's edge is refused");
  (void)cudaGetLastError();

  // The legacy linear calls run on from one row to the next: 3 rows and a half from (10, 1).
  std::vector<float> line(w * 3 + w / 2), line_back(line.size(), 0.f), rows(w * h, 0.f);
  for (size_t i = 0; i < line.size(); ++i) line[i] = 1000.f + static_cast<float>(i);
  CUDA_OK(cudaMemcpyToArray(arr, 10 * sizeof(float), 1, line.data(), line.size() * sizeof(float),
                            cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpyFromArray(line_back.data(), arr, 10 * sizeof(float), 1, line.size() * sizeof(float),
                              cudaMemcpyDeviceToHost));
  CHECK(line_back == line, "cudaMemcpyToArray / FromArray across rows");
  CUDA_OK(cudaMemcpyArrayToArray(arr2, 0, 0, arr, 0, 0, w * h * sizeof(float), cudaMemcpyDeviceToDevice));
  CUDA_OK(cudaMemcpy2DFromArray(rows.data(), w * sizeof(float), arr2, 0, 0, w * sizeof(float), h,
                                cudaMemcpyDeviceToHost));
  CHECK(std::equal(line.begin(), line.end(), rows.begin() + w + 10), "cudaMemcpyArrayToArray of the whole array");

  // 3D: an array of 9 x 5 x 4 uchar4 elements, through cudaMemcpy3D both ways at a position.
  cudaChannelFormatDesc d4 = cudaCreateChannelDesc<uchar4>();
  cudaArray_t vol = nullptr;
  const cudaExtent vext = make_cudaExtent(9, 5, 4);
  CUDA_OK(cudaMalloc3DArray(&vol, &d4, vext));
  std::vector<uchar4> box(6 * 3 * 2), box_back(box.size());
  for (size_t i = 0; i < box.size(); ++i) box[i] = make_uchar4(static_cast<unsigned char>(i), static_cast<unsigned char>(i + 1), static_cast<unsigned char>(i + 2),
                         static_cast<unsigned char>(255 - i));
  cudaMemcpy3DParms p{};
  p.srcPtr = make_cudaPitchedPtr(box.data(), 6 * sizeof(uchar4), 6, 3);
  p.dstArray = vol;
  p.dstPos = make_cudaPos(2, 1, 1);
  p.extent = make_cudaExtent(6, 3, 2);
  p.kind = cudaMemcpyHostToDevice;
  CUDA_OK(cudaMemcpy3D(&p));
  cudaMemcpy3DParms q{};
  q.srcArray = vol;
  q.srcPos = make_cudaPos(2, 1, 1);
  q.dstPtr = make_cudaPitchedPtr(box_back.data(), 6 * sizeof(uchar4), 6, 3);
  q.extent = make_cudaExtent(6, 3, 2);
  q.kind = cudaMemcpyDeviceToHost;
  CUDA_OK(cudaMemcpy3DAsync(&q, s));
  CUDA_OK(cudaStreamSynchronize(s));
  CHECK(std::memcmp(box.data(), box_back.data(), box.size() * sizeof(uchar4)) == 0, "3D array round trip at a position");

  // cudaMalloc3D: pitched linear memory, a 3D copy from it into the array and back out.
  cudaPitchedPtr lin{};
  CUDA_OK(cudaMalloc3D(&lin, make_cudaExtent(6 * sizeof(uchar4), 3, 2)));
  CHECK(lin.pitch >= 6 * sizeof(uchar4) && lin.xsize == 6 * sizeof(uchar4) && lin.ysize == 3,
        "cudaMalloc3D gives a pitched pointer");
  cudaMemcpy3DParms r{};
  r.srcArray = vol;
  r.srcPos = make_cudaPos(2, 1, 1);
  r.dstPtr = lin;
  r.extent = make_cudaExtent(6, 3, 2);
  r.kind = cudaMemcpyDeviceToDevice;
  CUDA_OK(cudaMemcpy3D(&r));
  std::fill(box_back.begin(), box_back.end(), uchar4{});
  cudaMemcpy3DParms t{};
  t.srcPtr = lin;
  t.dstPtr = make_cudaPitchedPtr(box_back.data(), 6 * sizeof(uchar4), 6 * sizeof(uchar4), 3);
  t.extent = make_cudaExtent(6 * sizeof(uchar4), 3, 2);
  t.kind = cudaMemcpyDeviceToHost;
  CUDA_OK(cudaMemcpy3D(&t));
  CHECK(std::memcmp(box.data(), box_back.data(), box.size() * sizeof(uchar4)) == 0,
        "3D array to pitched device memory and back to the host");

  // A mipmapped array: level 2 of 40 x 24 is 10 x 6; its data round trips, its id is stable.
  cudaMipmappedArray_t mip = nullptr;
  CUDA_OK(cudaMallocMipmappedArray(&mip, &desc, make_cudaExtent(40, 24, 0), 4));
  cudaArray_t level = nullptr, again = nullptr;
  CUDA_OK(cudaGetMipmappedArrayLevel(&level, mip, 2));
  CUDA_OK(cudaGetMipmappedArrayLevel(&again, mip, 2));
  CHECK(level == again, "a mipmap level is the same array each time");
  CUDA_OK(cudaArrayGetInfo(nullptr, &ext, nullptr, level));
  CHECK(ext.width == 10 && ext.height == 6, "a mipmap level has the level's extent");
  std::vector<float> lv(10 * 6), lv_back(lv.size(), 0.f);
  for (size_t i = 0; i < lv.size(); ++i) lv[i] = static_cast<float>(i * 3);
  CUDA_OK(cudaMemcpy2DToArray(level, 0, 0, lv.data(), 10 * sizeof(float), 10 * sizeof(float), 6,
                              cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy2DFromArray(lv_back.data(), 10 * sizeof(float), level, 0, 0, 10 * sizeof(float), 6,
                                cudaMemcpyDeviceToHost));
  CHECK(lv_back == lv, "a mipmap level's data round trips");
  CHECK(cudaFreeArray(level) != cudaSuccess, "a mipmap level cannot be freed on its own");
  (void)cudaGetLastError();

  // Batches: two linear copies (H2D then D2D, one attribute each), and a 3D batch of a host block
  // into the 3D array and back out (element size from the array).
  {
    std::vector<float> in(64), out(64, 0.f);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) + 0.25f;
    float *d1 = nullptr, *d2 = nullptr;
    CUDA_OK(cudaMalloc(&d1, 64 * sizeof(float)));
    CUDA_OK(cudaMalloc(&d2, 64 * sizeof(float)));
    void* dsts[2] = {d1, d2};
    const void* srcs[2] = {in.data(), d1};
    size_t sizes[2] = {64 * sizeof(float), 64 * sizeof(float)};
    cudaMemcpyAttributes attrs[2] = {};
    attrs[0].srcAccessOrder = cudaMemcpySrcAccessOrderDuringApiCall;
    attrs[1].srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    size_t idxs[2] = {0, 1};
    CUDA_OK(cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, attrs, idxs, 2, s));
    CUDA_OK(cudaMemcpyAsync(out.data(), d2, 64 * sizeof(float), cudaMemcpyDeviceToHost, s));
    CUDA_OK(cudaStreamSynchronize(s));
    CHECK(out == in, "cudaMemcpyBatchAsync: H2D and D2D in one batch");
    attrs[1].srcAccessOrder = cudaMemcpySrcAccessOrderInvalid;
    CHECK(cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, attrs, idxs, 2, s) == cudaErrorInvalidValue,
          "a batch copy without a source access order is refused");
    (void)cudaGetLastError();
    CUDA_OK(cudaFree(d1));
    CUDA_OK(cudaFree(d2));

    std::vector<uchar4> block(4 * 2 * 3), block_back(block.size());
    for (size_t i = 0; i < block.size(); ++i)
      block[i] = make_uchar4(static_cast<unsigned char>(i * 7), 1, 2, static_cast<unsigned char>(i));
    cudaMemcpy3DBatchOp ops[2] = {};
    ops[0].src.type = cudaMemcpyOperandTypePointer;
    ops[0].src.op.ptr.ptr = block.data();
    ops[0].dst.type = cudaMemcpyOperandTypeArray;
    ops[0].dst.op.array.array = vol;
    ops[0].dst.op.array.offset = cudaOffset3D{3, 2, 1};
    ops[0].extent = make_cudaExtent(4, 2, 3);
    ops[0].srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    CUDA_OK(cudaMemcpy3DBatchAsync(1, ops, 0, s));
    ops[1].src = ops[0].dst;
    ops[1].dst = ops[0].src;
    ops[1].dst.op.ptr.ptr = block_back.data();
    ops[1].extent = ops[0].extent;
    ops[1].srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    CUDA_OK(cudaMemcpy3DBatchAsync(1, ops + 1, 0, s));
    CUDA_OK(cudaStreamSynchronize(s));
    CHECK(std::memcmp(block.data(), block_back.data(), block.size() * sizeof(uchar4)) == 0,
          "cudaMemcpy3DBatchAsync: a host block into a 3D array and back");
  }

  // Texture and surface objects: the getters give back what was set.
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = arr;
  cudaTextureDesc td{};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = 1;
  cudaTextureObject_t tex = 0;
  CUDA_OK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
  CHECK(tex != 0, "a texture object has a value");
  cudaResourceDesc res_back{};
  cudaTextureDesc td_back{};
  CUDA_OK(cudaGetTextureObjectResourceDesc(&res_back, tex));
  CUDA_OK(cudaGetTextureObjectTextureDesc(&td_back, tex));
  CHECK(res_back.resType == cudaResourceTypeArray && res_back.res.array.array == arr,
        "cudaGetTextureObjectResourceDesc gives the array back");
  CHECK(td_back.filterMode == cudaFilterModeLinear && td_back.normalizedCoords == 1 &&
            td_back.addressMode[1] == cudaAddressModeClamp,
        "cudaGetTextureObjectTextureDesc gives the description back");
  cudaSurfaceObject_t surf = 0;
  CUDA_OK(cudaCreateSurfaceObject(&surf, &res));
  CUDA_OK(cudaGetSurfaceObjectResourceDesc(&res_back, surf));
  CHECK(surf != 0 && surf != tex && res_back.res.array.array == arr, "a surface object and its resource");
  // The driver makes a surface object of an array made without cudaArraySurfaceLoadStore too (H100,
  // driver 580), though CUDA documents the flag as needed.
  res.res.array.array = arr2;
  cudaSurfaceObject_t unflagged = 0;
  CUDA_OK(cudaCreateSurfaceObject(&unflagged, &res));
  CUDA_OK(cudaDestroySurfaceObject(unflagged));
  CUDA_OK(cudaDestroySurfaceObject(surf));
  CUDA_OK(cudaDestroyTextureObject(tex));
  CHECK(cudaGetTextureObjectTextureDesc(&td_back, tex) != cudaSuccess, "a destroyed texture object is gone");
  (void)cudaGetLastError();

  CUDA_OK(cudaFree(lin.ptr));
  CUDA_OK(cudaFreeMipmappedArray(mip));
  CUDA_OK(cudaFreeArray(vol));
  CUDA_OK(cudaFreeArray(arr2));
  CUDA_OK(cudaFreeArray(arr));
  CHECK(cudaGetChannelDesc(&got, arr) != cudaSuccess, "a freed array is gone");
  (void)cudaGetLastError();
  CUDA_OK(cudaStreamDestroy(s));
}

#pragma GCC diagnostic pop
