// cuDNN handles on the client: creation and destruction (client-chosen ids, sent without waiting),
// cudnnSetStream (mirrored, sent only when the stream changes: PyTorch sets it before every call)
// and cudnnGetStream (answered from the mirror).
#include <cudnn.h>

#include <mutex>
#include <unordered_map>

#include "gen/cudnn/cudnn_remote.h"

namespace remote = rgpu::gen::cudnn::remote;

namespace {

struct Mirror {
  std::mutex mu;
  std::unordered_map<cudnnHandle_t, cudaStream_t> streams;
};

Mirror& mirror() {
  static Mirror* m = new Mirror;  // never destroyed: calls may come from other libraries' exit handlers
  return *m;
}

}  // namespace

extern "C" {  // exported by the shim's version script

cudnnStatus_t cudnnCreate(cudnnHandle_t* handle) {
  if (!handle) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  cudnnStatus_t status = remote::cudnnCreate(handle);
  if (status != CUDNN_STATUS_SUCCESS) return status;
  std::lock_guard lock(mirror().mu);
  mirror().streams[*handle] = nullptr;
  return status;
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  {
    std::lock_guard lock(mirror().mu);
    if (mirror().streams.erase(handle) == 0) return CUDNN_STATUS_BAD_PARAM;
  }
  return remote::cudnnDestroy(handle);
}

cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t streamId) {
  {
    std::lock_guard lock(mirror().mu);
    auto it = mirror().streams.find(handle);
    if (it == mirror().streams.end()) return CUDNN_STATUS_BAD_PARAM;
    if (it->second == streamId) return CUDNN_STATUS_SUCCESS;  // already set: nothing to tell the server
    it->second = streamId;
  }
  return remote::cudnnSetStream(handle, streamId);
}

cudnnStatus_t cudnnGetStream(cudnnHandle_t handle, cudaStream_t* streamId) {
  if (!streamId) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  std::lock_guard lock(mirror().mu);
  auto it = mirror().streams.find(handle);
  if (it == mirror().streams.end()) return CUDNN_STATUS_BAD_PARAM;
  *streamId = it->second;
  return CUDNN_STATUS_SUCCESS;
}

}  // extern "C"
