// Emulated runtime: allocation accounting, copies of every kind, memsets, and bad device ranges.
#include <catch2/catch.hpp>

#include <cstdint>
#include <numeric>
#include <vector>

#include "tests/unit/emulated/emulated_test_env.h"

namespace emu = rgpu::server::emulated;
using rgpu::server::emulated::test::FreshDevices;
using rgpu::server::emulated::test::kDeviceMemory;

TEST_CASE_METHOD(FreshDevices, "allocations are aligned, accounted and bounded by the device size", "[emulated]") {
  size_t free0 = 0, total = 0;
  REQUIRE(emu::cudaMemGetInfo(&free0, &total) == cudaSuccess);
  CHECK(total == kDeviceMemory);
  CHECK(free0 == kDeviceMemory);

  void* a = nullptr;
  REQUIRE(emu::cudaMalloc(&a, 1000) == cudaSuccess);
  CHECK(reinterpret_cast<uintptr_t>(a) % 256 == 0);
  size_t free1 = 0;
  REQUIRE(emu::cudaMemGetInfo(&free1, &total) == cudaSuccess);
  CHECK(free1 == free0 - 1024);  // footprint rounded to the 256-byte allocation granularity

  void* big = nullptr;
  CHECK(emu::cudaMalloc(&big, kDeviceMemory) == cudaErrorMemoryAllocation);
  CHECK(big == nullptr);
  REQUIRE(emu::cudaMalloc(&big, free1) == cudaSuccess);  // exactly what is left fits
  size_t free2 = 1;
  REQUIRE(emu::cudaMemGetInfo(&free2, &total) == cudaSuccess);
  CHECK(free2 == 0);
  void* one_more = nullptr;
  CHECK(emu::cudaMalloc(&one_more, 1) == cudaErrorMemoryAllocation);

  // The other device has its own budget.
  REQUIRE(emu::cudaSetDevice(1) == cudaSuccess);
  size_t free_other = 0;
  REQUIRE(emu::cudaMemGetInfo(&free_other, &total) == cudaSuccess);
  CHECK(free_other == kDeviceMemory);
  REQUIRE(emu::cudaSetDevice(0) == cudaSuccess);

  REQUIRE(emu::cudaFree(big) == cudaSuccess);
  REQUIRE(emu::cudaFree(a) == cudaSuccess);
  REQUIRE(emu::cudaMemGetInfo(&free2, &total) == cudaSuccess);
  CHECK(free2 == kDeviceMemory);
}

TEST_CASE_METHOD(FreshDevices, "freeing is checked and zero-byte allocations are null", "[emulated]") {
  void* p = reinterpret_cast<void*>(1);
  REQUIRE(emu::cudaMalloc(&p, 0) == cudaSuccess);
  CHECK(p == nullptr);
  CHECK(emu::cudaFree(nullptr) == cudaSuccess);
  REQUIRE(emu::cudaMalloc(&p, 512) == cudaSuccess);
  CHECK(emu::cudaFree(static_cast<char*>(p) + 8) == cudaErrorInvalidValue);  // not an allocation start
  CHECK(emu::cudaFree(p) == cudaSuccess);
  CHECK(emu::cudaFree(p) == cudaErrorInvalidValue);  // double free
  int on_stack = 0;
  CHECK(emu::cudaFree(&on_stack) == cudaErrorInvalidValue);
}

TEST_CASE_METHOD(FreshDevices, "cudaDeviceReset releases the device's memory", "[emulated]") {
  void* p = nullptr;
  REQUIRE(emu::cudaMalloc(&p, 4096) == cudaSuccess);
  REQUIRE(emu::cudaDeviceReset() == cudaSuccess);
  size_t free = 0, total = 0;
  REQUIRE(emu::cudaMemGetInfo(&free, &total) == cudaSuccess);
  CHECK(free == total);
  CHECK(emu::cudaFree(p) == cudaErrorInvalidValue);
}

