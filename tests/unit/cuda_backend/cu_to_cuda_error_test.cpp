// The CUresult -> cudaError_t table.
#include <catch2/catch.hpp>

#include "server/backends/cuda/cu_to_cuda_error.h"

using rgpu::server::cuda::cu_function_lookup_error;
using rgpu::server::cuda::cu_to_cuda_error;

TEST_CASE("driver results map to the runtime's errors for the same failure", "[cuda_backend]") {
  CHECK(cu_to_cuda_error(CUDA_SUCCESS) == cudaSuccess);
  CHECK(cu_to_cuda_error(CUDA_ERROR_INVALID_VALUE) == cudaErrorInvalidValue);
  CHECK(cu_to_cuda_error(CUDA_ERROR_OUT_OF_MEMORY) == cudaErrorMemoryAllocation);
  CHECK(cu_to_cuda_error(CUDA_ERROR_NOT_INITIALIZED) == cudaErrorInitializationError);
  CHECK(cu_to_cuda_error(CUDA_ERROR_NO_BINARY_FOR_GPU) == cudaErrorNoKernelImageForDevice);
  CHECK(cu_to_cuda_error(CUDA_ERROR_INVALID_PTX) == cudaErrorInvalidPtx);
  CHECK(cu_to_cuda_error(CUDA_ERROR_INVALID_IMAGE) == cudaErrorInvalidKernelImage);
  CHECK(cu_to_cuda_error(CUDA_ERROR_NOT_FOUND) == cudaErrorSymbolNotFound);
  CHECK(cu_to_cuda_error(CUDA_ERROR_INVALID_HANDLE) == cudaErrorInvalidResourceHandle);
  CHECK(cu_to_cuda_error(CUDA_ERROR_INVALID_CONTEXT) == cudaErrorDeviceUninitialized);
  CHECK(cu_to_cuda_error(CUDA_ERROR_LAUNCH_FAILED) == cudaErrorLaunchFailure);
  CHECK(cu_to_cuda_error(CUDA_ERROR_ILLEGAL_ADDRESS) == cudaErrorIllegalAddress);
  CHECK(cu_to_cuda_error(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) == cudaErrorLaunchOutOfResources);
  CHECK(cu_to_cuda_error(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE) == cudaErrorCooperativeLaunchTooLarge);
  CHECK(cu_to_cuda_error(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE) == cudaErrorSetOnActiveProcess);
  CHECK(cu_to_cuda_error(CUDA_ERROR_NOT_READY) == cudaErrorNotReady);
  CHECK(cu_to_cuda_error(CUDA_ERROR_STUB_LIBRARY) == cudaErrorStubLibrary);
}

TEST_CASE("driver results without a runtime counterpart become cudaErrorUnknown", "[cuda_backend]") {
  CHECK(cu_to_cuda_error(CUDA_ERROR_CONTEXT_ALREADY_CURRENT) == cudaErrorUnknown);
  CHECK(cu_to_cuda_error(CUDA_ERROR_KEY_ROTATION) == cudaErrorUnknown);
  CHECK(cu_to_cuda_error(CUDA_ERROR_UNKNOWN) == cudaErrorUnknown);
  CHECK(cu_to_cuda_error(static_cast<CUresult>(12345)) == cudaErrorUnknown);
}

TEST_CASE("every mapped result keeps the driver's number except the renamed ones", "[cuda_backend]") {
  // The runtime numbers its errors after the driver's; a mapping that breaks this (outside the
  // codes the runtime has no twin for) is a typo in the table.
  for (int code = 1; code < 1000; ++code) {
    cudaError_t mapped = cu_to_cuda_error(static_cast<CUresult>(code));
    if (mapped == cudaErrorUnknown) continue;
    INFO("CUresult " << code);
    CHECK(static_cast<int>(mapped) == code);
  }
}

TEST_CASE("a kernel missing from its module is an invalid device function", "[cuda_backend]") {
  CHECK(cu_function_lookup_error(CUDA_ERROR_NOT_FOUND) == cudaErrorInvalidDeviceFunction);
  CHECK(cu_function_lookup_error(CUDA_ERROR_INVALID_HANDLE) == cudaErrorInvalidResourceHandle);
  CHECK(cu_function_lookup_error(CUDA_SUCCESS) == cudaSuccess);
}
