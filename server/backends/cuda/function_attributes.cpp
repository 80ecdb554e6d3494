// cudaFuncAttributes <-> CUfunction_attribute.
#include "server/backends/cuda/function_attributes.h"

#include <cstring>

namespace rgpu::server::cuda {
namespace {

// Reads into an int field.
struct IntField {
  CUfunction_attribute attribute;
  int cudaFuncAttributes::*field;
  bool required;
};

// Reads into a size_t field.
struct SizeField {
  CUfunction_attribute attribute;
  size_t cudaFuncAttributes::*field;
};

constexpr SizeField kSizeFields[] = {
    {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &cudaFuncAttributes::sharedSizeBytes},
    {CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, &cudaFuncAttributes::constSizeBytes},
    {CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &cudaFuncAttributes::localSizeBytes},
};

constexpr IntField kIntFields[] = {
    {CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &cudaFuncAttributes::maxThreadsPerBlock, true},
    {CU_FUNC_ATTRIBUTE_NUM_REGS, &cudaFuncAttributes::numRegs, true},
    {CU_FUNC_ATTRIBUTE_PTX_VERSION, &cudaFuncAttributes::ptxVersion, true},
    {CU_FUNC_ATTRIBUTE_BINARY_VERSION, &cudaFuncAttributes::binaryVersion, true},
    {CU_FUNC_ATTRIBUTE_CACHE_MODE_CA, &cudaFuncAttributes::cacheModeCA, true},
    {CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, &cudaFuncAttributes::maxDynamicSharedSizeBytes, true},
    {CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, &cudaFuncAttributes::preferredShmemCarveout, true},
    {CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, &cudaFuncAttributes::clusterDimMustBeSet, false},
    {CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, &cudaFuncAttributes::requiredClusterWidth, false},
    {CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, &cudaFuncAttributes::requiredClusterHeight, false},
    {CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, &cudaFuncAttributes::requiredClusterDepth, false},
    {CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE, &cudaFuncAttributes::clusterSchedulingPolicyPreference, false},
    {CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, &cudaFuncAttributes::nonPortableClusterSizeAllowed, false},
};

}  // namespace

CUresult fill_function_attributes(const AttributeReader& read, cudaFuncAttributes* out) {
  std::memset(out, 0, sizeof *out);
  for (const SizeField& f : kSizeFields) {
    int value = 0;
    if (CUresult r = read(f.attribute, &value); r != CUDA_SUCCESS) return r;
    out->*f.field = static_cast<size_t>(value < 0 ? 0 : value);
  }
  for (const IntField& f : kIntFields) {
    int value = 0;
    CUresult r = read(f.attribute, &value);
    if (r != CUDA_SUCCESS && f.required) return r;
    out->*f.field = r == CUDA_SUCCESS ? value : 0;
  }
  return CUDA_SUCCESS;
}

std::optional<CUfunction_attribute> settable_function_attribute(int attribute) {
  switch (attribute) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize: return CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
    case cudaFuncAttributePreferredSharedMemoryCarveout: return CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT;
    case cudaFuncAttributeClusterDimMustBeSet: return CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET;
    case cudaFuncAttributeRequiredClusterWidth: return CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH;
    case cudaFuncAttributeRequiredClusterHeight: return CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT;
    case cudaFuncAttributeRequiredClusterDepth: return CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH;
    case cudaFuncAttributeNonPortableClusterSizeAllowed: return CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED;
    case cudaFuncAttributeClusterSchedulingPolicyPreference:
      return CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
    default: return std::nullopt;
  }
}

}  // namespace rgpu::server::cuda
