// The legacy API's queries: workspace and reserve sizes, algorithm counts and heuristics wait for
// the server once per distinct question (LegacyCall::invoke_cached: they depend only on their
// arguments), Find* and Find*Ex, which measure, every time. Replies: a size as u64; an algorithm list as an
// i32 count and that many perf records.
#include <cudnn.h>

#include "client/cudnn/legacy_call.h"
#include "common/wire/cudnn_args.h"
#include "gen/cudnn/cudnn_ids.h"

using rgpu::client::CallClass;
using rgpu::client::cudnn::LegacyCall;
namespace ids = rgpu::gen::cudnn;

namespace {

// A size (u64) or count (i32) reply, sent as Wire, into *out.
template <typename Wire, typename T>
cudnnStatus_t value_reply(LegacyCall& call, T* out) {
  return call.answer<Wire>(true, out);
}

cudnnStatus_t size_reply(LegacyCall& call, size_t* out) { return value_reply<uint64_t>(call, out); }

cudnnStatus_t max_count(uint32_t id, cudnnHandle_t handle, int* count) {
  if (!count) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  LegacyCall call(id, CallClass::kSync);
  call.handle(handle);
  return value_reply<int32_t>(call, count);
}

// An algorithm list: at most `requested` perf records.
template <typename Perf>
cudnnStatus_t perf_reply(LegacyCall& call, bool cached, int requested, int* returned, Perf* results) {
  cudnnStatus_t status = cached ? call.invoke_cached() : call.invoke();
  if (status != CUDNN_STATUS_SUCCESS) return status;
  rgpu::wire::Decoder& d = call.results();
  int32_t n = d.get<int32_t>();
  if (!d.ok() || n < 0 || n > requested) return CUDNN_STATUS_INTERNAL_ERROR;
  for (int32_t i = 0; i < n; ++i) d.get_raw(&results[i], sizeof(Perf));
  if (!d.ok()) return CUDNN_STATUS_INTERNAL_ERROR;
  *returned = n;
  return status;
}

bool bad_request(int requested, const int* returned, const void* results) {
  return requested < 0 || requested > rgpu::wire::cudnn::kMaxAlgorithms || !returned || (requested && !results);
}

// Tensor and filter descriptors, for the algorithm lists whose directions order them differently.
LegacyCall& descriptor(LegacyCall& call, cudnnTensorDescriptor_t d) { return call.tensor(d); }
LegacyCall& descriptor(LegacyCall& call, cudnnFilterDescriptor_t d) { return call.filter(d); }

// The algorithm lists of one direction (heuristics: cached; Find: measured every time): the
// direction's two operands and result (each a tensor or a filter) around the convolution.
template <typename A, typename B, typename C, typename Perf>
cudnnStatus_t algorithms(uint32_t id, bool cached, cudnnHandle_t handle, A a, B b, cudnnConvolutionDescriptor_t conv,
                         C c, int requested, int* returned, Perf* perf) {
  if (bad_request(requested, returned, perf)) return CUDNN_STATUS_BAD_PARAM;
  LegacyCall call(id, CallClass::kSync);
  call.handle(handle);
  descriptor(call, a);
  descriptor(call, b);
  call.convolution(conv);
  descriptor(call, c);
  call.value<int32_t>(requested);
  return perf_reply(call, cached, requested, returned, perf);
}

}  // namespace

extern "C" {  // exported by the shim's version script

cudnnStatus_t cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t zDesc, const cudnnTensorDescriptor_t yDesc,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const cudnnActivationDescriptor_t activationDesc,
    size_t* sizeInBytes) {
  if (!sizeInBytes) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  LegacyCall call(ids::k_cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize, CallClass::kSync);
  call.handle(handle).value<int32_t>(mode).value<int32_t>(bnOps).tensor(xDesc).tensor(zDesc).tensor(yDesc);
  call.tensor(bnScaleBiasMeanVarDesc).activation(activationDesc);
  return size_reply(call, sizeInBytes);
}

cudnnStatus_t cudnnGetBatchNormalizationBackwardExWorkspaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t yDesc, const cudnnTensorDescriptor_t dyDesc, const cudnnTensorDescriptor_t dzDesc,
    const cudnnTensorDescriptor_t dxDesc, const cudnnTensorDescriptor_t dBnScaleBiasDesc,
    const cudnnActivationDescriptor_t activationDesc, size_t* sizeInBytes) {
  if (!sizeInBytes) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  LegacyCall call(ids::k_cudnnGetBatchNormalizationBackwardExWorkspaceSize, CallClass::kSync);
  call.handle(handle).value<int32_t>(mode).value<int32_t>(bnOps).tensor(xDesc).tensor(yDesc).tensor(dyDesc);
  call.tensor(dzDesc).tensor(dxDesc).tensor(dBnScaleBiasDesc).activation(activationDesc);
  return size_reply(call, sizeInBytes);
}

