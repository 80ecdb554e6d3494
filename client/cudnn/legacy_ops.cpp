// The legacy ops' compute calls (pooling, LRN, divisive normalization, op/reduce/set/scale/
// transform tensor, softmax backward, convolution bias, im2col, filter reordering, normalization,
// the spatial transformer's sampler): sent without waiting like legacy_compute.cpp's, descriptors
// of legacy records by content, the ops' own descriptors (pooling, LRN, ...) as the client ids
// their generated Create made. server/session/cudnn_legacy_ops.cpp reads them back in order.
#include <cudnn.h>

#include "client/cudnn/legacy_call.h"
#include "gen/cudnn/cudnn_ids.h"

using rgpu::client::CallClass;
using rgpu::client::cudnn::LegacyCall;
namespace ids = rgpu::gen::cudnn;

extern "C" {  // exported by the shim's version script

cudnnStatus_t cudnnPoolingForward(cudnnHandle_t handle, const cudnnPoolingDescriptor_t poolingDesc, const void* alpha,
                                  const cudnnTensorDescriptor_t xDesc, const void* x, const void* beta,
                                  const cudnnTensorDescriptor_t yDesc, void* y) {
  LegacyCall call(ids::k_cudnnPoolingForward, CallClass::kAsync);
  call.handle(handle).object(poolingDesc).scalar(alpha, yDesc).tensor(xDesc).device(x);
  call.scalar(beta, yDesc).tensor(yDesc).device(y);
  return call.post();
}

cudnnStatus_t cudnnPoolingBackward(cudnnHandle_t handle, const cudnnPoolingDescriptor_t poolingDesc, const void* alpha,
                                   const cudnnTensorDescriptor_t yDesc, const void* y,
                                   const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                   const cudnnTensorDescriptor_t xDesc, const void* x, const void* beta,
                                   const cudnnTensorDescriptor_t dxDesc, void* dx) {
  LegacyCall call(ids::k_cudnnPoolingBackward, CallClass::kAsync);
  call.handle(handle).object(poolingDesc).scalar(alpha, dxDesc).tensor(yDesc).device(y).tensor(dyDesc).device(dy);
  call.tensor(xDesc).device(x).scalar(beta, dxDesc).tensor(dxDesc).device(dx);
  return call.post();
}

cudnnStatus_t cudnnLRNCrossChannelForward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc, cudnnLRNMode_t lrnMode,
                                          const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x,
                                          const void* beta, const cudnnTensorDescriptor_t yDesc, void* y) {
  LegacyCall call(ids::k_cudnnLRNCrossChannelForward, CallClass::kAsync);
  call.handle(handle).object(normDesc).value<int32_t>(lrnMode).scalar(alpha, yDesc).tensor(xDesc).device(x);
  call.scalar(beta, yDesc).tensor(yDesc).device(y);
  return call.post();
}

cudnnStatus_t cudnnLRNCrossChannelBackward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc, cudnnLRNMode_t lrnMode,
                                           const void* alpha, const cudnnTensorDescriptor_t yDesc, const void* y,
                                           const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                           const cudnnTensorDescriptor_t xDesc, const void* x, const void* beta,
                                           const cudnnTensorDescriptor_t dxDesc, void* dx) {
  LegacyCall call(ids::k_cudnnLRNCrossChannelBackward, CallClass::kAsync);
  call.handle(handle).object(normDesc).value<int32_t>(lrnMode).scalar(alpha, dxDesc).tensor(yDesc).device(y);
  call.tensor(dyDesc).device(dy).tensor(xDesc).device(x).scalar(beta, dxDesc).tensor(dxDesc).device(dx);
  return call.post();
}

cudnnStatus_t cudnnDivisiveNormalizationForward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                                                cudnnDivNormMode_t mode, const void* alpha,
                                                const cudnnTensorDescriptor_t xDesc, const void* x, const void* means,
                                                void* temp, void* temp2, const void* beta,
                                                const cudnnTensorDescriptor_t yDesc, void* y) {
  LegacyCall call(ids::k_cudnnDivisiveNormalizationForward, CallClass::kAsync);
  call.handle(handle).object(normDesc).value<int32_t>(mode).scalar(alpha, yDesc).tensor(xDesc).device(x);
  call.device(means).device(temp).device(temp2).scalar(beta, yDesc).tensor(yDesc).device(y);
  return call.post();
}

