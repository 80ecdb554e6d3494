// Hand-written handlers of the legacy ops' compute calls (client/cudnn/legacy_ops.cpp writes
// them): pooling, LRN, divisive normalization, op/reduce/set/scale/transform tensor, softmax
// backward, convolution bias (backward, fused forward), im2col, filter reordering, normalization
// and the spatial transformer's sampler. Each lists its arguments' kinds (cudnn_args.h); the
// comment above it names them.
#include "gen/cudnn/cudnn_api.h"
#include "gen/cudnn/cudnn_handlers.h"
#include "server/session/cudnn_args.h"

namespace rgpu::server::handlers {
using namespace cudnn::arg;

// handle, poolingDesc, alpha, xDesc, x, beta, yDesc, y
bool cudnnPoolingForward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Pooling, Scalar, Tensor, Device, Scalar, Tensor, Device>(
      ctx, in, status, ctx.cudnn.cudnnPoolingForward, "cudnnPoolingForward");
}

// handle, poolingDesc, alpha, yDesc, y, dyDesc, dy, xDesc, x, beta, dxDesc, dx
bool cudnnPoolingBackward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Pooling, Scalar, Tensor, Device, Tensor, Device, Tensor, Device, Scalar, Tensor, Device>(
      ctx, in, status, ctx.cudnn.cudnnPoolingBackward, "cudnnPoolingBackward");
}

// handle, normDesc, lrnMode, alpha, xDesc, x, beta, yDesc, y
bool cudnnLRNCrossChannelForward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Lrn, Enum<CUDNN_LRN_CROSS_CHANNEL_DIM1>, Scalar, Tensor, Device, Scalar, Tensor,
                        Device>(ctx, in, status, ctx.cudnn.cudnnLRNCrossChannelForward, "cudnnLRNCrossChannelForward");
}

// handle, normDesc, lrnMode, alpha, yDesc, y, dyDesc, dy, xDesc, x, beta, dxDesc, dx
bool cudnnLRNCrossChannelBackward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Lrn, Enum<CUDNN_LRN_CROSS_CHANNEL_DIM1>, Scalar, Tensor, Device, Tensor, Device,
                        Tensor, Device, Scalar, Tensor, Device>(ctx, in, status, ctx.cudnn.cudnnLRNCrossChannelBackward,
                                                                "cudnnLRNCrossChannelBackward");
}

// handle, normDesc, mode, alpha, xDesc, x, means, temp, temp2, beta, yDesc, y
bool cudnnDivisiveNormalizationForward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Lrn, Enum<CUDNN_DIVNORM_PRECOMPUTED_MEANS>, Scalar, Tensor, Device, Device, Device,
                        Device, Scalar, Tensor, Device>(ctx, in, status, ctx.cudnn.cudnnDivisiveNormalizationForward,
                                                        "cudnnDivisiveNormalizationForward");
}

// handle, normDesc, mode, alpha, xDesc, x, means, dy, temp, temp2, beta, dXdMeansDesc, dx, dMeans
bool cudnnDivisiveNormalizationBackward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Lrn, Enum<CUDNN_DIVNORM_PRECOMPUTED_MEANS>, Scalar, Tensor, Device, Device, Device,
                        Device, Device, Scalar, Tensor, Device, Device>(
      ctx, in, status, ctx.cudnn.cudnnDivisiveNormalizationBackward, "cudnnDivisiveNormalizationBackward");
}

// handle, opTensorDesc, alpha1, aDesc, A, alpha2, bDesc, B, beta, cDesc, C
bool cudnnOpTensor(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, OpTensor, Scalar, Tensor, Device, Scalar, Tensor, Device, Scalar, Tensor, Device>(
      ctx, in, status, ctx.cudnn.cudnnOpTensor, "cudnnOpTensor");
}

// handle, reduceTensorDesc, indices, indices_bytes, workspace, workspace_bytes, alpha, aDesc, A,
// beta, cDesc, C
bool cudnnReduceTensor(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, ReduceTensor, Device, Size, Device, Size, Scalar, Tensor, Device, Scalar, Tensor,
                        Device>(ctx, in, status, ctx.cudnn.cudnnReduceTensor, "cudnnReduceTensor");
}

// handle, yDesc, y, value (one element of y's type)
bool cudnnSetTensor(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Tensor, Device, Scalar>(ctx, in, status, ctx.cudnn.cudnnSetTensor, "cudnnSetTensor");
}

// handle, yDesc, y, alpha
bool cudnnScaleTensor(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Tensor, Device, Scalar>(ctx, in, status, ctx.cudnn.cudnnScaleTensor,
                                                        "cudnnScaleTensor");
}

// handle, alpha, xDesc, x, beta, yDesc, y
bool cudnnTransformTensor(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Scalar, Tensor, Device, Scalar, Tensor, Device>(
      ctx, in, status, ctx.cudnn.cudnnTransformTensor, "cudnnTransformTensor");
}

// handle, transDesc, alpha, srcDesc, srcData, beta, destDesc, destData
bool cudnnTransformTensorEx(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, TensorTransform, Scalar, Tensor, Device, Scalar, Tensor, Device>(
      ctx, in, status, ctx.cudnn.cudnnTransformTensorEx, "cudnnTransformTensorEx");
}

// handle, transDesc, alpha, srcDesc (filter), srcData, beta, destDesc (filter), destData
bool cudnnTransformFilter(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, TensorTransform, Scalar, Filter, Device, Scalar, Filter, Device>(
      ctx, in, status, ctx.cudnn.cudnnTransformFilter, "cudnnTransformFilter");
}

