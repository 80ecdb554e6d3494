// Hand-written handlers of the legacy API's compute calls: arguments read back in parameter
// order (client/cudnn/legacy_compute.cpp writes them), then the backend's cuDNN is called. Each
// handler lists its arguments' kinds; the comment above it names them.
#include "gen/cudnn/cudnn_api.h"
#include "gen/cudnn/cudnn_handlers.h"
#include "server/session/cudnn_args.h"

namespace rgpu::server::handlers {
using namespace cudnn::arg;

// handle, alpha, aDesc, A, beta, cDesc, C
bool cudnnAddTensor(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Scalar, Tensor, Device, Scalar, Tensor, Device>(
      ctx, in, status, ctx.cudnn.cudnnAddTensor, "cudnnAddTensor");
}

// handle, activationDesc, alpha, xDesc, x, beta, yDesc, y
bool cudnnActivationForward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Activation, Scalar, Tensor, Device, Scalar, Tensor, Device>(
      ctx, in, status, ctx.cudnn.cudnnActivationForward, "cudnnActivationForward");
}

// handle, activationDesc, alpha, yDesc, y, dyDesc, dy, xDesc, x, beta, dxDesc, dx
bool cudnnActivationBackward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Activation, Scalar, Tensor, Device, Tensor, Device, Tensor, Device, Scalar, Tensor,
                        Device>(ctx, in, status, ctx.cudnn.cudnnActivationBackward, "cudnnActivationBackward");
}

// handle, algo, mode, alpha, xDesc, x, beta, yDesc, y
bool cudnnSoftmaxForward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Enum<CUDNN_SOFTMAX_LOG>, Enum<CUDNN_SOFTMAX_MODE_CHANNEL>, Scalar, Tensor, Device,
                        Scalar, Tensor, Device>(ctx, in, status, ctx.cudnn.cudnnSoftmaxForward, "cudnnSoftmaxForward");
}

// handle, mode, alpha, beta, xDesc, x, yDesc, y, bnDesc, scale, bias, mean, variance, epsilon
bool cudnnBatchNormalizationForwardInference(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, BatchNormMode, Scalar, Scalar, Tensor, Device, Tensor, Device, Tensor, Device, Device,
                        Device, Device, Value<double>>(
      ctx, in, status, ctx.cudnn.cudnnBatchNormalizationForwardInference, "cudnnBatchNormalizationForwardInference");
}

// handle, mode, alpha, beta, xDesc, x, yDesc, y, bnDesc, scale, bias, factor, running_mean,
// running_variance, epsilon, save_mean, save_inv_variance
bool cudnnBatchNormalizationForwardTraining(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, BatchNormMode, Scalar, Scalar, Tensor, Device, Tensor, Device, Tensor, Device, Device,
                        Value<double>, Device, Device, Value<double>, Device, Device>(
      ctx, in, status, ctx.cudnn.cudnnBatchNormalizationForwardTraining, "cudnnBatchNormalizationForwardTraining");
}

// handle, mode, ops, alpha, beta, xDesc, x, zDesc, z, yDesc, y, bnDesc, scale, bias, factor,
// running_mean, running_variance, epsilon, save_mean, save_inv_variance, activationDesc,
// workspace, workspace_bytes, reserve, reserve_bytes
bool cudnnBatchNormalizationForwardTrainingEx(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, BatchNormMode, BatchNormOps, Scalar, Scalar, Tensor, Device, Tensor, Device, Tensor,
                        Device, Tensor, Device, Device, Value<double>, Device, Device, Value<double>, Device, Device,
                        Activation, Device, Size, Device, Size>(
      ctx, in, status, ctx.cudnn.cudnnBatchNormalizationForwardTrainingEx, "cudnnBatchNormalizationForwardTrainingEx");
}

// handle, mode, alpha_data, beta_data, alpha_param, beta_param, xDesc, x, dyDesc, dy, dxDesc,
// dx, bnDesc, scale, dscale, dbias, epsilon, saved_mean, saved_inv_variance
bool cudnnBatchNormalizationBackward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, BatchNormMode, Scalar, Scalar, Scalar, Scalar, Tensor, Device, Tensor, Device, Tensor,
                        Device, Tensor, Device, Device, Device, Value<double>, Device, Device>(
      ctx, in, status, ctx.cudnn.cudnnBatchNormalizationBackward, "cudnnBatchNormalizationBackward");
}

// handle, mode, ops, alpha_data, beta_data, alpha_param, beta_param, xDesc, x, yDesc, y, dyDesc,
// dy, dzDesc, dz, dxDesc, dx, bnDesc, scale, bias, dscale, dbias, epsilon, saved_mean,
// saved_inv_variance, activationDesc, workspace, workspace_bytes, reserve, reserve_bytes
bool cudnnBatchNormalizationBackwardEx(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, BatchNormMode, BatchNormOps, Scalar, Scalar, Scalar, Scalar, Tensor, Device, Tensor,
                        Device, Tensor, Device, Tensor, Device, Tensor, Device, Tensor, Device, Device, Device, Device,
                        Value<double>, Device, Device, Activation, Device, Size, Device, Size>(
      ctx, in, status, ctx.cudnn.cudnnBatchNormalizationBackwardEx, "cudnnBatchNormalizationBackwardEx");
}

// handle, alpha, xDesc, x, wDesc, w, convDesc, algo, workspace, workspace_bytes, beta, yDesc, y
bool cudnnConvolutionForward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Scalar, Tensor, Device, Filter, Device, Convolution,
                        Enum<CUDNN_CONVOLUTION_FWD_ALGO_COUNT>, Device, Size, Scalar, Tensor, Device>(
      ctx, in, status, ctx.cudnn.cudnnConvolutionForward, "cudnnConvolutionForward");
}

// handle, alpha, wDesc, w, dyDesc, dy, convDesc, algo, workspace, workspace_bytes, beta, dxDesc, dx
bool cudnnConvolutionBackwardData(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Scalar, Filter, Device, Tensor, Device, Convolution,
                        Enum<CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT>, Device, Size, Scalar, Tensor, Device>(
      ctx, in, status, ctx.cudnn.cudnnConvolutionBackwardData, "cudnnConvolutionBackwardData");
}

// handle, alpha, xDesc, x, dyDesc, dy, convDesc, algo, workspace, workspace_bytes, beta, dwDesc, dw
bool cudnnConvolutionBackwardFilter(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Scalar, Tensor, Device, Tensor, Device, Convolution,
                        Enum<CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT>, Device, Size, Scalar, Filter, Device>(
      ctx, in, status, ctx.cudnn.cudnnConvolutionBackwardFilter, "cudnnConvolutionBackwardFilter");
}

}  // namespace rgpu::server::handlers
