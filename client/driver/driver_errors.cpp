// cuGetErrorName and cuGetErrorString (local), and the runtime-to-driver status mapping.
#include "client/driver/driver_errors.h"

namespace rgpu::client::driver {

// Every CUresult of cuda.h (CUDA 13.0); a name the header lacks fails to compile.
#define RGPU_CU_RESULTS(X)                                                                                       \
  X(CUDA_SUCCESS) X(CUDA_ERROR_INVALID_VALUE) X(CUDA_ERROR_OUT_OF_MEMORY) X(CUDA_ERROR_NOT_INITIALIZED)          \
  X(CUDA_ERROR_DEINITIALIZED) X(CUDA_ERROR_PROFILER_DISABLED) X(CUDA_ERROR_PROFILER_NOT_INITIALIZED)             \
  X(CUDA_ERROR_PROFILER_ALREADY_STARTED) X(CUDA_ERROR_PROFILER_ALREADY_STOPPED) X(CUDA_ERROR_STUB_LIBRARY)       \
  X(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER) X(CUDA_ERROR_DEVICE_UNAVAILABLE) X(CUDA_ERROR_NO_DEVICE)              \
  X(CUDA_ERROR_INVALID_DEVICE) X(CUDA_ERROR_DEVICE_NOT_LICENSED) X(CUDA_ERROR_INVALID_IMAGE)                     \
  X(CUDA_ERROR_INVALID_CONTEXT) X(CUDA_ERROR_CONTEXT_ALREADY_CURRENT) X(CUDA_ERROR_MAP_FAILED)                   \
  X(CUDA_ERROR_UNMAP_FAILED) X(CUDA_ERROR_ARRAY_IS_MAPPED) X(CUDA_ERROR_ALREADY_MAPPED)                          \
  X(CUDA_ERROR_NO_BINARY_FOR_GPU) X(CUDA_ERROR_ALREADY_ACQUIRED) X(CUDA_ERROR_NOT_MAPPED)                        \
  X(CUDA_ERROR_NOT_MAPPED_AS_ARRAY) X(CUDA_ERROR_NOT_MAPPED_AS_POINTER) X(CUDA_ERROR_ECC_UNCORRECTABLE)          \
  X(CUDA_ERROR_UNSUPPORTED_LIMIT) X(CUDA_ERROR_CONTEXT_ALREADY_IN_USE) X(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED)      \
  X(CUDA_ERROR_INVALID_PTX) X(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT) X(CUDA_ERROR_NVLINK_UNCORRECTABLE)            \
  X(CUDA_ERROR_JIT_COMPILER_NOT_FOUND) X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION)                                     \
  X(CUDA_ERROR_JIT_COMPILATION_DISABLED) X(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY)                                 \
  X(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC) X(CUDA_ERROR_CONTAINED) X(CUDA_ERROR_INVALID_SOURCE)                    \
  X(CUDA_ERROR_FILE_NOT_FOUND) X(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND)                                      \
  X(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED) X(CUDA_ERROR_OPERATING_SYSTEM) X(CUDA_ERROR_INVALID_HANDLE)            \
  X(CUDA_ERROR_ILLEGAL_STATE) X(CUDA_ERROR_LOSSY_QUERY) X(CUDA_ERROR_NOT_FOUND) X(CUDA_ERROR_NOT_READY)          \
  X(CUDA_ERROR_ILLEGAL_ADDRESS) X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) X(CUDA_ERROR_LAUNCH_TIMEOUT)               \
  X(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING) X(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)                           \
  X(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED) X(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE) X(CUDA_ERROR_CONTEXT_IS_DESTROYED)   \
  X(CUDA_ERROR_ASSERT) X(CUDA_ERROR_TOO_MANY_PEERS) X(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)                 \
  X(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED) X(CUDA_ERROR_HARDWARE_STACK_ERROR) X(CUDA_ERROR_ILLEGAL_INSTRUCTION)  \
  X(CUDA_ERROR_MISALIGNED_ADDRESS) X(CUDA_ERROR_INVALID_ADDRESS_SPACE) X(CUDA_ERROR_INVALID_PC)                  \
  X(CUDA_ERROR_LAUNCH_FAILED) X(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE) X(CUDA_ERROR_TENSOR_MEMORY_LEAK)        \
  X(CUDA_ERROR_NOT_PERMITTED) X(CUDA_ERROR_NOT_SUPPORTED) X(CUDA_ERROR_SYSTEM_NOT_READY)                         \
  X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH) X(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)                              \
  X(CUDA_ERROR_MPS_CONNECTION_FAILED) X(CUDA_ERROR_MPS_RPC_FAILURE) X(CUDA_ERROR_MPS_SERVER_NOT_READY)           \
  X(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED) X(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED)                                \
  X(CUDA_ERROR_MPS_CLIENT_TERMINATED) X(CUDA_ERROR_CDP_NOT_SUPPORTED) X(CUDA_ERROR_CDP_VERSION_MISMATCH)         \
  X(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED) X(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)                              \
  X(CUDA_ERROR_STREAM_CAPTURE_MERGE) X(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED)                                      \
  X(CUDA_ERROR_STREAM_CAPTURE_UNJOINED) X(CUDA_ERROR_STREAM_CAPTURE_ISOLATION)                                   \
  X(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT) X(CUDA_ERROR_CAPTURED_EVENT) X(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD)   \
  X(CUDA_ERROR_TIMEOUT) X(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE) X(CUDA_ERROR_EXTERNAL_DEVICE)                    \
  X(CUDA_ERROR_INVALID_CLUSTER_SIZE) X(CUDA_ERROR_FUNCTION_NOT_LOADED) X(CUDA_ERROR_INVALID_RESOURCE_TYPE)       \
  X(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION) X(CUDA_ERROR_KEY_ROTATION) X(CUDA_ERROR_UNKNOWN)

