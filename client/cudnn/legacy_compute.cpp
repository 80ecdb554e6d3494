// The legacy API's compute calls: sent without waiting, descriptors by content, alpha/beta by
// value (a failure on the server is logged: it can no longer be returned). Arguments travel in
// parameter order; server/session/cudnn_legacy_compute.cpp reads them back in the same order.
#include <cudnn.h>

#include "client/cudnn/legacy_call.h"
#include "gen/cudnn/cudnn_ids.h"

using rgpu::client::CallClass;
using rgpu::client::cudnn::LegacyCall;
namespace ids = rgpu::gen::cudnn;

extern "C" {  // exported by the shim's version script

cudnnStatus_t cudnnAddTensor(cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t aDesc,
                             const void* A, const void* beta, const cudnnTensorDescriptor_t cDesc, void* C) {
  LegacyCall call(ids::k_cudnnAddTensor, CallClass::kAsync);
  call.handle(handle).scalar(alpha, cDesc).tensor(aDesc).device(A).scalar(beta, cDesc).tensor(cDesc).device(C);
  return call.post();
}

cudnnStatus_t cudnnActivationForward(cudnnHandle_t handle, cudnnActivationDescriptor_t activationDesc,
                                     const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x,
                                     const void* beta, const cudnnTensorDescriptor_t yDesc, void* y) {
  LegacyCall call(ids::k_cudnnActivationForward, CallClass::kAsync);
  call.handle(handle).activation(activationDesc).scalar(alpha, yDesc).tensor(xDesc).device(x);
  call.scalar(beta, yDesc).tensor(yDesc).device(y);
  return call.post();
}

cudnnStatus_t cudnnActivationBackward(cudnnHandle_t handle, cudnnActivationDescriptor_t activationDesc,
                                      const void* alpha, const cudnnTensorDescriptor_t yDesc, const void* y,
                                      const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                      const cudnnTensorDescriptor_t xDesc, const void* x, const void* beta,
                                      const cudnnTensorDescriptor_t dxDesc, void* dx) {
  LegacyCall call(ids::k_cudnnActivationBackward, CallClass::kAsync);
  call.handle(handle).activation(activationDesc).scalar(alpha, dxDesc).tensor(yDesc).device(y);
  call.tensor(dyDesc).device(dy).tensor(xDesc).device(x).scalar(beta, dxDesc).tensor(dxDesc).device(dx);
  return call.post();
}

cudnnStatus_t cudnnSoftmaxForward(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode,
                                  const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x,
                                  const void* beta, const cudnnTensorDescriptor_t yDesc, void* y) {
  LegacyCall call(ids::k_cudnnSoftmaxForward, CallClass::kAsync);
  call.handle(handle).value<int32_t>(algo).value<int32_t>(mode).scalar(alpha, yDesc).tensor(xDesc).device(x);
  call.scalar(beta, yDesc).tensor(yDesc).device(y);
  return call.post();
}

cudnnStatus_t cudnnBatchNormalizationForwardInference(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha, const void* beta,
    const cudnnTensorDescriptor_t xDesc, const void* x, const cudnnTensorDescriptor_t yDesc, void* y,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void* bnScale, const void* bnBias,
    const void* estimatedMean, const void* estimatedVariance, double epsilon) {
  LegacyCall call(ids::k_cudnnBatchNormalizationForwardInference, CallClass::kAsync);
  call.handle(handle).value<int32_t>(mode).scalar(alpha, xDesc).scalar(beta, xDesc).tensor(xDesc).device(x);
  call.tensor(yDesc).device(y).tensor(bnScaleBiasMeanVarDesc).device(bnScale).device(bnBias);
  call.device(estimatedMean).device(estimatedVariance).value(epsilon);
  return call.post();
}

cudnnStatus_t cudnnBatchNormalizationForwardTraining(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha, const void* beta,
    const cudnnTensorDescriptor_t xDesc, const void* x, const cudnnTensorDescriptor_t yDesc, void* y,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void* bnScale, const void* bnBias,
    double exponentialAverageFactor, void* resultRunningMean, void* resultRunningVariance, double epsilon,
    void* resultSaveMean, void* resultSaveInvVariance) {
  LegacyCall call(ids::k_cudnnBatchNormalizationForwardTraining, CallClass::kAsync);
  call.handle(handle).value<int32_t>(mode).scalar(alpha, xDesc).scalar(beta, xDesc).tensor(xDesc).device(x);
  call.tensor(yDesc).device(y).tensor(bnScaleBiasMeanVarDesc).device(bnScale).device(bnBias);
  call.value(exponentialAverageFactor).device(resultRunningMean).device(resultRunningVariance).value(epsilon);
  call.device(resultSaveMean).device(resultSaveInvVariance);
  return call.post();
}

cudnnStatus_t cudnnBatchNormalizationForwardTrainingEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const void* alpha, const void* beta,
    const cudnnTensorDescriptor_t xDesc, const void* xData, const cudnnTensorDescriptor_t zDesc, const void* zData,
    const cudnnTensorDescriptor_t yDesc, void* yData, const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc,
    const void* bnScale, const void* bnBias, double exponentialAverageFactor, void* resultRunningMean,
    void* resultRunningVariance, double epsilon, void* resultSaveMean, void* resultSaveInvVariance,
    cudnnActivationDescriptor_t activationDesc, void* workspace, size_t workSpaceSizeInBytes, void* reserveSpace,
    size_t reserveSpaceSizeInBytes) {
  LegacyCall call(ids::k_cudnnBatchNormalizationForwardTrainingEx, CallClass::kAsync);
  call.handle(handle).value<int32_t>(mode).value<int32_t>(bnOps).scalar(alpha, xDesc).scalar(beta, xDesc);
  call.tensor(xDesc).device(xData).tensor(zDesc).device(zData).tensor(yDesc).device(yData);
  call.tensor(bnScaleBiasMeanVarDesc).device(bnScale).device(bnBias).value(exponentialAverageFactor);
  call.device(resultRunningMean).device(resultRunningVariance).value(epsilon);
  call.device(resultSaveMean).device(resultSaveInvVariance).activation(activationDesc);
  call.device(workspace).value<uint64_t>(workSpaceSizeInBytes).device(reserveSpace);
  call.value<uint64_t>(reserveSpaceSizeInBytes);
  return call.post();
}

