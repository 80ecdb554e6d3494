// Emulated runtime: the configured virtual devices, their properties and settings.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "server/backends/emulated/runtime.h"
#include "tests/unit/emulated/emulated_test_env.h"

namespace emu = rgpu::server::emulated;
using rgpu::server::emulated::test::FreshDevices;
using rgpu::server::emulated::test::kDeviceMemory;

TEST_CASE_METHOD(FreshDevices, "the configured devices exist and can be selected", "[emulated]") {
  int count = 0;
  REQUIRE(emu::cudaGetDeviceCount(&count) == cudaSuccess);
  CHECK(count == 2);
  REQUIRE(emu::cudaSetDevice(1) == cudaSuccess);
  int device = -1;
  REQUIRE(emu::cudaGetDevice(&device) == cudaSuccess);
  CHECK(device == 1);
  CHECK(emu::cudaSetDevice(2) == cudaErrorInvalidDevice);
  CHECK(emu::cudaSetDevice(-1) == cudaErrorInvalidDevice);
  REQUIRE(emu::cudaSetDevice(0) == cudaSuccess);
  CHECK(emu::cudaDeviceSynchronize() == cudaSuccess);
  CHECK(emu::cudaInitDevice(1, 0, 0) == cudaSuccess);
  int version = 0;
  REQUIRE(emu::cudaRuntimeGetVersion(&version) == cudaSuccess);
  CHECK(version == CUDART_VERSION);
}

TEST_CASE_METHOD(FreshDevices, "properties agree with attributes", "[emulated]") {
  cudaDeviceProp p;
  REQUIRE(emu::cudaGetDeviceProperties(&p, 1) == cudaSuccess);
  CHECK(std::string(p.name) == "rgpu emulated device");
  CHECK(p.major == 9);
  CHECK(p.minor == 0);
  CHECK(p.totalGlobalMem == kDeviceMemory);
  CHECK(p.maxThreadsPerBlock == 1024);
  CHECK(p.warpSize == 32);
  CHECK(p.multiProcessorCount == 132);
  CHECK(p.sharedMemPerBlock == 48 * 1024);
  CHECK(p.sharedMemPerBlockOptin == 227 * 1024);
  CHECK(p.maxGridSize[0] == 2147483647);
  cudaDeviceProp p0;
  REQUIRE(emu::cudaGetDeviceProperties(&p0, 0) == cudaSuccess);
  CHECK(std::memcmp(p.uuid.bytes, p0.uuid.bytes, sizeof p.uuid.bytes) != 0);

  struct Pair {
    cudaDeviceAttr attr;
    long long prop;
  };
  const Pair pairs[] = {
      {cudaDevAttrMaxThreadsPerBlock, p.maxThreadsPerBlock},
      {cudaDevAttrMaxBlockDimX, p.maxThreadsDim[0]},
      {cudaDevAttrMaxBlockDimZ, p.maxThreadsDim[2]},
      {cudaDevAttrMaxGridDimY, p.maxGridSize[1]},
      {cudaDevAttrMaxSharedMemoryPerBlock, static_cast<long long>(p.sharedMemPerBlock)},
      {cudaDevAttrMaxSharedMemoryPerBlockOptin, static_cast<long long>(p.sharedMemPerBlockOptin)},
      {cudaDevAttrMaxSharedMemoryPerMultiprocessor, static_cast<long long>(p.sharedMemPerMultiprocessor)},
      {cudaDevAttrTotalConstantMemory, static_cast<long long>(p.totalConstMem)},
      {cudaDevAttrWarpSize, p.warpSize},
      {cudaDevAttrMultiProcessorCount, p.multiProcessorCount},
      {cudaDevAttrComputeCapabilityMajor, p.major},
      {cudaDevAttrComputeCapabilityMinor, p.minor},
      {cudaDevAttrMaxThreadsPerMultiProcessor, p.maxThreadsPerMultiProcessor},
      {cudaDevAttrMaxBlocksPerMultiprocessor, p.maxBlocksPerMultiProcessor},
      {cudaDevAttrL2CacheSize, p.l2CacheSize},
      {cudaDevAttrPciBusId, p.pciBusID},
      {cudaDevAttrUnifiedAddressing, p.unifiedAddressing},
      {cudaDevAttrMemoryPoolsSupported, p.memoryPoolsSupported},
      {cudaDevAttrCooperativeLaunch, p.cooperativeLaunch},
  };
  for (const Pair& pair : pairs) {
    int value = 0;
    REQUIRE(emu::cudaDeviceGetAttribute(&value, pair.attr, 1) == cudaSuccess);
    INFO("attribute " << pair.attr);
    CHECK(value == pair.prop);
  }
  int value = 0;
  value = -1;
  REQUIRE(emu::cudaDeviceGetAttribute(&value, cudaDevAttrReserved92, 0) == cudaSuccess);  // as a real device
  CHECK(value == 0);
  CHECK(emu::cudaDeviceGetAttribute(&value, static_cast<cudaDeviceAttr>(200), 0) == cudaErrorInvalidValue);
  CHECK(emu::cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, 5) == cudaErrorInvalidDevice);
  CHECK(emu::cudaGetDeviceProperties(&p, 2) == cudaErrorInvalidDevice);
}

