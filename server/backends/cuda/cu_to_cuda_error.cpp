// The CUresult -> cudaError_t table. Most runtime codes share the driver code's number, but the
// table is explicit so that a driver code the runtime lacks maps to cudaErrorUnknown rather than
// to a number the client cannot name.
#include "server/backends/cuda/cu_to_cuda_error.h"

namespace rgpu::server::cuda {

cudaError_t cu_to_cuda_error(CUresult result) {
  switch (result) {
    case CUDA_SUCCESS: return cudaSuccess;
    case CUDA_ERROR_INVALID_VALUE: return cudaErrorInvalidValue;
    case CUDA_ERROR_OUT_OF_MEMORY: return cudaErrorMemoryAllocation;
    case CUDA_ERROR_NOT_INITIALIZED: return cudaErrorInitializationError;
    case CUDA_ERROR_DEINITIALIZED: return cudaErrorCudartUnloading;
    case CUDA_ERROR_PROFILER_DISABLED: return cudaErrorProfilerDisabled;
    case CUDA_ERROR_PROFILER_NOT_INITIALIZED: return cudaErrorProfilerNotInitialized;
    case CUDA_ERROR_PROFILER_ALREADY_STARTED: return cudaErrorProfilerAlreadyStarted;
    case CUDA_ERROR_PROFILER_ALREADY_STOPPED: return cudaErrorProfilerAlreadyStopped;
    case CUDA_ERROR_STUB_LIBRARY: return cudaErrorStubLibrary;
    case CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER: return cudaErrorCallRequiresNewerDriver;
    case CUDA_ERROR_DEVICE_UNAVAILABLE: return cudaErrorDevicesUnavailable;
    case CUDA_ERROR_NO_DEVICE: return cudaErrorNoDevice;
    case CUDA_ERROR_INVALID_DEVICE: return cudaErrorInvalidDevice;
    case CUDA_ERROR_DEVICE_NOT_LICENSED: return cudaErrorDeviceNotLicensed;
    case CUDA_ERROR_INVALID_IMAGE: return cudaErrorInvalidKernelImage;
    case CUDA_ERROR_INVALID_CONTEXT: return cudaErrorDeviceUninitialized;
    case CUDA_ERROR_MAP_FAILED: return cudaErrorMapBufferObjectFailed;
    case CUDA_ERROR_UNMAP_FAILED: return cudaErrorUnmapBufferObjectFailed;
    case CUDA_ERROR_ARRAY_IS_MAPPED: return cudaErrorArrayIsMapped;
    case CUDA_ERROR_ALREADY_MAPPED: return cudaErrorAlreadyMapped;
    case CUDA_ERROR_NO_BINARY_FOR_GPU: return cudaErrorNoKernelImageForDevice;
    case CUDA_ERROR_ALREADY_ACQUIRED: return cudaErrorAlreadyAcquired;
    case CUDA_ERROR_NOT_MAPPED: return cudaErrorNotMapped;
    case CUDA_ERROR_NOT_MAPPED_AS_ARRAY: return cudaErrorNotMappedAsArray;
    case CUDA_ERROR_NOT_MAPPED_AS_POINTER: return cudaErrorNotMappedAsPointer;
    case CUDA_ERROR_ECC_UNCORRECTABLE: return cudaErrorECCUncorrectable;
    case CUDA_ERROR_UNSUPPORTED_LIMIT: return cudaErrorUnsupportedLimit;
    case CUDA_ERROR_CONTEXT_ALREADY_IN_USE: return cudaErrorDeviceAlreadyInUse;
    case CUDA_ERROR_PEER_ACCESS_UNSUPPORTED: return cudaErrorPeerAccessUnsupported;
    case CUDA_ERROR_INVALID_PTX: return cudaErrorInvalidPtx;
    case CUDA_ERROR_INVALID_GRAPHICS_CONTEXT: return cudaErrorInvalidGraphicsContext;
    case CUDA_ERROR_NVLINK_UNCORRECTABLE: return cudaErrorNvlinkUncorrectable;
    case CUDA_ERROR_JIT_COMPILER_NOT_FOUND: return cudaErrorJitCompilerNotFound;
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION: return cudaErrorUnsupportedPtxVersion;
    case CUDA_ERROR_JIT_COMPILATION_DISABLED: return cudaErrorJitCompilationDisabled;
    case CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY: return cudaErrorUnsupportedExecAffinity;
    case CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC: return cudaErrorUnsupportedDevSideSync;
    case CUDA_ERROR_CONTAINED: return cudaErrorContained;
    case CUDA_ERROR_INVALID_SOURCE: return cudaErrorInvalidSource;
    case CUDA_ERROR_FILE_NOT_FOUND: return cudaErrorFileNotFound;
    case CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND: return cudaErrorSharedObjectSymbolNotFound;
    case CUDA_ERROR_SHARED_OBJECT_INIT_FAILED: return cudaErrorSharedObjectInitFailed;
    case CUDA_ERROR_OPERATING_SYSTEM: return cudaErrorOperatingSystem;
    case CUDA_ERROR_INVALID_HANDLE: return cudaErrorInvalidResourceHandle;
    case CUDA_ERROR_ILLEGAL_STATE: return cudaErrorIllegalState;
    case CUDA_ERROR_LOSSY_QUERY: return cudaErrorLossyQuery;
    case CUDA_ERROR_NOT_FOUND: return cudaErrorSymbolNotFound;
    case CUDA_ERROR_NOT_READY: return cudaErrorNotReady;
    case CUDA_ERROR_ILLEGAL_ADDRESS: return cudaErrorIllegalAddress;
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: return cudaErrorLaunchOutOfResources;
    case CUDA_ERROR_LAUNCH_TIMEOUT: return cudaErrorLaunchTimeout;
    case CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING: return cudaErrorLaunchIncompatibleTexturing;
    case CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED: return cudaErrorPeerAccessAlreadyEnabled;
    case CUDA_ERROR_PEER_ACCESS_NOT_ENABLED: return cudaErrorPeerAccessNotEnabled;
    case CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE: return cudaErrorSetOnActiveProcess;
    case CUDA_ERROR_CONTEXT_IS_DESTROYED: return cudaErrorContextIsDestroyed;
    case CUDA_ERROR_ASSERT: return cudaErrorAssert;
    case CUDA_ERROR_TOO_MANY_PEERS: return cudaErrorTooManyPeers;
    case CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED: return cudaErrorHostMemoryAlreadyRegistered;
    case CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED: return cudaErrorHostMemoryNotRegistered;
    case CUDA_ERROR_HARDWARE_STACK_ERROR: return cudaErrorHardwareStackError;
    case CUDA_ERROR_ILLEGAL_INSTRUCTION: return cudaErrorIllegalInstruction;
    case CUDA_ERROR_MISALIGNED_ADDRESS: return cudaErrorMisalignedAddress;
    case CUDA_ERROR_INVALID_ADDRESS_SPACE: return cudaErrorInvalidAddressSpace;
    case CUDA_ERROR_INVALID_PC: return cudaErrorInvalidPc;
    case CUDA_ERROR_LAUNCH_FAILED: return cudaErrorLaunchFailure;
    case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE: return cudaErrorCooperativeLaunchTooLarge;
    case CUDA_ERROR_TENSOR_MEMORY_LEAK: return cudaErrorTensorMemoryLeak;
    case CUDA_ERROR_NOT_PERMITTED: return cudaErrorNotPermitted;
    case CUDA_ERROR_NOT_SUPPORTED: return cudaErrorNotSupported;
    case CUDA_ERROR_SYSTEM_NOT_READY: return cudaErrorSystemNotReady;
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: return cudaErrorSystemDriverMismatch;
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: return cudaErrorCompatNotSupportedOnDevice;
    case CUDA_ERROR_MPS_CONNECTION_FAILED: return cudaErrorMpsConnectionFailed;
    case CUDA_ERROR_MPS_RPC_FAILURE: return cudaErrorMpsRpcFailure;
    case CUDA_ERROR_MPS_SERVER_NOT_READY: return cudaErrorMpsServerNotReady;
    case CUDA_ERROR_MPS_MAX_CLIENTS_REACHED: return cudaErrorMpsMaxClientsReached;
    case CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED: return cudaErrorMpsMaxConnectionsReached;
    case CUDA_ERROR_MPS_CLIENT_TERMINATED: return cudaErrorMpsClientTerminated;
    case CUDA_ERROR_CDP_NOT_SUPPORTED: return cudaErrorCdpNotSupported;
    case CUDA_ERROR_CDP_VERSION_MISMATCH: return cudaErrorCdpVersionMismatch;
    case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: return cudaErrorStreamCaptureUnsupported;
    case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED: return cudaErrorStreamCaptureInvalidated;
    case CUDA_ERROR_STREAM_CAPTURE_MERGE: return cudaErrorStreamCaptureMerge;
    case CUDA_ERROR_STREAM_CAPTURE_UNMATCHED: return cudaErrorStreamCaptureUnmatched;
    case CUDA_ERROR_STREAM_CAPTURE_UNJOINED: return cudaErrorStreamCaptureUnjoined;
    case CUDA_ERROR_STREAM_CAPTURE_ISOLATION: return cudaErrorStreamCaptureIsolation;
    case CUDA_ERROR_STREAM_CAPTURE_IMPLICIT: return cudaErrorStreamCaptureImplicit;
    case CUDA_ERROR_CAPTURED_EVENT: return cudaErrorCapturedEvent;
    case CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD: return cudaErrorStreamCaptureWrongThread;
    case CUDA_ERROR_TIMEOUT: return cudaErrorTimeout;
    case CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE: return cudaErrorGraphExecUpdateFailure;
    case CUDA_ERROR_EXTERNAL_DEVICE: return cudaErrorExternalDevice;
    case CUDA_ERROR_INVALID_CLUSTER_SIZE: return cudaErrorInvalidClusterSize;
    case CUDA_ERROR_FUNCTION_NOT_LOADED: return cudaErrorFunctionNotLoaded;
    case CUDA_ERROR_INVALID_RESOURCE_TYPE: return cudaErrorInvalidResourceType;
    case CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION: return cudaErrorInvalidResourceConfiguration;
    default: return cudaErrorUnknown;  // CONTEXT_ALREADY_CURRENT, KEY_ROTATION, UNKNOWN, future codes
  }
}

cudaError_t cu_function_lookup_error(CUresult result) {
  return result == CUDA_ERROR_NOT_FOUND ? cudaErrorInvalidDeviceFunction : cu_to_cuda_error(result);
}

}  // namespace rgpu::server::cuda