TEST_CASE_METHOD(FreshDevices, "memcpy round-trips through device memory with every kind", "[emulated]") {
  std::vector<uint8_t> src(4096), back(4096, 0);
  std::iota(src.begin(), src.end(), uint8_t{7});
  void* d1 = nullptr;
  void* d2 = nullptr;
  REQUIRE(emu::cudaMalloc(&d1, src.size()) == cudaSuccess);
  REQUIRE(emu::cudaMalloc(&d2, src.size()) == cudaSuccess);

  SECTION("explicit kinds") {
    REQUIRE(emu::cudaMemcpy(d1, src.data(), src.size(), cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(emu::cudaMemcpy(d2, d1, src.size(), cudaMemcpyDeviceToDevice) == cudaSuccess);
    REQUIRE(emu::cudaMemcpy(back.data(), d2, back.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(back == src);
    std::vector<uint8_t> host_copy(src.size());
    REQUIRE(emu::cudaMemcpy(host_copy.data(), src.data(), src.size(), cudaMemcpyHostToHost) == cudaSuccess);
    CHECK(host_copy == src);
  }
  SECTION("cudaMemcpyDefault tells device from host by the allocation map") {
    REQUIRE(emu::cudaMemcpy(d1, src.data(), src.size(), cudaMemcpyDefault) == cudaSuccess);
    REQUIRE(emu::cudaMemcpy(d2, d1, src.size(), cudaMemcpyDefault) == cudaSuccess);
    REQUIRE(emu::cudaMemcpy(back.data(), d2, back.size(), cudaMemcpyDefault) == cudaSuccess);
    CHECK(back == src);
  }
  SECTION("async copies on a stream, and an offset inside the allocation") {
    cudaStream_t s = nullptr;
    REQUIRE(emu::cudaStreamCreate(&s) == cudaSuccess);
    REQUIRE(emu::cudaMemcpyAsync(static_cast<uint8_t*>(d1) + 100, src.data(), 50, cudaMemcpyHostToDevice, s) ==
            cudaSuccess);
    REQUIRE(emu::cudaMemcpyAsync(back.data(), static_cast<uint8_t*>(d1) + 100, 50, cudaMemcpyDeviceToHost, s) ==
            cudaSuccess);
    REQUIRE(emu::cudaStreamSynchronize(s) == cudaSuccess);
    CHECK(std::equal(back.begin(), back.begin() + 50, src.begin()));
    REQUIRE(emu::cudaStreamDestroy(s) == cudaSuccess);
  }
  SECTION("peer copies between devices") {
    REQUIRE(emu::cudaSetDevice(1) == cudaSuccess);
    void* d_other = nullptr;
    REQUIRE(emu::cudaMalloc(&d_other, src.size()) == cudaSuccess);
    REQUIRE(emu::cudaMemcpy(d1, src.data(), src.size(), cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(emu::cudaMemcpyPeer(d_other, 1, d1, 0, src.size()) == cudaSuccess);
    REQUIRE(emu::cudaMemcpy(back.data(), d_other, back.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(back == src);
    CHECK(emu::cudaMemcpyPeer(d_other, 0, d1, 0, 16) == cudaErrorInvalidValue);  // d_other lives on device 1
    CHECK(emu::cudaMemcpyPeer(d_other, 7, d1, 0, 16) == cudaErrorInvalidDevice);
    REQUIRE(emu::cudaFree(d_other) == cudaSuccess);
    REQUIRE(emu::cudaSetDevice(0) == cudaSuccess);
  }
  CHECK(emu::cudaMemcpy(d1, src.data(), 16, static_cast<cudaMemcpyKind>(7)) == cudaErrorInvalidMemcpyDirection);
  REQUIRE(emu::cudaFree(d1) == cudaSuccess);
  REQUIRE(emu::cudaFree(d2) == cudaSuccess);
}

TEST_CASE_METHOD(FreshDevices, "2D copies honour both pitches", "[emulated]") {
  constexpr size_t kWidth = 10, kHeight = 4, kHostPitch = 16;
  std::vector<uint8_t> host(kHostPitch * kHeight);
  std::iota(host.begin(), host.end(), uint8_t{1});
  void* d = nullptr;
  size_t pitch = 0;
  REQUIRE(emu::cudaMallocPitch(&d, &pitch, kWidth, kHeight) == cudaSuccess);
  CHECK(pitch >= kWidth);
  CHECK(pitch % 512 == 0);
  REQUIRE(emu::cudaMemset(d, 0xEE, pitch * kHeight) == cudaSuccess);
  REQUIRE(emu::cudaMemcpy2D(d, pitch, host.data(), kHostPitch, kWidth, kHeight, cudaMemcpyHostToDevice) ==
          cudaSuccess);

  // The device rows hold the host rows' first kWidth bytes; the padding is untouched.
  std::vector<uint8_t> flat(pitch * kHeight);
  REQUIRE(emu::cudaMemcpy(flat.data(), d, flat.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
  for (size_t row = 0; row < kHeight; ++row) {
    for (size_t col = 0; col < kWidth; ++col) CHECK(flat[row * pitch + col] == host[row * kHostPitch + col]);
    CHECK(flat[row * pitch + kWidth] == 0xEE);
  }

  std::vector<uint8_t> back(kWidth * kHeight);
  REQUIRE(emu::cudaMemcpy2DAsync(back.data(), kWidth, d, pitch, kWidth, kHeight, cudaMemcpyDeviceToHost, nullptr) ==
          cudaSuccess);
  for (size_t row = 0; row < kHeight; ++row)
    for (size_t col = 0; col < kWidth; ++col) CHECK(back[row * kWidth + col] == host[row * kHostPitch + col]);

  CHECK(emu::cudaMemcpy2D(d, 4, host.data(), kHostPitch, kWidth, kHeight, cudaMemcpyHostToDevice) ==
        cudaErrorInvalidPitchValue);
  // One row too many runs past the allocation.
  CHECK(emu::cudaMemcpy2D(d, pitch, host.data(), kHostPitch, kWidth, kHeight + 1, cudaMemcpyHostToDevice) ==
        cudaErrorInvalidValue);
  REQUIRE(emu::cudaFree(d) == cudaSuccess);
}

namespace {
cudaPitchedPtr pitched(void* p, size_t pitch, size_t xsize, size_t ysize) { return {p, pitch, xsize, ysize}; }
cudaExtent extent(size_t w, size_t h, size_t d) { return {w, h, d}; }
cudaPos position(size_t x, size_t y, size_t z) { return {x, y, z}; }
}  // namespace

TEST_CASE_METHOD(FreshDevices, "3D copies and memsets with pitched pointers and positions", "[emulated]") {
  constexpr size_t kW = 8, kH = 3, kD = 2;
  uint8_t host[kD][kH][kW];
  for (size_t i = 0; i < sizeof host; ++i) (&host[0][0][0])[i] = static_cast<uint8_t>(i + 1);
  void* d = nullptr;
  size_t pitch = 0;
  REQUIRE(emu::cudaMallocPitch(&d, &pitch, kW, kH * kD) == cudaSuccess);
  cudaPitchedPtr device = pitched(d, pitch, kW, kH);
  REQUIRE(emu::cudaMemset3D(device, 0, extent(kW, kH, kD)) == cudaSuccess);

  cudaMemcpy3DParms up = {};
  up.srcPtr = pitched(host, kW, kW, kH);
  up.dstPtr = device;
  up.extent = extent(kW, kH, kD);
  up.kind = cudaMemcpyHostToDevice;
  REQUIRE(emu::cudaMemcpy3D(&up) == cudaSuccess);

  // A 4x2x2 box starting at (x 2, y 1) comes back densely packed.
  uint8_t box[kD][2][4] = {};
  cudaMemcpy3DParms down = {};
  down.srcPtr = device;
  down.srcPos = position(2, 1, 0);
  down.dstPtr = pitched(box, 4, 4, 2);
  down.extent = extent(4, 2, kD);
  down.kind = cudaMemcpyDeviceToHost;
  REQUIRE(emu::cudaMemcpy3DAsync(&down, nullptr) == cudaSuccess);
  for (size_t z = 0; z < kD; ++z)
    for (size_t y = 0; y < 2; ++y)
      for (size_t x = 0; x < 4; ++x) CHECK(box[z][y][x] == host[z][y + 1][x + 2]);

  // The second slice's memset leaves the first alone.
  REQUIRE(emu::cudaMemset3DAsync(pitched(static_cast<uint8_t*>(d) + pitch * kH, pitch, kW, kH), 0x7F,
                                 extent(kW, kH, 1), nullptr) == cudaSuccess);
  REQUIRE(emu::cudaMemcpy3D(&down) == cudaSuccess);
  CHECK(box[0][0][0] == host[0][1][2]);
  CHECK(box[1][1][3] == 0x7F);

  down.srcPos = position(2, 2, 0);  // the box's last row now runs past the allocation
  CHECK(emu::cudaMemcpy3D(&down) == cudaErrorInvalidValue);
  down.srcPos = position(0, 0, 0);
  down.srcArray = reinterpret_cast<cudaArray_t>(0x1);
  CHECK(emu::cudaMemcpy3D(&down) == cudaErrorInvalidResourceHandle);  // not a live array
  CHECK(emu::cudaMemset3D(device, 0, extent(kW, kH, kD + 1)) == cudaErrorInvalidValue);
  CHECK(emu::cudaMemset3D(pitched(d, 4, kW, kH), 0, extent(kW, kH, kD)) ==
        cudaErrorInvalidPitchValue);
  REQUIRE(emu::cudaFree(d) == cudaSuccess);
}

TEST_CASE_METHOD(FreshDevices, "memsets fill exactly their range", "[emulated]") {
  void* d = nullptr;
  REQUIRE(emu::cudaMalloc(&d, 64) == cudaSuccess);
  REQUIRE(emu::cudaMemset(d, 0, 64) == cudaSuccess);
  REQUIRE(emu::cudaMemsetAsync(static_cast<uint8_t*>(d) + 8, 0x1AB, 16, nullptr) == cudaSuccess);  // low byte
  std::vector<uint8_t> back(64);
  REQUIRE(emu::cudaMemcpy(back.data(), d, 64, cudaMemcpyDeviceToHost) == cudaSuccess);
  for (size_t i = 0; i < 64; ++i) CHECK(back[i] == (i >= 8 && i < 24 ? 0xAB : 0));

  REQUIRE(emu::cudaMemset2D(d, 16, 0x5, 4, 4) == cudaSuccess);
  REQUIRE(emu::cudaMemcpy(back.data(), d, 64, cudaMemcpyDeviceToHost) == cudaSuccess);
  for (size_t row = 0; row < 4; ++row) {
    for (size_t col = 0; col < 4; ++col) CHECK(back[row * 16 + col] == 0x5);
  }
  CHECK(back[4] == 0);
  CHECK(emu::cudaMemset2DAsync(d, 16, 0, 4, 5, nullptr) == cudaErrorInvalidValue);  // 5 rows of 16 > 64 bytes
  REQUIRE(emu::cudaFree(d) == cudaSuccess);
}

TEST_CASE_METHOD(FreshDevices, "bad device ranges are refused without touching memory", "[emulated]") {
  std::vector<uint8_t> host(256, 1);
  void* d = nullptr;
  REQUIRE(emu::cudaMalloc(&d, 128) == cudaSuccess);
  auto* dp = static_cast<uint8_t*>(d);
  // Past the end, straddling the end, before the start, never allocated, after free.
  CHECK(emu::cudaMemcpy(dp, host.data(), 129, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
  CHECK(emu::cudaMemcpy(dp + 100, host.data(), 29, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
  CHECK(emu::cudaMemcpy(host.data(), dp - 1, 4, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
  CHECK(emu::cudaMemcpy(host.data(), reinterpret_cast<void*>(0xdead0000), 4, cudaMemcpyDeviceToHost) ==
        cudaErrorInvalidValue);
  CHECK(emu::cudaMemcpy(dp, reinterpret_cast<void*>(0x10), 4, cudaMemcpyDeviceToDevice) == cudaErrorInvalidValue);
  CHECK(emu::cudaMemset(dp + 64, 0, 65) == cudaErrorInvalidValue);
  CHECK(emu::cudaMemset(reinterpret_cast<void*>(0x1000), 0, 1) == cudaErrorInvalidValue);
  // Huge sizes must not wrap around.
  CHECK(emu::cudaMemcpy(dp + 8, host.data(), SIZE_MAX - 4, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
  CHECK(emu::cudaMemcpy2D(dp, SIZE_MAX / 2, host.data(), SIZE_MAX / 2, 4, 8, cudaMemcpyHostToDevice) ==
        cudaErrorInvalidValue);
  REQUIRE(emu::cudaFree(d) == cudaSuccess);
  CHECK(emu::cudaMemcpy(host.data(), dp, 4, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
  CHECK(std::all_of(host.begin(), host.end(), [](uint8_t b) { return b == 1; }));
}

TEST_CASE_METHOD(FreshDevices, "stream-ordered allocation", "[emulated]") {
  cudaStream_t s = nullptr;
  REQUIRE(emu::cudaStreamCreate(&s) == cudaSuccess);
  void* p = nullptr;
  REQUIRE(emu::cudaMallocAsync(&p, 1 << 20, s) == cudaSuccess);
  size_t free = 0, total = 0;
  REQUIRE(emu::cudaMemGetInfo(&free, &total) == cudaSuccess);
  CHECK(total - free == (1u << 20));
  REQUIRE(emu::cudaMemsetAsync(p, 3, 1 << 20, s) == cudaSuccess);  // the mmap'ed (large) path
  REQUIRE(emu::cudaFreeAsync(p, s) == cudaSuccess);
  REQUIRE(emu::cudaMemGetInfo(&free, &total) == cudaSuccess);
  CHECK(free == total);
  CHECK(emu::cudaMallocAsync(&p, 16, reinterpret_cast<cudaStream_t>(0x1234)) == cudaErrorInvalidResourceHandle);
  REQUIRE(emu::cudaStreamDestroy(s) == cudaSuccess);
}