cudnnStatus_t cudnnDivisiveNormalizationBackward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                                                 cudnnDivNormMode_t mode, const void* alpha,
                                                 const cudnnTensorDescriptor_t xDesc, const void* x, const void* means,
                                                 const void* dy, void* temp, void* temp2, const void* beta,
                                                 const cudnnTensorDescriptor_t dXdMeansDesc, void* dx, void* dMeans) {
  LegacyCall call(ids::k_cudnnDivisiveNormalizationBackward, CallClass::kAsync);
  call.handle(handle).object(normDesc).value<int32_t>(mode).scalar(alpha, dXdMeansDesc).tensor(xDesc).device(x);
  call.device(means).device(dy).device(temp).device(temp2).scalar(beta, dXdMeansDesc).tensor(dXdMeansDesc);
  call.device(dx).device(dMeans);
  return call.post();
}

cudnnStatus_t cudnnOpTensor(cudnnHandle_t handle, const cudnnOpTensorDescriptor_t opTensorDesc, const void* alpha1,
                            const cudnnTensorDescriptor_t aDesc, const void* A, const void* alpha2,
                            const cudnnTensorDescriptor_t bDesc, const void* B, const void* beta,
                            const cudnnTensorDescriptor_t cDesc, void* C) {
  LegacyCall call(ids::k_cudnnOpTensor, CallClass::kAsync);
  call.handle(handle).object(opTensorDesc).scalar(alpha1, cDesc).tensor(aDesc).device(A).scalar(alpha2, cDesc);
  call.tensor(bDesc).device(B).scalar(beta, cDesc).tensor(cDesc).device(C);
  return call.post();
}

cudnnStatus_t cudnnReduceTensor(cudnnHandle_t handle, const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                void* indices, size_t indicesSizeInBytes, void* workspace, size_t workspaceSizeInBytes,
                                const void* alpha, const cudnnTensorDescriptor_t aDesc, const void* A,
                                const void* beta, const cudnnTensorDescriptor_t cDesc, void* C) {
  LegacyCall call(ids::k_cudnnReduceTensor, CallClass::kAsync);
  call.handle(handle).object(reduceTensorDesc).device(indices).value<uint64_t>(indicesSizeInBytes);
  call.device(workspace).value<uint64_t>(workspaceSizeInBytes).scalar(alpha, cDesc).tensor(aDesc).device(A);
  call.scalar(beta, cDesc).tensor(cDesc).device(C);
  return call.post();
}

cudnnStatus_t cudnnSetTensor(cudnnHandle_t handle, const cudnnTensorDescriptor_t yDesc, void* y,
                             const void* valuePtr) {
  LegacyCall call(ids::k_cudnnSetTensor, CallClass::kAsync);
  call.handle(handle).tensor(yDesc).device(y).element(valuePtr, yDesc);
  return call.post();
}

cudnnStatus_t cudnnScaleTensor(cudnnHandle_t handle, const cudnnTensorDescriptor_t yDesc, void* y, const void* alpha) {
  LegacyCall call(ids::k_cudnnScaleTensor, CallClass::kAsync);
  call.handle(handle).tensor(yDesc).device(y).scalar(alpha, yDesc);
  return call.post();
}

cudnnStatus_t cudnnTransformTensor(cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t xDesc,
                                   const void* x, const void* beta, const cudnnTensorDescriptor_t yDesc, void* y) {
  LegacyCall call(ids::k_cudnnTransformTensor, CallClass::kAsync);
  call.handle(handle).scalar(alpha, yDesc).tensor(xDesc).device(x).scalar(beta, yDesc).tensor(yDesc).device(y);
  return call.post();
}

cudnnStatus_t cudnnTransformTensorEx(cudnnHandle_t handle, const cudnnTensorTransformDescriptor_t transDesc,
                                     const void* alpha, const cudnnTensorDescriptor_t srcDesc, const void* srcData,
                                     const void* beta, const cudnnTensorDescriptor_t destDesc, void* destData) {
  LegacyCall call(ids::k_cudnnTransformTensorEx, CallClass::kAsync);
  call.handle(handle).object(transDesc).scalar(alpha, destDesc).tensor(srcDesc).device(srcData);
  call.scalar(beta, destDesc).tensor(destDesc).device(destData);
  return call.post();
}

cudnnStatus_t cudnnTransformFilter(cudnnHandle_t handle, const cudnnTensorTransformDescriptor_t transDesc,
                                   const void* alpha, const cudnnFilterDescriptor_t srcDesc, const void* srcData,
                                   const void* beta, const cudnnFilterDescriptor_t destDesc, void* destData) {
  LegacyCall call(ids::k_cudnnTransformFilter, CallClass::kAsync);
  call.handle(handle).object(transDesc).scalar(alpha, destDesc).filter(srcDesc).device(srcData);
  call.scalar(beta, destDesc).filter(destDesc).device(destData);
  return call.post();
}

cudnnStatus_t cudnnReorderFilterAndBias(cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc,
                                        cudnnReorderType_t reorderType, const void* filterData,
                                        void* reorderedFilterData, int reorderBias, const void* biasData,
                                        void* reorderedBiasData) {
  LegacyCall call(ids::k_cudnnReorderFilterAndBias, CallClass::kAsync);
  call.handle(handle).filter(filterDesc).value<int32_t>(reorderType).device(filterData).device(reorderedFilterData);
  call.value<int32_t>(reorderBias).device(biasData).device(reorderedBiasData);
  return call.post();
}