cudnnStatus_t cudnnBatchNormalizationBackward(cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alphaDataDiff,
                                              const void* betaDataDiff, const void* alphaParamDiff,
                                              const void* betaParamDiff, const cudnnTensorDescriptor_t xDesc,
                                              const void* x, const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                              const cudnnTensorDescriptor_t dxDesc, void* dx,
                                              const cudnnTensorDescriptor_t dBnScaleBiasDesc, const void* bnScale,
                                              void* dBnScaleResult, void* dBnBiasResult, double epsilon,
                                              const void* savedMean, const void* savedInvVariance) {
  LegacyCall call(ids::k_cudnnBatchNormalizationBackward, CallClass::kAsync);
  call.handle(handle).value<int32_t>(mode).scalar(alphaDataDiff, xDesc).scalar(betaDataDiff, xDesc);
  call.scalar(alphaParamDiff, xDesc).scalar(betaParamDiff, xDesc).tensor(xDesc).device(x).tensor(dyDesc).device(dy);
  call.tensor(dxDesc).device(dx).tensor(dBnScaleBiasDesc).device(bnScale).device(dBnScaleResult);
  call.device(dBnBiasResult).value(epsilon).device(savedMean).device(savedInvVariance);
  return call.post();
}

cudnnStatus_t cudnnBatchNormalizationBackwardEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const void* alphaDataDiff,
    const void* betaDataDiff, const void* alphaParamDiff, const void* betaParamDiff,
    const cudnnTensorDescriptor_t xDesc, const void* xData, const cudnnTensorDescriptor_t yDesc, const void* yData,
    const cudnnTensorDescriptor_t dyDesc, const void* dyData, const cudnnTensorDescriptor_t dzDesc, void* dzData,
    const cudnnTensorDescriptor_t dxDesc, void* dxData, const cudnnTensorDescriptor_t dBnScaleBiasDesc,
    const void* bnScaleData, const void* bnBiasData, void* dBnScaleData, void* dBnBiasData, double epsilon,
    const void* savedMean, const void* savedInvVariance, cudnnActivationDescriptor_t activationDesc,
    void* workSpace, size_t workSpaceSizeInBytes, void* reserveSpace, size_t reserveSpaceSizeInBytes) {
  LegacyCall call(ids::k_cudnnBatchNormalizationBackwardEx, CallClass::kAsync);
  call.handle(handle).value<int32_t>(mode).value<int32_t>(bnOps);
  call.scalar(alphaDataDiff, xDesc).scalar(betaDataDiff, xDesc).scalar(alphaParamDiff, xDesc);
  call.scalar(betaParamDiff, xDesc).tensor(xDesc).device(xData).tensor(yDesc).device(yData);
  call.tensor(dyDesc).device(dyData).tensor(dzDesc).device(dzData).tensor(dxDesc).device(dxData);
  call.tensor(dBnScaleBiasDesc).device(bnScaleData).device(bnBiasData).device(dBnScaleData).device(dBnBiasData);
  call.value(epsilon).device(savedMean).device(savedInvVariance).activation(activationDesc);
  call.device(workSpace).value<uint64_t>(workSpaceSizeInBytes).device(reserveSpace);
  call.value<uint64_t>(reserveSpaceSizeInBytes);
  return call.post();
}

cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t xDesc,
                                      const void* x, const cudnnFilterDescriptor_t wDesc, const void* w,
                                      const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t algo,
                                      void* workSpace, size_t workSpaceSizeInBytes, const void* beta,
                                      const cudnnTensorDescriptor_t yDesc, void* y) {
  LegacyCall call(ids::k_cudnnConvolutionForward, CallClass::kAsync);
  call.handle(handle).scalar(alpha, yDesc).tensor(xDesc).device(x).filter(wDesc).device(w).convolution(convDesc);
  call.value<int32_t>(algo).device(workSpace).value<uint64_t>(workSpaceSizeInBytes).scalar(beta, yDesc);
  call.tensor(yDesc).device(y);
  return call.post();
}

cudnnStatus_t cudnnConvolutionBackwardData(cudnnHandle_t handle, const void* alpha,
                                           const cudnnFilterDescriptor_t wDesc, const void* w,
                                           const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                           const cudnnConvolutionDescriptor_t convDesc,
                                           cudnnConvolutionBwdDataAlgo_t algo, void* workSpace,
                                           size_t workSpaceSizeInBytes, const void* beta,
                                           const cudnnTensorDescriptor_t dxDesc, void* dx) {
  LegacyCall call(ids::k_cudnnConvolutionBackwardData, CallClass::kAsync);
  call.handle(handle).scalar(alpha, dxDesc).filter(wDesc).device(w).tensor(dyDesc).device(dy);
  call.convolution(convDesc).value<int32_t>(algo).device(workSpace).value<uint64_t>(workSpaceSizeInBytes);
  call.scalar(beta, dxDesc).tensor(dxDesc).device(dx);
  return call.post();
}

cudnnStatus_t cudnnConvolutionBackwardFilter(cudnnHandle_t handle, const void* alpha,
                                             const cudnnTensorDescriptor_t xDesc, const void* x,
                                             const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                             const cudnnConvolutionDescriptor_t convDesc,
                                             cudnnConvolutionBwdFilterAlgo_t algo, void* workSpace,
                                             size_t workSpaceSizeInBytes, const void* beta,
                                             const cudnnFilterDescriptor_t dwDesc, void* dw) {
  LegacyCall call(ids::k_cudnnConvolutionBackwardFilter, CallClass::kAsync);
  call.handle(handle).scalar(alpha, xDesc).tensor(xDesc).device(x).tensor(dyDesc).device(dy);
  call.convolution(convDesc).value<int32_t>(algo).device(workSpace).value<uint64_t>(workSpaceSizeInBytes);
  call.scalar(beta, xDesc).filter(dwDesc).device(dw);
  return call.post();
}

}  // extern "C"
