// Hand-written handlers of the legacy API's compute calls: arguments read back in parameter
// order (client/cudnn/legacy_compute.cpp writes them), then the backend's cuDNN is called.
#include "gen/cudnn/cudnn_api.h"
#include "gen/cudnn/cudnn_handlers.h"
#include "server/session/cudnn_args.h"

namespace rgpu::server::handlers {

bool cudnnAddTensor(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  const void* alpha = a.scalar();
  cudnnTensorDescriptor_t aDesc = a.tensor();
  const void* A = a.device();
  const void* beta = a.scalar();
  cudnnTensorDescriptor_t cDesc = a.tensor();
  void* C = a.device();
  return a.call(status, ctx.cudnn.cudnnAddTensor, "cudnnAddTensor", handle, alpha, aDesc, A, beta, cDesc, C);
}

bool cudnnActivationForward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  cudnnActivationDescriptor_t activationDesc = a.activation();
  const void* alpha = a.scalar();
  cudnnTensorDescriptor_t xDesc = a.tensor();
  const void* x = a.device();
  const void* beta = a.scalar();
  cudnnTensorDescriptor_t yDesc = a.tensor();
  void* y = a.device();
  return a.call(status, ctx.cudnn.cudnnActivationForward, "cudnnActivationForward", handle, activationDesc, alpha,
                xDesc, x, beta, yDesc, y);
}

bool cudnnActivationBackward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  cudnnActivationDescriptor_t activationDesc = a.activation();
  const void* alpha = a.scalar();
  cudnnTensorDescriptor_t yDesc = a.tensor();
  const void* y = a.device();
  cudnnTensorDescriptor_t dyDesc = a.tensor();
  const void* dy = a.device();
  cudnnTensorDescriptor_t xDesc = a.tensor();
  const void* x = a.device();
  const void* beta = a.scalar();
  cudnnTensorDescriptor_t dxDesc = a.tensor();
  void* dx = a.device();
  return a.call(status, ctx.cudnn.cudnnActivationBackward, "cudnnActivationBackward", handle, activationDesc, alpha,
                yDesc, y, dyDesc, dy, xDesc, x, beta, dxDesc, dx);
}

bool cudnnSoftmaxForward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  auto algo = a.enumerated<cudnnSoftmaxAlgorithm_t>(CUDNN_SOFTMAX_LOG);
  auto mode = a.enumerated<cudnnSoftmaxMode_t>(CUDNN_SOFTMAX_MODE_CHANNEL);
  const void* alpha = a.scalar();
  cudnnTensorDescriptor_t xDesc = a.tensor();
  const void* x = a.device();
  const void* beta = a.scalar();
  cudnnTensorDescriptor_t yDesc = a.tensor();
  void* y = a.device();
  return a.call(status, ctx.cudnn.cudnnSoftmaxForward, "cudnnSoftmaxForward", handle, algo, mode, alpha, xDesc, x,
                beta, yDesc, y);
}

bool cudnnBatchNormalizationForwardInference(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  auto mode = a.enumerated<cudnnBatchNormMode_t>(CUDNN_BATCHNORM_SPATIAL_PERSISTENT);
  const void* alpha = a.scalar();
  const void* beta = a.scalar();
  cudnnTensorDescriptor_t xDesc = a.tensor();
  const void* x = a.device();
  cudnnTensorDescriptor_t yDesc = a.tensor();
  void* y = a.device();
  cudnnTensorDescriptor_t bnDesc = a.tensor();
  const void* scale = a.device();
  const void* bias = a.device();
  const void* mean = a.device();
  const void* variance = a.device();
  double epsilon = a.value<double>();
  return a.call(status, ctx.cudnn.cudnnBatchNormalizationForwardInference, "cudnnBatchNormalizationForwardInference",
                handle, mode, alpha, beta, xDesc, x, yDesc, y, bnDesc, scale, bias, mean, variance, epsilon);
}