cudnnStatus_t cudnnIm2Col(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void* x,
                          const cudnnFilterDescriptor_t wDesc, const cudnnConvolutionDescriptor_t convDesc,
                          void* colBuffer) {
  LegacyCall call(ids::k_cudnnIm2Col, CallClass::kAsync);
  call.handle(handle).tensor(xDesc).device(x).filter(wDesc).convolution(convDesc).device(colBuffer);
  return call.post();
}

cudnnStatus_t cudnnSoftmaxBackward(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode,
                                   const void* alpha, const cudnnTensorDescriptor_t yDesc, const void* y,
                                   const cudnnTensorDescriptor_t dyDesc, const void* dy, const void* beta,
                                   const cudnnTensorDescriptor_t dxDesc, void* dx) {
  LegacyCall call(ids::k_cudnnSoftmaxBackward, CallClass::kAsync);
  call.handle(handle).value<int32_t>(algo).value<int32_t>(mode).scalar(alpha, dxDesc).tensor(yDesc).device(y);
  call.tensor(dyDesc).device(dy).scalar(beta, dxDesc).tensor(dxDesc).device(dx);
  return call.post();
}

cudnnStatus_t cudnnConvolutionBackwardBias(cudnnHandle_t handle, const void* alpha,
                                           const cudnnTensorDescriptor_t dyDesc, const void* dy, const void* beta,
                                           const cudnnTensorDescriptor_t dbDesc, void* db) {
  LegacyCall call(ids::k_cudnnConvolutionBackwardBias, CallClass::kAsync);
  call.handle(handle).scalar(alpha, dbDesc).tensor(dyDesc).device(dy).scalar(beta, dbDesc).tensor(dbDesc).device(db);
  return call.post();
}

cudnnStatus_t cudnnConvolutionBiasActivationForward(
    cudnnHandle_t handle, const void* alpha1, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnConvolutionDescriptor_t convDesc,
    cudnnConvolutionFwdAlgo_t algo, void* workSpace, size_t workSpaceSizeInBytes, const void* alpha2,
    const cudnnTensorDescriptor_t zDesc, const void* z, const cudnnTensorDescriptor_t biasDesc, const void* bias,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t yDesc, void* y) {
  LegacyCall call(ids::k_cudnnConvolutionBiasActivationForward, CallClass::kAsync);
  call.handle(handle).scalar(alpha1, yDesc).tensor(xDesc).device(x).filter(wDesc).device(w).convolution(convDesc);
  call.value<int32_t>(algo).device(workSpace).value<uint64_t>(workSpaceSizeInBytes).scalar(alpha2, yDesc);
  call.tensor(zDesc).device(z).tensor(biasDesc).device(bias).activation(activationDesc).tensor(yDesc).device(y);
  return call.post();
}

cudnnStatus_t cudnnNormalizationForwardInference(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo, const void* alpha,
    const void* beta, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnTensorDescriptor_t normScaleBiasDesc, const void* normScale, const void* normBias,
    const cudnnTensorDescriptor_t normMeanVarDesc, const void* estimatedMean, const void* estimatedVariance,
    const cudnnTensorDescriptor_t zDesc, const void* z, cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t yDesc, void* y, double epsilon, int groupCnt) {
  LegacyCall call(ids::k_cudnnNormalizationForwardInference, CallClass::kAsync);
  call.handle(handle).value<int32_t>(mode).value<int32_t>(normOps).value<int32_t>(algo);
  call.scalar(alpha, xDesc).scalar(beta, xDesc).tensor(xDesc).device(x);
  call.tensor(normScaleBiasDesc).device(normScale).device(normBias);
  call.tensor(normMeanVarDesc).device(estimatedMean).device(estimatedVariance).tensor(zDesc).device(z);
  call.activation(activationDesc).tensor(yDesc).device(y).value(epsilon).value<int32_t>(groupCnt);
  return call.post();
}