TEST_CASE_METHOD(FreshDevices, "PCI bus ids round-trip", "[emulated]") {
  char bus_id[32];
  REQUIRE(emu::cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, 1) == cudaSuccess);
  int device = -1;
  REQUIRE(emu::cudaDeviceGetByPCIBusId(&device, bus_id) == cudaSuccess);
  CHECK(device == 1);
  CHECK(emu::cudaDeviceGetByPCIBusId(&device, "0000:7f:00.0") == cudaErrorInvalidDevice);
}

TEST_CASE_METHOD(FreshDevices, "limits, cache config, flags and peer access are per device", "[emulated]") {
  size_t limit = 0;
  REQUIRE(emu::cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize) == cudaSuccess);
  CHECK(limit == 8u << 20);
  REQUIRE(emu::cudaDeviceSetLimit(cudaLimitStackSize, 4096) == cudaSuccess);
  REQUIRE(emu::cudaDeviceGetLimit(&limit, cudaLimitStackSize) == cudaSuccess);
  CHECK(limit == 4096);
  CHECK(emu::cudaDeviceGetLimit(&limit, static_cast<cudaLimit>(0x7)) == cudaErrorUnsupportedLimit);
  CHECK(emu::cudaDeviceGetLimit(&limit, cudaLimitDevRuntimeSyncDepth) == cudaErrorUnsupportedLimit);  // CUDA 13, sm_90

  REQUIRE(emu::cudaDeviceSetCacheConfig(cudaFuncCachePreferShared) == cudaSuccess);
  cudaFuncCache cache = cudaFuncCachePreferNone;
  REQUIRE(emu::cudaDeviceGetCacheConfig(&cache) == cudaSuccess);
  CHECK(cache == cudaFuncCachePreferShared);

  REQUIRE(emu::cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) == cudaSuccess);
  unsigned flags = 0;
  REQUIRE(emu::cudaGetDeviceFlags(&flags) == cudaSuccess);
  CHECK((flags & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync);
  CHECK(emu::cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield) == cudaErrorInvalidValue);

  int can = 0;
  REQUIRE(emu::cudaDeviceCanAccessPeer(&can, 0, 1) == cudaSuccess);
  CHECK(can == 1);
  REQUIRE(emu::cudaDeviceEnablePeerAccess(1, 0) == cudaSuccess);
  CHECK(emu::cudaDeviceEnablePeerAccess(1, 0) == cudaErrorPeerAccessAlreadyEnabled);
  REQUIRE(emu::cudaDeviceDisablePeerAccess(1) == cudaSuccess);
  CHECK(emu::cudaDeviceDisablePeerAccess(1) == cudaErrorPeerAccessNotEnabled);

  int value = -1;
  REQUIRE(emu::cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrAccessSupported, 0, 1) == cudaSuccess);
  CHECK(value == 1);
  CHECK(emu::cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrAccessSupported, 1, 1) == cudaErrorInvalidDevice);
  cudaDeviceProp wanted = {};
  wanted.major = 9;
  REQUIRE(emu::cudaChooseDevice(&value, &wanted) == cudaSuccess);
  CHECK(value == 0);
  CHECK(emu::cudaProfilerStart() == cudaSuccess);
  CHECK(emu::cudaProfilerStop() == cudaSuccess);

  // Reset restores the defaults.
  REQUIRE(emu::cudaDeviceReset() == cudaSuccess);
  REQUIRE(emu::cudaDeviceGetLimit(&limit, cudaLimitStackSize) == cudaSuccess);
  CHECK(limit == 1024);
}

TEST_CASE("every emulated function resolves by name, per-thread variants included", "[emulated]") {
  CHECK(emu::resolve("cudaMalloc", nullptr) == reinterpret_cast<void*>(&emu::cudaMalloc));
  CHECK(emu::resolve("cudaMemcpyAsync_ptsz", nullptr) == reinterpret_cast<void*>(&emu::cudaMemcpyAsync));
  CHECK(emu::resolve("cudaMemcpy_ptds", nullptr) == reinterpret_cast<void*>(&emu::cudaMemcpy));
  CHECK(emu::resolve("cudaGraphLaunch", nullptr) == reinterpret_cast<void*>(&emu::cudaGraphLaunch));
  CHECK(emu::resolve("cudaGLGetDevices", nullptr) == nullptr);
  CHECK(emu::resolve("_ptsz", nullptr) == nullptr);
  CHECK(emu::resolve(nullptr, nullptr) == nullptr);
}