bool cudnnBatchNormalizationForwardTraining(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  auto mode = a.enumerated<cudnnBatchNormMode_t>(CUDNN_BATCHNORM_SPATIAL_PERSISTENT);
  const void* alpha = a.scalar();
  const void* beta = a.scalar();
  cudnnTensorDescriptor_t xDesc = a.tensor();
  const void* x = a.device();
  cudnnTensorDescriptor_t yDesc = a.tensor();
  void* y = a.device();
  cudnnTensorDescriptor_t bnDesc = a.tensor();
  const void* scale = a.device();
  const void* bias = a.device();
  double factor = a.value<double>();
  void* running_mean = a.device();
  void* running_variance = a.device();
  double epsilon = a.value<double>();
  void* save_mean = a.device();
  void* save_inv_variance = a.device();
  return a.call(status, ctx.cudnn.cudnnBatchNormalizationForwardTraining, "cudnnBatchNormalizationForwardTraining",
                handle, mode, alpha, beta, xDesc, x, yDesc, y, bnDesc, scale, bias, factor, running_mean,
                running_variance, epsilon, save_mean, save_inv_variance);
}

bool cudnnBatchNormalizationForwardTrainingEx(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  auto mode = a.enumerated<cudnnBatchNormMode_t>(CUDNN_BATCHNORM_SPATIAL_PERSISTENT);
  auto ops = a.enumerated<cudnnBatchNormOps_t>(CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION);
  const void* alpha = a.scalar();
  const void* beta = a.scalar();
  cudnnTensorDescriptor_t xDesc = a.tensor();
  const void* x = a.device();
  cudnnTensorDescriptor_t zDesc = a.tensor();
  const void* z = a.device();
  cudnnTensorDescriptor_t yDesc = a.tensor();
  void* y = a.device();
  cudnnTensorDescriptor_t bnDesc = a.tensor();
  const void* scale = a.device();
  const void* bias = a.device();
  double factor = a.value<double>();
  void* running_mean = a.device();
  void* running_variance = a.device();
  double epsilon = a.value<double>();
  void* save_mean = a.device();
  void* save_inv_variance = a.device();
  cudnnActivationDescriptor_t activationDesc = a.activation();
  void* workspace = a.device();
  size_t workspace_bytes = a.value<uint64_t>();
  void* reserve = a.device();
  size_t reserve_bytes = a.value<uint64_t>();
  return a.call(status, ctx.cudnn.cudnnBatchNormalizationForwardTrainingEx, "cudnnBatchNormalizationForwardTrainingEx",
                handle, mode, ops, alpha, beta, xDesc, x, zDesc, z, yDesc, y, bnDesc, scale, bias, factor,
                running_mean, running_variance, epsilon, save_mean, save_inv_variance, activationDesc, workspace,
                workspace_bytes, reserve, reserve_bytes);
}

bool cudnnBatchNormalizationBackward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  auto mode = a.enumerated<cudnnBatchNormMode_t>(CUDNN_BATCHNORM_SPATIAL_PERSISTENT);
  const void* alpha_data = a.scalar();
  const void* beta_data = a.scalar();
  const void* alpha_param = a.scalar();
  const void* beta_param = a.scalar();
  cudnnTensorDescriptor_t xDesc = a.tensor();
  const void* x = a.device();
  cudnnTensorDescriptor_t dyDesc = a.tensor();
  const void* dy = a.device();
  cudnnTensorDescriptor_t dxDesc = a.tensor();
  void* dx = a.device();
  cudnnTensorDescriptor_t bnDesc = a.tensor();
  const void* scale = a.device();
  void* dscale = a.device();
  void* dbias = a.device();
  double epsilon = a.value<double>();
  const void* saved_mean = a.device();
  const void* saved_inv_variance = a.device();
  return a.call(status, ctx.cudnn.cudnnBatchNormalizationBackward, "cudnnBatchNormalizationBackward", handle, mode,
                alpha_data, beta_data, alpha_param, beta_param, xDesc, x, dyDesc, dy, dxDesc, dx, bnDesc, scale,
                dscale, dbias, epsilon, saved_mean, saved_inv_variance);
}

