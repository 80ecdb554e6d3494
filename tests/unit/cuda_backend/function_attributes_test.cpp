// cudaFuncAttributes filled from driver attribute reads; settable attribute mapping.
#include <catch2/catch.hpp>

#include <set>

#include "server/backends/cuda/function_attributes.h"

using rgpu::server::cuda::fill_function_attributes;
using rgpu::server::cuda::settable_function_attribute;

TEST_CASE("every field is read from its driver attribute", "[cuda_backend]") {
  std::set<int> asked;
  auto read = [&](CUfunction_attribute a, int* value) {
    asked.insert(a);
    *value = 100 + static_cast<int>(a);
    return CUDA_SUCCESS;
  };
  cudaFuncAttributes out;
  REQUIRE(fill_function_attributes(read, &out) == CUDA_SUCCESS);
  CHECK(out.maxThreadsPerBlock == 100 + CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  CHECK(out.sharedSizeBytes == 100 + CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  CHECK(out.constSizeBytes == 100 + CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
  CHECK(out.localSizeBytes == 100 + CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
  CHECK(out.numRegs == 100 + CU_FUNC_ATTRIBUTE_NUM_REGS);
  CHECK(out.ptxVersion == 100 + CU_FUNC_ATTRIBUTE_PTX_VERSION);
  CHECK(out.binaryVersion == 100 + CU_FUNC_ATTRIBUTE_BINARY_VERSION);
  CHECK(out.cacheModeCA == 100 + CU_FUNC_ATTRIBUTE_CACHE_MODE_CA);
  CHECK(out.maxDynamicSharedSizeBytes == 100 + CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
  CHECK(out.preferredShmemCarveout == 100 + CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT);
  CHECK(out.clusterDimMustBeSet == 100 + CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET);
  CHECK(out.requiredClusterWidth == 100 + CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH);
  CHECK(out.requiredClusterHeight == 100 + CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT);
  CHECK(out.requiredClusterDepth == 100 + CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH);
  CHECK(out.clusterSchedulingPolicyPreference == 100 + CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE);
  CHECK(out.nonPortableClusterSizeAllowed == 100 + CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED);
  CHECK(asked.size() == 16);
}

TEST_CASE("a failing basic attribute fails the whole read", "[cuda_backend]") {
  auto read = [](CUfunction_attribute a, int* value) {
    *value = 1;
    return a == CU_FUNC_ATTRIBUTE_NUM_REGS ? CUDA_ERROR_INVALID_HANDLE : CUDA_SUCCESS;
  };
  cudaFuncAttributes out;
  CHECK(fill_function_attributes(read, &out) == CUDA_ERROR_INVALID_HANDLE);
}

TEST_CASE("cluster attributes the driver does not answer read as zero", "[cuda_backend]") {
  auto read = [](CUfunction_attribute a, int* value) {
    *value = 5;
    return a >= CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET ? CUDA_ERROR_NOT_SUPPORTED : CUDA_SUCCESS;
  };
  cudaFuncAttributes out;
  REQUIRE(fill_function_attributes(read, &out) == CUDA_SUCCESS);
  CHECK(out.numRegs == 5);
  CHECK(out.requiredClusterWidth == 0);
  CHECK(out.nonPortableClusterSizeAllowed == 0);
}

TEST_CASE("settable runtime attributes map to their driver twins", "[cuda_backend]") {
  CHECK(settable_function_attribute(cudaFuncAttributeMaxDynamicSharedMemorySize) ==
        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
  CHECK(settable_function_attribute(cudaFuncAttributePreferredSharedMemoryCarveout) ==
        CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT);
  CHECK(settable_function_attribute(cudaFuncAttributeRequiredClusterWidth) == CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH);
  CHECK(settable_function_attribute(cudaFuncAttributeNonPortableClusterSizeAllowed) ==
        CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED);
  CHECK(settable_function_attribute(cudaFuncAttributeClusterSchedulingPolicyPreference) ==
        CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE);
}

TEST_CASE("other attribute values are not settable", "[cuda_backend]") {
  CHECK_FALSE(settable_function_attribute(0).has_value());
  CHECK_FALSE(settable_function_attribute(cudaFuncAttributeMax).has_value());
  CHECK_FALSE(settable_function_attribute(-1).has_value());
}