cudnnStatus_t cudnnNormalizationForwardTraining(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo, const void* alpha,
    const void* beta, const cudnnTensorDescriptor_t xDesc, const void* xData,
    const cudnnTensorDescriptor_t normScaleBiasDesc, const void* normScale, const void* normBias,
    double exponentialAverageFactor, const cudnnTensorDescriptor_t normMeanVarDesc, void* resultRunningMean,
    void* resultRunningVariance, double epsilon, void* resultSaveMean, void* resultSaveInvVariance,
    cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t zDesc, const void* zData,
    const cudnnTensorDescriptor_t yDesc, void* yData, void* workspace, size_t workSpaceSizeInBytes,
    void* reserveSpace, size_t reserveSpaceSizeInBytes, int groupCnt) {
  LegacyCall call(ids::k_cudnnNormalizationForwardTraining, CallClass::kAsync);
  call.handle(handle).value<int32_t>(mode).value<int32_t>(normOps).value<int32_t>(algo);
  call.scalar(alpha, xDesc).scalar(beta, xDesc).tensor(xDesc).device(xData);
  call.tensor(normScaleBiasDesc).device(normScale).device(normBias).value(exponentialAverageFactor);
  call.tensor(normMeanVarDesc).device(resultRunningMean).device(resultRunningVariance).value(epsilon);
  call.device(resultSaveMean).device(resultSaveInvVariance).activation(activationDesc).tensor(zDesc).device(zData);
  call.tensor(yDesc).device(yData).device(workspace).value<uint64_t>(workSpaceSizeInBytes).device(reserveSpace);
  call.value<uint64_t>(reserveSpaceSizeInBytes).value<int32_t>(groupCnt);
  return call.post();
}

cudnnStatus_t cudnnNormalizationBackward(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const void* alphaDataDiff, const void* betaDataDiff, const void* alphaParamDiff, const void* betaParamDiff,
    const cudnnTensorDescriptor_t xDesc, const void* xData, const cudnnTensorDescriptor_t yDesc, const void* yData,
    const cudnnTensorDescriptor_t dyDesc, const void* dyData, const cudnnTensorDescriptor_t dzDesc, void* dzData,
    const cudnnTensorDescriptor_t dxDesc, void* dxData, const cudnnTensorDescriptor_t dNormScaleBiasDesc,
    const void* normScaleData, const void* normBiasData, void* dNormScaleData, void* dNormBiasData, double epsilon,
    const cudnnTensorDescriptor_t normMeanVarDesc, const void* savedMean, const void* savedInvVariance,
    cudnnActivationDescriptor_t activationDesc, void* workSpace, size_t workSpaceSizeInBytes, void* reserveSpace,
    size_t reserveSpaceSizeInBytes, int groupCnt) {
  LegacyCall call(ids::k_cudnnNormalizationBackward, CallClass::kAsync);
  call.handle(handle).value<int32_t>(mode).value<int32_t>(normOps).value<int32_t>(algo);
  call.scalar(alphaDataDiff, xDesc).scalar(betaDataDiff, xDesc).scalar(alphaParamDiff, xDesc);
  call.scalar(betaParamDiff, xDesc).tensor(xDesc).device(xData).tensor(yDesc).device(yData);
  call.tensor(dyDesc).device(dyData).tensor(dzDesc).device(dzData).tensor(dxDesc).device(dxData);
  call.tensor(dNormScaleBiasDesc).device(normScaleData).device(normBiasData).device(dNormScaleData);
  call.device(dNormBiasData).value(epsilon).tensor(normMeanVarDesc).device(savedMean).device(savedInvVariance);
  call.activation(activationDesc).device(workSpace).value<uint64_t>(workSpaceSizeInBytes).device(reserveSpace);
  call.value<uint64_t>(reserveSpaceSizeInBytes).value<int32_t>(groupCnt);
  return call.post();
}

cudnnStatus_t cudnnSpatialTfSamplerForward(cudnnHandle_t handle, cudnnSpatialTransformerDescriptor_t stDesc,
                                           const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x,
                                           const void* grid, const void* beta, cudnnTensorDescriptor_t yDesc,
                                           void* y) {
  LegacyCall call(ids::k_cudnnSpatialTfSamplerForward, CallClass::kAsync);
  call.handle(handle).object(stDesc).scalar(alpha, yDesc).tensor(xDesc).device(x).device(grid);
  call.scalar(beta, yDesc).tensor(yDesc).device(y);
  return call.post();
}

cudnnStatus_t cudnnSpatialTfSamplerBackward(cudnnHandle_t handle, cudnnSpatialTransformerDescriptor_t stDesc,
                                            const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x,
                                            const void* beta, const cudnnTensorDescriptor_t dxDesc, void* dx,
                                            const void* alphaDgrid, const cudnnTensorDescriptor_t dyDesc,
                                            const void* dy, const void* grid, const void* betaDgrid, void* dgrid) {
  LegacyCall call(ids::k_cudnnSpatialTfSamplerBackward, CallClass::kAsync);
  call.handle(handle).object(stDesc).scalar(alpha, dxDesc).tensor(xDesc).device(x).scalar(beta, dxDesc);
  call.tensor(dxDesc).device(dx).scalar(alphaDgrid, dxDesc).tensor(dyDesc).device(dy).device(grid);
  call.scalar(betaDgrid, dxDesc).device(dgrid);
  return call.post();
}

}  // extern "C"
