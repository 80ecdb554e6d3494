// The dropout calls that take legacy tensor descriptors: the reserve-space size (it depends only
// on the tensor: asked once per distinct one, LegacyCall::invoke_cached), forward and backward
// (sent without waiting). The dropout descriptor travels as its id; its setters and destroyer are
// the generated forwarders plus a mirror of the probability set, which an RNN's cached size
// answers are keyed by (rnn_settings.h).
#include <cudnn.h>

#include "client/cudnn/descriptor_mirror.h"
#include "client/cudnn/legacy_call.h"
#include "client/cudnn/rnn_settings.h"
#include "gen/cudnn/cudnn_ids.h"
#include "gen/cudnn/cudnn_remote.h"

using rgpu::client::CallClass;
using rgpu::client::cudnn::LegacyCall;
namespace ids = rgpu::gen::cudnn;
namespace remote = rgpu::gen::cudnn::remote;

namespace {

auto& probabilities() { return rgpu::client::cudnn::mirror_of<cudnnDropoutDescriptor_t, float>(); }

// What a setter (Set or Restore) posted: the probability is mirrored once the call is on its way.
cudnnStatus_t mirrored(cudnnDropoutDescriptor_t d, float dropout, cudnnStatus_t posted) {
  if (posted == CUDNN_STATUS_SUCCESS)
    probabilities().store(d, dropout);
  else
    probabilities().erase(d);
  return posted;
}

}  // namespace

bool rgpu::client::cudnn::find_dropout_probability(cudnnDropoutDescriptor_t d, float* out) {
  return probabilities().find(d, out);
}

extern "C" {  // exported by the shim's version script

cudnnStatus_t cudnnSetDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc, cudnnHandle_t handle, float dropout,
                                        void* states, size_t stateSizeInBytes, unsigned long long seed) {
  return mirrored(dropoutDesc, dropout,
                  remote::cudnnSetDropoutDescriptor(dropoutDesc, handle, dropout, states, stateSizeInBytes, seed));
}

cudnnStatus_t cudnnRestoreDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc, cudnnHandle_t handle, float dropout,
                                            void* states, size_t stateSizeInBytes, unsigned long long seed) {
  return mirrored(dropoutDesc, dropout,
                  remote::cudnnRestoreDropoutDescriptor(dropoutDesc, handle, dropout, states, stateSizeInBytes, seed));
}

cudnnStatus_t cudnnDestroyDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc) {
  probabilities().erase(dropoutDesc);
  return remote::cudnnDestroyDropoutDescriptor(dropoutDesc);
}

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