const char* cu_name(CUresult e) {
  switch (e) {
#define RGPU_CU_NAME(x) \
  case x:               \
    return #x;
    RGPU_CU_RESULTS(RGPU_CU_NAME)
#undef RGPU_CU_NAME
  }
  return nullptr;
}

CUresult to_cu(cudaError_t e) {
  switch (e) {
    // Runtime-only codes (the runtime checks more itself): the driver's answer to the same mistake.
    case cudaErrorInvalidConfiguration:
    case cudaErrorInvalidPitchValue:
    case cudaErrorInvalidSymbol:
    case cudaErrorInvalidHostPointer:
    case cudaErrorInvalidDevicePointer:
    case cudaErrorInvalidMemcpyDirection:
    case cudaErrorMissingConfiguration:
      return CUDA_ERROR_INVALID_VALUE;
    case cudaErrorInvalidDeviceFunction:
      return CUDA_ERROR_INVALID_HANDLE;
    case cudaErrorInsufficientDriver:
      return CUDA_ERROR_SYSTEM_DRIVER_MISMATCH;
    default:
      break;
  }
  auto cu = static_cast<CUresult>(e);
  return cu_name(cu) ? cu : CUDA_ERROR_UNKNOWN;
}

}  // namespace rgpu::client::driver

extern "C" CUresult cuGetErrorName(CUresult error, const char** pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  *pStr = rgpu::client::driver::cu_name(error);
  return *pStr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// The text is the runtime's for the same number (CUDA words the shared errors alike): fetched
// once per code from the server's runtime, as cudaGetErrorString does.
extern "C" CUresult cuGetErrorString(CUresult error, const char** pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  if (!rgpu::client::driver::cu_name(error)) {
    *pStr = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
  }
  *pStr = cudaGetErrorString(static_cast<cudaError_t>(error));
  return CUDA_SUCCESS;
}