bool cudnnBatchNormalizationBackwardEx(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  auto mode = a.enumerated<cudnnBatchNormMode_t>(CUDNN_BATCHNORM_SPATIAL_PERSISTENT);
  auto ops = a.enumerated<cudnnBatchNormOps_t>(CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION);
  const void* alpha_data = a.scalar();
  const void* beta_data = a.scalar();
  const void* alpha_param = a.scalar();
  const void* beta_param = a.scalar();
  cudnnTensorDescriptor_t xDesc = a.tensor();
  const void* x = a.device();
  cudnnTensorDescriptor_t yDesc = a.tensor();
  const void* y = a.device();
  cudnnTensorDescriptor_t dyDesc = a.tensor();
  const void* dy = a.device();
  cudnnTensorDescriptor_t dzDesc = a.tensor();
  void* dz = a.device();
  cudnnTensorDescriptor_t dxDesc = a.tensor();
  void* dx = a.device();
  cudnnTensorDescriptor_t bnDesc = a.tensor();
  const void* scale = a.device();
  const void* bias = a.device();
  void* dscale = a.device();
  void* dbias = a.device();
  double epsilon = a.value<double>();
  const void* saved_mean = a.device();
  const void* saved_inv_variance = a.device();
  cudnnActivationDescriptor_t activationDesc = a.activation();
  void* workspace = a.device();
  size_t workspace_bytes = a.value<uint64_t>();
  void* reserve = a.device();
  size_t reserve_bytes = a.value<uint64_t>();
  return a.call(status, ctx.cudnn.cudnnBatchNormalizationBackwardEx, "cudnnBatchNormalizationBackwardEx", handle,
                mode, ops, alpha_data, beta_data, alpha_param, beta_param, xDesc, x, yDesc, y, dyDesc, dy, dzDesc, dz,
                dxDesc, dx, bnDesc, scale, bias, dscale, dbias, epsilon, saved_mean, saved_inv_variance,
                activationDesc, workspace, workspace_bytes, reserve, reserve_bytes);
}

bool cudnnConvolutionForward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  const void* alpha = a.scalar();
  cudnnTensorDescriptor_t xDesc = a.tensor();
  const void* x = a.device();
  cudnnFilterDescriptor_t wDesc = a.filter();
  const void* w = a.device();
  cudnnConvolutionDescriptor_t convDesc = a.convolution();
  auto algo = a.enumerated<cudnnConvolutionFwdAlgo_t>(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  void* workspace = a.device();
  size_t workspace_bytes = a.value<uint64_t>();
  const void* beta = a.scalar();
  cudnnTensorDescriptor_t yDesc = a.tensor();
  void* y = a.device();
  return a.call(status, ctx.cudnn.cudnnConvolutionForward, "cudnnConvolutionForward", handle, alpha, xDesc, x, wDesc,
                w, convDesc, algo, workspace, workspace_bytes, beta, yDesc, y);
}

bool cudnnConvolutionBackwardData(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  const void* alpha = a.scalar();
  cudnnFilterDescriptor_t wDesc = a.filter();
  const void* w = a.device();
  cudnnTensorDescriptor_t dyDesc = a.tensor();
  const void* dy = a.device();
  cudnnConvolutionDescriptor_t convDesc = a.convolution();
  auto algo = a.enumerated<cudnnConvolutionBwdDataAlgo_t>(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
  void* workspace = a.device();
  size_t workspace_bytes = a.value<uint64_t>();
  const void* beta = a.scalar();
  cudnnTensorDescriptor_t dxDesc = a.tensor();
  void* dx = a.device();
  return a.call(status, ctx.cudnn.cudnnConvolutionBackwardData, "cudnnConvolutionBackwardData", handle, alpha, wDesc,
                w, dyDesc, dy, convDesc, algo, workspace, workspace_bytes, beta, dxDesc, dx);
}

bool cudnnConvolutionBackwardFilter(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  const void* alpha = a.scalar();
  cudnnTensorDescriptor_t xDesc = a.tensor();
  const void* x = a.device();
  cudnnTensorDescriptor_t dyDesc = a.tensor();
  const void* dy = a.device();
  cudnnConvolutionDescriptor_t convDesc = a.convolution();
  auto algo = a.enumerated<cudnnConvolutionBwdFilterAlgo_t>(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
  void* workspace = a.device();
  size_t workspace_bytes = a.value<uint64_t>();
  const void* beta = a.scalar();
  cudnnFilterDescriptor_t dwDesc = a.filter();
  void* dw = a.device();
  return a.call(status, ctx.cudnn.cudnnConvolutionBackwardFilter, "cudnnConvolutionBackwardFilter", handle, alpha,
                xDesc, x, dyDesc, dy, convDesc, algo, workspace, workspace_bytes, beta, dwDesc, dw);
}

}  // namespace rgpu::server::handlers