// handle, filterDesc, reorderType, filterData, reorderedFilterData, reorderBias, biasData,
// reorderedBiasData
bool cudnnReorderFilterAndBias(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Filter, Enum<CUDNN_NO_REORDER>, Device, Device, Value<int32_t>, Device, Device>(
      ctx, in, status, ctx.cudnn.cudnnReorderFilterAndBias, "cudnnReorderFilterAndBias");
}

// handle, xDesc, x, wDesc, convDesc, colBuffer
bool cudnnIm2Col(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Tensor, Device, Filter, Convolution, Device>(ctx, in, status, ctx.cudnn.cudnnIm2Col,
                                                                           "cudnnIm2Col");
}

// handle, algo, mode, alpha, yDesc, y, dyDesc, dy, beta, dxDesc, dx
bool cudnnSoftmaxBackward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, SoftmaxAlgorithm, SoftmaxMode, Scalar, Tensor, Device, Tensor, Device, Scalar, Tensor,
                        Device>(ctx, in, status, ctx.cudnn.cudnnSoftmaxBackward, "cudnnSoftmaxBackward");
}

// handle, alpha, dyDesc, dy, beta, dbDesc, db
bool cudnnConvolutionBackwardBias(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Scalar, Tensor, Device, Scalar, Tensor, Device>(
      ctx, in, status, ctx.cudnn.cudnnConvolutionBackwardBias, "cudnnConvolutionBackwardBias");
}

// handle, alpha1, xDesc, x, wDesc, w, convDesc, algo, workspace, workspace_bytes, alpha2, zDesc,
// z, biasDesc, bias, activationDesc, yDesc, y
bool cudnnConvolutionBiasActivationForward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Scalar, Tensor, Device, Filter, Device, Convolution,
                        Enum<CUDNN_CONVOLUTION_FWD_ALGO_COUNT>, Device, Size, Scalar, Tensor, Device, Tensor, Device,
                        Activation, Tensor, Device>(ctx, in, status, ctx.cudnn.cudnnConvolutionBiasActivationForward,
                                                    "cudnnConvolutionBiasActivationForward");
}

// handle, mode, ops, algo, alpha, beta, xDesc, x, scaleBiasDesc, scale, bias, meanVarDesc, mean,
// variance, zDesc, z, activationDesc, yDesc, y, epsilon, groupCnt
bool cudnnNormalizationForwardInference(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, NormMode, NormOps, NormAlgo, Scalar, Scalar, Tensor, Device, Tensor, Device, Device,
                        Tensor, Device, Device, Tensor, Device, Activation, Tensor, Device, Value<double>,
                        Value<int32_t>>(ctx, in, status, ctx.cudnn.cudnnNormalizationForwardInference,
                                        "cudnnNormalizationForwardInference");
}

// handle, mode, ops, algo, alpha, beta, xDesc, x, scaleBiasDesc, scale, bias, factor,
// meanVarDesc, running_mean, running_variance, epsilon, save_mean, save_inv_variance,
// activationDesc, zDesc, z, yDesc, y, workspace, workspace_bytes, reserve, reserve_bytes, groupCnt
bool cudnnNormalizationForwardTraining(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, NormMode, NormOps, NormAlgo, Scalar, Scalar, Tensor, Device, Tensor, Device, Device,
                        Value<double>, Tensor, Device, Device, Value<double>, Device, Device, Activation, Tensor,
                        Device, Tensor, Device, Device, Size, Device, Size, Value<int32_t>>(
      ctx, in, status, ctx.cudnn.cudnnNormalizationForwardTraining, "cudnnNormalizationForwardTraining");
}

// handle, mode, ops, algo, alpha_data, beta_data, alpha_param, beta_param, xDesc, x, yDesc, y,
// dyDesc, dy, dzDesc, dz, dxDesc, dx, dScaleBiasDesc, scale, bias, dscale, dbias, epsilon,
// meanVarDesc, saved_mean, saved_inv_variance, activationDesc, workspace, workspace_bytes,
// reserve, reserve_bytes, groupCnt
bool cudnnNormalizationBackward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, NormMode, NormOps, NormAlgo, Scalar, Scalar, Scalar, Scalar, Tensor, Device, Tensor,
                        Device, Tensor, Device, Tensor, Device, Tensor, Device, Tensor, Device, Device, Device, Device,
                        Value<double>, Tensor, Device, Device, Activation, Device, Size, Device, Size, Value<int32_t>>(
      ctx, in, status, ctx.cudnn.cudnnNormalizationBackward, "cudnnNormalizationBackward");
}

// handle, stDesc, alpha, xDesc, x, grid, beta, yDesc, y
bool cudnnSpatialTfSamplerForward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, SpatialTransformer, Scalar, Tensor, Device, Device, Scalar, Tensor, Device>(
      ctx, in, status, ctx.cudnn.cudnnSpatialTfSamplerForward, "cudnnSpatialTfSamplerForward");
}

// handle, stDesc, alpha, xDesc, x, beta, dxDesc, dx, alphaDgrid, dyDesc, dy, grid, betaDgrid, dgrid
bool cudnnSpatialTfSamplerBackward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, SpatialTransformer, Scalar, Tensor, Device, Scalar, Tensor, Device, Scalar, Tensor,
                        Device, Device, Scalar, Device>(ctx, in, status, ctx.cudnn.cudnnSpatialTfSamplerBackward,
                                                        "cudnnSpatialTfSamplerBackward");
}

}  // namespace rgpu::server::handlers