cudnnStatus_t cudnnGetBatchNormalizationTrainingExReserveSpaceSize(cudnnHandle_t handle, cudnnBatchNormMode_t mode,
                                                                   cudnnBatchNormOps_t bnOps,
                                                                   const cudnnActivationDescriptor_t activationDesc,
                                                                   const cudnnTensorDescriptor_t xDesc,
                                                                   size_t* sizeInBytes) {
  if (!sizeInBytes) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  LegacyCall call(ids::k_cudnnGetBatchNormalizationTrainingExReserveSpaceSize, CallClass::kSync);
  call.handle(handle).value<int32_t>(mode).value<int32_t>(bnOps).activation(activationDesc).tensor(xDesc);
  return size_reply(call, sizeInBytes);
}

cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                      const cudnnFilterDescriptor_t wDesc,
                                                      const cudnnConvolutionDescriptor_t convDesc,
                                                      const cudnnTensorDescriptor_t yDesc,
                                                      cudnnConvolutionFwdAlgo_t algo, size_t* sizeInBytes) {
  if (!sizeInBytes) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  LegacyCall call(ids::k_cudnnGetConvolutionForwardWorkspaceSize, CallClass::kSync);
  call.handle(handle).tensor(xDesc).filter(wDesc).convolution(convDesc).tensor(yDesc).value<int32_t>(algo);
  return size_reply(call, sizeInBytes);
}

cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
                                                           const cudnnTensorDescriptor_t dyDesc,
                                                           const cudnnConvolutionDescriptor_t convDesc,
                                                           const cudnnTensorDescriptor_t dxDesc,
                                                           cudnnConvolutionBwdDataAlgo_t algo, size_t* sizeInBytes) {
  if (!sizeInBytes) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  LegacyCall call(ids::k_cudnnGetConvolutionBackwardDataWorkspaceSize, CallClass::kSync);
  call.handle(handle).filter(wDesc).tensor(dyDesc).convolution(convDesc).tensor(dxDesc).value<int32_t>(algo);
  return size_reply(call, sizeInBytes);
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                             const cudnnTensorDescriptor_t dyDesc,
                                                             const cudnnConvolutionDescriptor_t convDesc,
                                                             const cudnnFilterDescriptor_t gradDesc,
                                                             cudnnConvolutionBwdFilterAlgo_t algo,
                                                             size_t* sizeInBytes) {
  if (!sizeInBytes) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  LegacyCall call(ids::k_cudnnGetConvolutionBackwardFilterWorkspaceSize, CallClass::kSync);
  call.handle(handle).tensor(xDesc).tensor(dyDesc).convolution(convDesc).filter(gradDesc).value<int32_t>(algo);
  return size_reply(call, sizeInBytes);
}

cudnnStatus_t cudnnGetConvolutionForwardAlgorithmMaxCount(cudnnHandle_t handle, int* count) {
  return max_count(ids::k_cudnnGetConvolutionForwardAlgorithmMaxCount, handle, count);
}

cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithmMaxCount(cudnnHandle_t handle, int* count) {
  return max_count(ids::k_cudnnGetConvolutionBackwardDataAlgorithmMaxCount, handle, count);
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(cudnnHandle_t handle, int* count) {
  return max_count(ids::k_cudnnGetConvolutionBackwardFilterAlgorithmMaxCount, handle, count);
}

cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc,
                                                     const cudnnFilterDescriptor_t filterDesc,
                                                     const cudnnConvolutionDescriptor_t convDesc,
                                                     const cudnnTensorDescriptor_t destDesc,
                                                     const int requestedAlgoCount, int* returnedAlgoCount,
                                                     cudnnConvolutionFwdAlgoPerf_t* perfResults) {
  return algorithms(ids::k_cudnnGetConvolutionForwardAlgorithm_v7, true, handle, srcDesc, filterDesc, convDesc,
                    destDesc, requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnFindConvolutionForwardAlgorithm(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                   const cudnnFilterDescriptor_t wDesc,
                                                   const cudnnConvolutionDescriptor_t convDesc,
                                                   const cudnnTensorDescriptor_t yDesc, const int requestedAlgoCount,
                                                   int* returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t* perfResults) {
  return algorithms(ids::k_cudnnFindConvolutionForwardAlgorithm, false, handle, xDesc, wDesc, convDesc, yDesc,
                    requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc, const cudnnTensorDescriptor_t diffDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t gradDesc, const int requestedAlgoCount,
    int* returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t* perfResults) {
  return algorithms(ids::k_cudnnGetConvolutionBackwardDataAlgorithm_v7, true, handle, filterDesc, diffDesc, convDesc,
                    gradDesc, requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithm(cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
                                                        const cudnnTensorDescriptor_t dyDesc,
                                                        const cudnnConvolutionDescriptor_t convDesc,
                                                        const cudnnTensorDescriptor_t dxDesc,
                                                        const int requestedAlgoCount, int* returnedAlgoCount,
                                                        cudnnConvolutionBwdDataAlgoPerf_t* perfResults) {
  return algorithms(ids::k_cudnnFindConvolutionBackwardDataAlgorithm, false, handle, wDesc, dyDesc, convDesc, dxDesc,
                    requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc,
                                                            const cudnnTensorDescriptor_t diffDesc,
                                                            const cudnnConvolutionDescriptor_t convDesc,
                                                            const cudnnFilterDescriptor_t gradDesc,
                                                            const int requestedAlgoCount, int* returnedAlgoCount,
                                                            cudnnConvolutionBwdFilterAlgoPerf_t* perfResults) {
  return algorithms(ids::k_cudnnGetConvolutionBackwardFilterAlgorithm_v7, true, handle, srcDesc, diffDesc, convDesc,
                    gradDesc, requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithm(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                          const cudnnTensorDescriptor_t dyDesc,
                                                          const cudnnConvolutionDescriptor_t convDesc,
                                                          const cudnnFilterDescriptor_t dwDesc,
                                                          const int requestedAlgoCount, int* returnedAlgoCount,
                                                          cudnnConvolutionBwdFilterAlgoPerf_t* perfResults) {
  return algorithms(ids::k_cudnnFindConvolutionBackwardFilterAlgorithm, false, handle, xDesc, dyDesc, convDesc, dwDesc,
                    requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                     const void* x, const cudnnFilterDescriptor_t wDesc, const void* w,
                                                     const cudnnConvolutionDescriptor_t convDesc,
                                                     const cudnnTensorDescriptor_t yDesc, void* y,
                                                     const int requestedAlgoCount, int* returnedAlgoCount,
                                                     cudnnConvolutionFwdAlgoPerf_t* perfResults, void* workSpace,
                                                     size_t workSpaceSizeInBytes) {
  if (bad_request(requestedAlgoCount, returnedAlgoCount, perfResults)) return CUDNN_STATUS_BAD_PARAM;
  LegacyCall call(ids::k_cudnnFindConvolutionForwardAlgorithmEx, CallClass::kSync);
  call.handle(handle).tensor(xDesc).device(x).filter(wDesc).device(w).convolution(convDesc).tensor(yDesc).device(y);
  call.value<int32_t>(requestedAlgoCount).device(workSpace).value<uint64_t>(workSpaceSizeInBytes);
  return perf_reply(call, false, requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
                                                          const void* w, const cudnnTensorDescriptor_t dyDesc,
                                                          const void* dy, const cudnnConvolutionDescriptor_t convDesc,
                                                          const cudnnTensorDescriptor_t dxDesc, void* dx,
                                                          const int requestedAlgoCount, int* returnedAlgoCount,
                                                          cudnnConvolutionBwdDataAlgoPerf_t* perfResults,
                                                          void* workSpace, size_t workSpaceSizeInBytes) {
  if (bad_request(requestedAlgoCount, returnedAlgoCount, perfResults)) return CUDNN_STATUS_BAD_PARAM;
  LegacyCall call(ids::k_cudnnFindConvolutionBackwardDataAlgorithmEx, CallClass::kSync);
  call.handle(handle).filter(wDesc).device(w).tensor(dyDesc).device(dy).convolution(convDesc).tensor(dxDesc);
  call.device(dx).value<int32_t>(requestedAlgoCount).device(workSpace).value<uint64_t>(workSpaceSizeInBytes);
  return perf_reply(call, false, requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithmEx(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                            const void* x, const cudnnTensorDescriptor_t dyDesc,
                                                            const void* y, const cudnnConvolutionDescriptor_t convDesc,
                                                            const cudnnFilterDescriptor_t dwDesc, void* dw,
                                                            const int requestedAlgoCount, int* returnedAlgoCount,
                                                            cudnnConvolutionBwdFilterAlgoPerf_t* perfResults,
                                                            void* workSpace, size_t workSpaceSizeInBytes) {
  if (bad_request(requestedAlgoCount, returnedAlgoCount, perfResults)) return CUDNN_STATUS_BAD_PARAM;
  LegacyCall call(ids::k_cudnnFindConvolutionBackwardFilterAlgorithmEx, CallClass::kSync);
  call.handle(handle).tensor(xDesc).device(x).tensor(dyDesc).device(y).convolution(convDesc).filter(dwDesc);
  call.device(dw).value<int32_t>(requestedAlgoCount).device(workSpace).value<uint64_t>(workSpaceSizeInBytes);
  return perf_reply(call, false, requestedAlgoCount, returnedAlgoCount, perfResults);
}

}  // extern "C"
