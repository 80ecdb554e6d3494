// cudnnQueryRuntimeError: waits for the server's answer (in BLOCKING mode, cuDNN there waits for
// the handle's work first). The reserved tag must be null (cuDNN's rule); another is refused.
#include <cudnn.h>

#include "client/cudnn/legacy_call.h"
#include "gen/cudnn/cudnn_ids.h"

extern "C" {  // exported by the shim's version script

cudnnStatus_t cudnnQueryRuntimeError(cudnnHandle_t handle, cudnnStatus_t* rstatus, cudnnErrQueryMode_t mode,
                                     cudnnRuntimeTag_t* tag) {
  if (!rstatus) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (tag) return CUDNN_STATUS_NOT_SUPPORTED;
  rgpu::client::cudnn::LegacyCall call(rgpu::gen::cudnn::k_cudnnQueryRuntimeError, rgpu::client::CallClass::kSync);
  call.handle(handle).value<int32_t>(mode);
  return call.answer<int32_t>(false, rstatus);
}

}  // extern "C"
