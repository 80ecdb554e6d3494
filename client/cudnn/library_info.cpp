// What cuDNN says about itself, answered locally: its version is the server's (asked once per
// process: PyTorch refuses a runtime older than the cuDNN it was built against, so the shim must
// not claim its own headers' version), the CUDA runtime version and status names are the
// headers', and the sub-library version checks succeed (the sub-libraries live on the server,
// whose cuDNN the session loads).
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <library_types.h>

#include "gen/cudnn/cudnn_remote.h"

namespace {

struct Version {
  int major = CUDNN_MAJOR, minor = CUDNN_MINOR, patch = CUDNN_PATCHLEVEL;
};

// The server's cuDNN version; the headers' when there is no server (or it has no cuDNN).
const Version& server_version() {
  static const Version version = [] {
    namespace remote = rgpu::gen::cudnn::remote;
    Version v, asked;
    if (remote::cudnnGetProperty(MAJOR_VERSION, &asked.major) == CUDNN_STATUS_SUCCESS &&
        remote::cudnnGetProperty(MINOR_VERSION, &asked.minor) == CUDNN_STATUS_SUCCESS &&
        remote::cudnnGetProperty(PATCH_LEVEL, &asked.patch) == CUDNN_STATUS_SUCCESS)
      v = asked;
    return v;
  }();
  return version;
}

}  // namespace


extern "C" {  // exported by the shim's version script

size_t cudnnGetVersion(void) {
  const Version& v = server_version();
  return static_cast<size_t>(v.major * 10000 + v.minor * 100 + v.patch);  // CUDNN_VERSION's formula
}

size_t cudnnGetMaxDeviceVersion(void) { return CUDNN_MAX_DEVICE_VERSION; }

size_t cudnnGetCudartVersion(void) { return CUDART_VERSION; }

const char* cudnnGetErrorString(cudnnStatus_t status) {
  switch (status) {
#define RGPU_CUDNN_STATUS(name) \
  case name:                    \
    return #name;
    RGPU_CUDNN_STATUS(CUDNN_STATUS_SUCCESS)
    RGPU_CUDNN_STATUS(CUDNN_STATUS_NOT_INITIALIZED)
    RGPU_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM)
    RGPU_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_NULL_POINTER)
    RGPU_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER)
    RGPU_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED)
    RGPU_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND)
    RGPU_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT)
    RGPU_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH)
    RGPU_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE)
    RGPU_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE)
    RGPU_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED)
    RGPU_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN)
    RGPU_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_SHAPE)
    RGPU_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE)
    RGPU_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT)
    RGPU_CUDNN_STATUS(CUDNN_STATUS_INTERNAL_ERROR)
    RGPU_CUDNN_STATUS(CUDNN_STATUS_EXECUTION_FAILED)
#undef RGPU_CUDNN_STATUS
    default:
      return "CUDNN_STATUS_UNKNOWN";
  }
}

// Errors of calls that ran on the server come back as statuses (or, for calls sent without
// waiting, in rgpu's log); no message is kept here.
void cudnnGetLastErrorString(char* message, size_t max_size) {
  if (message && max_size) message[0] = '\0';
}

cudnnStatus_t cudnnGetProperty(libraryPropertyType type, int* value) {
  if (!value) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  switch (type) {
    case MAJOR_VERSION: *value = server_version().major; return CUDNN_STATUS_SUCCESS;
    case MINOR_VERSION: *value = server_version().minor; return CUDNN_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = server_version().patch; return CUDNN_STATUS_SUCCESS;
  }
  return CUDNN_STATUS_BAD_PARAM;
}

cudnnStatus_t cudnnGraphVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t cudnnOpsVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t cudnnCnnVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t cudnnAdvVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }

}  // extern "C"
