// The RNN calls that take legacy tensor descriptors (hDesc, cDesc; the weight matrices' mDesc and
// bDesc, which cuDNN fills): forward and backward are sent without waiting, weight parameters
// wait. RNN and RNN data descriptors travel as ids, tensor descriptors by content
// (legacy_call.h); server/session/cudnn_rnn_calls.cpp reads the arguments back in this order.
#include <cudnn.h>

#include "client/cudnn/legacy_call.h"
#include "gen/cudnn/cudnn_ids.h"

using rgpu::client::CallClass;
using rgpu::client::cudnn::LegacyCall;
namespace ids = rgpu::gen::cudnn;

extern "C" {  // exported by the shim's version script

// Reply: for each of mDesc, mAddr, bDesc, bAddr the caller passed, its record or address.
cudnnStatus_t cudnnGetRNNWeightParams(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int32_t pseudoLayer,
                                      size_t weightSpaceSize, const void* weightSpace, int32_t linLayerID,
                                      cudnnTensorDescriptor_t mDesc, void** mAddr, cudnnTensorDescriptor_t bDesc,
                                      void** bAddr) {
  LegacyCall call(ids::k_cudnnGetRNNWeightParams, CallClass::kSync);
  call.handle(handle).id(rnnDesc).value(pseudoLayer).value<uint64_t>(weightSpaceSize).device(weightSpace);
  call.value(linLayerID).value<uint8_t>(mDesc != nullptr).value<uint8_t>(mAddr != nullptr);
  call.value<uint8_t>(bDesc != nullptr).value<uint8_t>(bAddr != nullptr);
  cudnnStatus_t status = call.invoke();
  if (status != CUDNN_STATUS_SUCCESS) return status;
  if (!call.filled_tensor(mDesc, mAddr) || !call.filled_tensor(bDesc, bAddr)) return CUDNN_STATUS_INTERNAL_ERROR;
  return status;
}

cudnnStatus_t cudnnRNNForward(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnForwardMode_t fwdMode,
                              const int32_t devSeqLengths[], cudnnRNNDataDescriptor_t xDesc, const void* x,
                              cudnnRNNDataDescriptor_t yDesc, void* y, cudnnTensorDescriptor_t hDesc, const void* hx,
                              void* hy, cudnnTensorDescriptor_t cDesc, const void* cx, void* cy, size_t weightSpaceSize,
                              const void* weightSpace, size_t workSpaceSize, void* workSpace, size_t reserveSpaceSize,
                              void* reserveSpace) {
  LegacyCall call(ids::k_cudnnRNNForward, CallClass::kAsync);
  call.handle(handle).id(rnnDesc).value<int32_t>(fwdMode).device(devSeqLengths).id(xDesc).device(x).id(yDesc);
  call.device(y).tensor(hDesc).device(hx).device(hy).tensor(cDesc).device(cx).device(cy);
  call.value<uint64_t>(weightSpaceSize).device(weightSpace).value<uint64_t>(workSpaceSize).device(workSpace);
  call.value<uint64_t>(reserveSpaceSize).device(reserveSpace);
  return call.post();
}

cudnnStatus_t cudnnRNNBackwardData_v8(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                                      const int32_t devSeqLengths[], cudnnRNNDataDescriptor_t yDesc, const void* y,
                                      const void* dy, cudnnRNNDataDescriptor_t xDesc, void* dx,
                                      cudnnTensorDescriptor_t hDesc, const void* hx, const void* dhy, void* dhx,
                                      cudnnTensorDescriptor_t cDesc, const void* cx, const void* dcy, void* dcx,
                                      size_t weightSpaceSize, const void* weightSpace, size_t workSpaceSize,
                                      void* workSpace, size_t reserveSpaceSize, void* reserveSpace) {
  LegacyCall call(ids::k_cudnnRNNBackwardData_v8, CallClass::kAsync);
  call.handle(handle).id(rnnDesc).device(devSeqLengths).id(yDesc).device(y).device(dy).id(xDesc).device(dx);
  call.tensor(hDesc).device(hx).device(dhy).device(dhx).tensor(cDesc).device(cx).device(dcy).device(dcx);
  call.value<uint64_t>(weightSpaceSize).device(weightSpace).value<uint64_t>(workSpaceSize).device(workSpace);
  call.value<uint64_t>(reserveSpaceSize).device(reserveSpace);
  return call.post();
}

cudnnStatus_t cudnnRNNBackwardWeights_v8(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnWgradMode_t addGrad,
                                         const int32_t devSeqLengths[], cudnnRNNDataDescriptor_t xDesc, const void* x,
                                         cudnnTensorDescriptor_t hDesc, const void* hx, cudnnRNNDataDescriptor_t yDesc,
                                         const void* y, size_t weightSpaceSize, void* dweightSpace,
                                         size_t workSpaceSize, void* workSpace, size_t reserveSpaceSize,
                                         void* reserveSpace) {
  LegacyCall call(ids::k_cudnnRNNBackwardWeights_v8, CallClass::kAsync);
  call.handle(handle).id(rnnDesc).value<int32_t>(addGrad).device(devSeqLengths).id(xDesc).device(x);
  call.tensor(hDesc).device(hx).id(yDesc).device(y).value<uint64_t>(weightSpaceSize).device(dweightSpace);
  call.value<uint64_t>(workSpaceSize).device(workSpace).value<uint64_t>(reserveSpaceSize).device(reserveSpace);
  return call.post();
}

}  // extern "C"
