// The legacy ops' queries: normalization workspace and reserve sizes wait once per distinct
// question (they depend only on their arguments, descriptors by content); reduction sizes and
// pooling output dimensions read an op descriptor that lives on the server (its id says nothing
// of what was set in it since), so they wait every time. Replies: sizes as u64, dimensions as
// i32s. server/session/cudnn_legacy_ops_queries.cpp answers them.
#include <cudnn.h>

#include "client/cudnn/legacy_call.h"
#include "common/wire/cudnn_args.h"
#include "gen/cudnn/cudnn_ids.h"

using rgpu::client::CallClass;
using rgpu::client::cudnn::LegacyCall;
namespace ids = rgpu::gen::cudnn;

namespace {

// A reduction size query: handle, the reduction, input and output.
cudnnStatus_t reduction_size(uint32_t id, cudnnHandle_t handle, cudnnReduceTensorDescriptor_t reduce,
                             cudnnTensorDescriptor_t a, cudnnTensorDescriptor_t c, size_t* size) {
  if (!size) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  LegacyCall call(id, CallClass::kSync);
  call.handle(handle).object(reduce).tensor(a).tensor(c);
  return call.answer<uint64_t>(false, size);
}

}  // namespace

extern "C" {  // exported by the shim's version script

cudnnStatus_t cudnnGetPooling2dForwardOutputDim(const cudnnPoolingDescriptor_t poolingDesc,
                                                const cudnnTensorDescriptor_t inputTensorDesc, int* n, int* c, int* h,
                                                int* w) {
  if (!n || !c || !h || !w) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  LegacyCall call(ids::k_cudnnGetPooling2dForwardOutputDim, CallClass::kSync);
  call.object(poolingDesc).tensor(inputTensorDesc);
  int dims[4];
  cudnnStatus_t status = call.answer<int32_t>(false, dims, 4);
  if (status != CUDNN_STATUS_SUCCESS) return status;
  *n = dims[0], *c = dims[1], *h = dims[2], *w = dims[3];
  return status;
}

cudnnStatus_t cudnnGetPoolingNdForwardOutputDim(const cudnnPoolingDescriptor_t poolingDesc,
                                                const cudnnTensorDescriptor_t inputTensorDesc, int nbDims,
                                                int outputTensorDimA[]) {
  if (!outputTensorDimA) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (nbDims < 1 || nbDims > rgpu::wire::cudnn::kMaxDims) return CUDNN_STATUS_BAD_PARAM;
  LegacyCall call(ids::k_cudnnGetPoolingNdForwardOutputDim, CallClass::kSync);
  call.object(poolingDesc).tensor(inputTensorDesc).value<int32_t>(nbDims);
  return call.answer<int32_t>(false, outputTensorDimA, nbDims);
}

cudnnStatus_t cudnnGetReductionIndicesSize(cudnnHandle_t handle, const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                           const cudnnTensorDescriptor_t aDesc, const cudnnTensorDescriptor_t cDesc,
                                           size_t* sizeInBytes) {
  return reduction_size(ids::k_cudnnGetReductionIndicesSize, handle, reduceTensorDesc, aDesc, cDesc, sizeInBytes);
}

cudnnStatus_t cudnnGetReductionWorkspaceSize(cudnnHandle_t handle,
                                             const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                             const cudnnTensorDescriptor_t aDesc, const cudnnTensorDescriptor_t cDesc,
                                             size_t* sizeInBytes) {
  return reduction_size(ids::k_cudnnGetReductionWorkspaceSize, handle, reduceTensorDesc, aDesc, cDesc, sizeInBytes);
}

cudnnStatus_t cudnnGetNormalizationForwardTrainingWorkspaceSize(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t zDesc, const cudnnTensorDescriptor_t yDesc,
    const cudnnTensorDescriptor_t normScaleBiasDesc, const cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t normMeanVarDesc, size_t* sizeInBytes, int groupCnt) {
  if (!sizeInBytes) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  LegacyCall call(ids::k_cudnnGetNormalizationForwardTrainingWorkspaceSize, CallClass::kSync);
  call.handle(handle).value<int32_t>(mode).value<int32_t>(normOps).value<int32_t>(algo).tensor(xDesc).tensor(zDesc);
  call.tensor(yDesc).tensor(normScaleBiasDesc).activation(activationDesc).tensor(normMeanVarDesc);
  call.value<int32_t>(groupCnt);
  return call.answer<uint64_t>(true, sizeInBytes);
}

cudnnStatus_t cudnnGetNormalizationBackwardWorkspaceSize(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t yDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnTensorDescriptor_t dzDesc, const cudnnTensorDescriptor_t dxDesc,
    const cudnnTensorDescriptor_t dNormScaleBiasDesc, const cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t normMeanVarDesc, size_t* sizeInBytes, int groupCnt) {
  if (!sizeInBytes) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  LegacyCall call(ids::k_cudnnGetNormalizationBackwardWorkspaceSize, CallClass::kSync);
  call.handle(handle).value<int32_t>(mode).value<int32_t>(normOps).value<int32_t>(algo).tensor(xDesc).tensor(yDesc);
  call.tensor(dyDesc).tensor(dzDesc).tensor(dxDesc).tensor(dNormScaleBiasDesc).activation(activationDesc);
  call.tensor(normMeanVarDesc).value<int32_t>(groupCnt);
  return call.answer<uint64_t>(true, sizeInBytes);
}

cudnnStatus_t cudnnGetNormalizationTrainingReserveSpaceSize(cudnnHandle_t handle, cudnnNormMode_t mode,
                                                            cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
                                                            const cudnnActivationDescriptor_t activationDesc,
                                                            const cudnnTensorDescriptor_t xDesc, size_t* sizeInBytes,
                                                            int groupCnt) {
  if (!sizeInBytes) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  LegacyCall call(ids::k_cudnnGetNormalizationTrainingReserveSpaceSize, CallClass::kSync);
  call.handle(handle).value<int32_t>(mode).value<int32_t>(normOps).value<int32_t>(algo).activation(activationDesc);
  call.tensor(xDesc).value<int32_t>(groupCnt);
  return call.answer<uint64_t>(true, sizeInBytes);
}

}  // extern "C"
