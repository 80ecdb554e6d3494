// The dropout calls that take legacy tensor descriptors: the reserve-space size (it depends only
// on the tensor: asked once per distinct one, LegacyCall::invoke_cached), forward and backward
// (sent without waiting). The dropout descriptor travels as its id; its setters are generated.
#include <cudnn.h>

#include "client/cudnn/legacy_call.h"
#include "gen/cudnn/cudnn_ids.h"

using rgpu::client::CallClass;
using rgpu::client::cudnn::LegacyCall;
namespace ids = rgpu::gen::cudnn;

extern "C" {  // exported by the shim's version script

cudnnStatus_t cudnnDropoutGetReserveSpaceSize(cudnnTensorDescriptor_t xdesc, size_t* sizeInBytes) {
  if (!sizeInBytes) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  LegacyCall call(ids::k_cudnnDropoutGetReserveSpaceSize, CallClass::kSync);
  call.tensor(xdesc);
  return call.size_reply(sizeInBytes, true);
}

cudnnStatus_t cudnnDropoutForward(cudnnHandle_t handle, const cudnnDropoutDescriptor_t dropoutDesc,
                                  const cudnnTensorDescriptor_t xdesc, const void* x,
                                  const cudnnTensorDescriptor_t ydesc, void* y, void* reserveSpace,
                                  size_t reserveSpaceSizeInBytes) {
  LegacyCall call(ids::k_cudnnDropoutForward, CallClass::kAsync);
  call.handle(handle).id(dropoutDesc).tensor(xdesc).device(x).tensor(ydesc).device(y).device(reserveSpace);
  call.value<uint64_t>(reserveSpaceSizeInBytes);
  return call.post();
}

cudnnStatus_t cudnnDropoutBackward(cudnnHandle_t handle, const cudnnDropoutDescriptor_t dropoutDesc,
                                   const cudnnTensorDescriptor_t dydesc, const void* dy,
                                   const cudnnTensorDescriptor_t dxdesc, void* dx, void* reserveSpace,
                                   size_t reserveSpaceSizeInBytes) {
  LegacyCall call(ids::k_cudnnDropoutBackward, CallClass::kAsync);
  call.handle(handle).id(dropoutDesc).tensor(dydesc).device(dy).tensor(dxdesc).device(dx).device(reserveSpace);
  call.value<uint64_t>(reserveSpaceSizeInBytes);
  return call.post();
}

}  // extern "C"
