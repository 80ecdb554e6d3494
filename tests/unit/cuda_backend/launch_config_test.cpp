// Launch configuration building and the grid/block shape check.
#include <catch2/catch.hpp>

#include <vector>

#include <cuda_runtime_api.h>

#include "server/backends/cuda/launch_config.h"

using rgpu::server::LaunchRequest;
using rgpu::server::cuda::launch_shape_valid;
using rgpu::server::cuda::LaunchLimits;
using rgpu::server::cuda::make_launch_config;

namespace {
LaunchRequest request_with(uint32_t gx, uint32_t bx, uint32_t by = 1, uint32_t bz = 1) {
  LaunchRequest r;
  r.grid[0] = gx;
  r.block[0] = bx;
  r.block[1] = by;
  r.block[2] = bz;
  return r;
}
}  // namespace

TEST_CASE("the config carries the request's shape, shared memory and stream", "[cuda_backend]") {
  LaunchRequest r;
  r.grid[0] = 7, r.grid[1] = 2, r.grid[2] = 3;
  r.block[0] = 128, r.block[1] = 2, r.block[2] = 1;
  r.shared_mem = 4096;
  int stream_object = 0;
  r.stream = &stream_object;
  std::vector<CUlaunchAttribute> attributes;
  CUlaunchConfig c = make_launch_config(r, attributes);
  CHECK(c.gridDimX == 7);
  CHECK(c.gridDimY == 2);
  CHECK(c.gridDimZ == 3);
  CHECK(c.blockDimX == 128);
  CHECK(c.blockDimY == 2);
  CHECK(c.blockDimZ == 1);
  CHECK(c.sharedMemBytes == 4096);
  CHECK(c.hStream == reinterpret_cast<CUstream>(&stream_object));
  CHECK(c.numAttrs == 0);
  CHECK(c.attrs == nullptr);
}

TEST_CASE("a cooperative launch carries the cooperative attribute", "[cuda_backend]") {
  LaunchRequest r;
  r.cooperative = true;
  std::vector<CUlaunchAttribute> attributes;
  CUlaunchConfig c = make_launch_config(r, attributes);
  REQUIRE(c.numAttrs == 1);
  REQUIRE(c.attrs == attributes.data());
  CHECK(attributes[0].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE);
  CHECK(attributes[0].value.cooperative == 1);
}

TEST_CASE("the request's attributes reach the driver as they are, cooperation after them", "[cuda_backend]") {
  cudaLaunchAttribute given[2] = {};
  given[0].id = cudaLaunchAttributeClusterDimension;
  given[0].val.clusterDim.x = 2, given[0].val.clusterDim.y = 1, given[0].val.clusterDim.z = 1;
  given[1].id = cudaLaunchAttributePriority;
  given[1].val.priority = -1;
  LaunchRequest r;
  r.attributes = given;
  r.cooperative = true;
  std::vector<CUlaunchAttribute> attributes(5);  // storage reused: what it held is gone
  CUlaunchConfig c = make_launch_config(r, attributes);
  REQUIRE(c.numAttrs == 3);
  CHECK(c.attrs[0].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
  CHECK((c.attrs[0].value.clusterDim.x == 2 && c.attrs[0].value.clusterDim.y == 1 && c.attrs[0].value.clusterDim.z == 1));
  CHECK(c.attrs[1].id == CU_LAUNCH_ATTRIBUTE_PRIORITY);
  CHECK(c.attrs[1].value.priority == -1);
  CHECK(c.attrs[2].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE);
}

TEST_CASE("launch shapes within the limits are valid", "[cuda_backend]") {
  LaunchLimits limits;
  CHECK(launch_shape_valid(request_with(1, 1), limits, 1024));
  CHECK(launch_shape_valid(request_with(2147483647u, 1024), limits, 1024));
  CHECK(launch_shape_valid(request_with(1, 32, 32), limits, 1024));
}

TEST_CASE("zero, oversized and too-many-thread shapes are invalid", "[cuda_backend]") {
  LaunchLimits limits;
  CHECK_FALSE(launch_shape_valid(request_with(0, 32), limits, 1024));
  CHECK_FALSE(launch_shape_valid(request_with(1, 0), limits, 1024));
  CHECK_FALSE(launch_shape_valid(request_with(1, 2048), limits, 1024));
  CHECK_FALSE(launch_shape_valid(request_with(1, 1, 1, 65), limits, 1024));
  CHECK_FALSE(launch_shape_valid(request_with(1, 64, 32), limits, 1024));
  CHECK_FALSE(launch_shape_valid(request_with(1, 512), limits, 256));  // the kernel's own limit
  LaunchRequest tall = request_with(1, 1);
  tall.grid[1] = 65536;
  CHECK_FALSE(launch_shape_valid(tall, limits, 1024));
}
