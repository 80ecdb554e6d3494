// Hand-written handlers of the legacy API's queries (client/cudnn/legacy_queries.cpp): sizes
// answered as u64, algorithm lists as an i32 count and that many perf records.
#include <vector>

#include "common/wire/cudnn_args.h"
#include "gen/cudnn/cudnn_api.h"
#include "gen/cudnn/cudnn_handlers.h"
#include "server/session/cudnn_args.h"

namespace rgpu::server::handlers {
namespace {

// Calls `fn` with the decoded arguments and a size_t result; replies with it on success.
template <typename Fn, typename... A>
bool size_query(cudnn::Args& a, wire::Encoder& out, int32_t& status, Fn fn, const char* name, A... args) {
  size_t size = 0;
  if (!a.call(status, fn, name, args..., &size)) return false;
  if (status == CUDNN_STATUS_SUCCESS) out.put<uint64_t>(size);
  return true;
}

bool count_query(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status,
                 cudnnStatus_t (*fn)(cudnnHandle_t, int*), const char* name) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  int count = 0;
  if (!a.call(status, fn, name, handle, &count)) return false;
  if (status == CUDNN_STATUS_SUCCESS) out.put<int32_t>(count);
  return true;
}

// An algorithm list of at most `requested` (bounded) records: `call(perf, &returned)` makes the
// call (false: malformed input); on success the reply holds the records.
template <typename Perf, typename Call>
bool perf_query(wire::Encoder& out, int32_t& status, int requested, Call call) {
  if (requested < 0 || requested > wire::cudnn::kMaxAlgorithms) return false;
  std::vector<Perf> perf(requested > 0 ? requested : 1);
  int returned = 0;
  if (!call(perf.data(), &returned)) return false;
  if (status != CUDNN_STATUS_SUCCESS) return true;
  if (returned < 0 || returned > requested) returned = 0;  // never send more than was asked for
  out.put<int32_t>(returned);
  out.put_raw(perf.data(), sizeof(Perf) * static_cast<size_t>(returned));
  return true;
}

// The algorithm lists of one direction: (handle, its three descriptors and the convolution,
// requested count) in, perf records out. The heuristic (_v7) and measuring (Find) queries of a
// direction take the same arguments.
bool forward_algorithms(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status,
                        decltype(&::cudnnGetConvolutionForwardAlgorithm_v7) fn, const char* name) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  cudnnTensorDescriptor_t xDesc = a.tensor();
  cudnnFilterDescriptor_t wDesc = a.filter();
  cudnnConvolutionDescriptor_t convDesc = a.convolution();
  cudnnTensorDescriptor_t yDesc = a.tensor();
  int requested = a.value<int32_t>();
  return perf_query<cudnnConvolutionFwdAlgoPerf_t>(out, status, requested, [&](auto* perf, int* returned) {
    return a.call(status, fn, name, handle, xDesc, wDesc, convDesc, yDesc, requested, returned, perf);
  });
}

bool backward_data_algorithms(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status,
                              decltype(&::cudnnGetConvolutionBackwardDataAlgorithm_v7) fn, const char* name) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  cudnnFilterDescriptor_t wDesc = a.filter();
  cudnnTensorDescriptor_t dyDesc = a.tensor();
  cudnnConvolutionDescriptor_t convDesc = a.convolution();
  cudnnTensorDescriptor_t dxDesc = a.tensor();
  int requested = a.value<int32_t>();
  return perf_query<cudnnConvolutionBwdDataAlgoPerf_t>(out, status, requested, [&](auto* perf, int* returned) {
    return a.call(status, fn, name, handle, wDesc, dyDesc, convDesc, dxDesc, requested, returned, perf);
  });
}

bool backward_filter_algorithms(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status,
                                decltype(&::cudnnGetConvolutionBackwardFilterAlgorithm_v7) fn, const char* name) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  cudnnTensorDescriptor_t xDesc = a.tensor();
  cudnnTensorDescriptor_t dyDesc = a.tensor();
  cudnnConvolutionDescriptor_t convDesc = a.convolution();
  cudnnFilterDescriptor_t dwDesc = a.filter();
  int requested = a.value<int32_t>();
  return perf_query<cudnnConvolutionBwdFilterAlgoPerf_t>(out, status, requested, [&](auto* perf, int* returned) {
    return a.call(status, fn, name, handle, xDesc, dyDesc, convDesc, dwDesc, requested, returned, perf);
  });
}

}  // namespace

bool cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                              int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  auto mode = a.enumerated<cudnnBatchNormMode_t>(CUDNN_BATCHNORM_SPATIAL_PERSISTENT);
  auto ops = a.enumerated<cudnnBatchNormOps_t>(CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION);
  cudnnTensorDescriptor_t xDesc = a.tensor();
  cudnnTensorDescriptor_t zDesc = a.tensor();
  cudnnTensorDescriptor_t yDesc = a.tensor();
  cudnnTensorDescriptor_t bnDesc = a.tensor();
  cudnnActivationDescriptor_t activationDesc = a.activation();
  return size_query(a, out, status, ctx.cudnn.cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize,
                    "cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize", handle, mode, ops, xDesc, zDesc, yDesc,
                    bnDesc, activationDesc);
}

bool cudnnGetBatchNormalizationBackwardExWorkspaceSize(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                       int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  auto mode = a.enumerated<cudnnBatchNormMode_t>(CUDNN_BATCHNORM_SPATIAL_PERSISTENT);
  auto ops = a.enumerated<cudnnBatchNormOps_t>(CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION);
  cudnnTensorDescriptor_t xDesc = a.tensor();
  cudnnTensorDescriptor_t yDesc = a.tensor();
  cudnnTensorDescriptor_t dyDesc = a.tensor();
  cudnnTensorDescriptor_t dzDesc = a.tensor();
  cudnnTensorDescriptor_t dxDesc = a.tensor();
  cudnnTensorDescriptor_t bnDesc = a.tensor();
  cudnnActivationDescriptor_t activationDesc = a.activation();
  return size_query(a, out, status, ctx.cudnn.cudnnGetBatchNormalizationBackwardExWorkspaceSize,
                    "cudnnGetBatchNormalizationBackwardExWorkspaceSize", handle, mode, ops, xDesc, yDesc, dyDesc,
                    dzDesc, dxDesc, bnDesc, activationDesc);
}

bool cudnnGetBatchNormalizationTrainingExReserveSpaceSize(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                          int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  auto mode = a.enumerated<cudnnBatchNormMode_t>(CUDNN_BATCHNORM_SPATIAL_PERSISTENT);
  auto ops = a.enumerated<cudnnBatchNormOps_t>(CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION);
  cudnnActivationDescriptor_t activationDesc = a.activation();
  cudnnTensorDescriptor_t xDesc = a.tensor();
  return size_query(a, out, status, ctx.cudnn.cudnnGetBatchNormalizationTrainingExReserveSpaceSize,
                    "cudnnGetBatchNormalizationTrainingExReserveSpaceSize", handle, mode, ops, activationDesc, xDesc);
}

bool cudnnGetConvolutionForwardWorkspaceSize(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  cudnnTensorDescriptor_t xDesc = a.tensor();
  cudnnFilterDescriptor_t wDesc = a.filter();
  cudnnConvolutionDescriptor_t convDesc = a.convolution();
  cudnnTensorDescriptor_t yDesc = a.tensor();
  auto algo = a.enumerated<cudnnConvolutionFwdAlgo_t>(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  return size_query(a, out, status, ctx.cudnn.cudnnGetConvolutionForwardWorkspaceSize,
                    "cudnnGetConvolutionForwardWorkspaceSize", handle, xDesc, wDesc, convDesc, yDesc, algo);
}

bool cudnnGetConvolutionBackwardDataWorkspaceSize(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                  int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  cudnnFilterDescriptor_t wDesc = a.filter();
  cudnnTensorDescriptor_t dyDesc = a.tensor();
  cudnnConvolutionDescriptor_t convDesc = a.convolution();
  cudnnTensorDescriptor_t dxDesc = a.tensor();
  auto algo = a.enumerated<cudnnConvolutionBwdDataAlgo_t>(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
  return size_query(a, out, status, ctx.cudnn.cudnnGetConvolutionBackwardDataWorkspaceSize,
                    "cudnnGetConvolutionBackwardDataWorkspaceSize", handle, wDesc, dyDesc, convDesc, dxDesc, algo);
}

bool cudnnGetConvolutionBackwardFilterWorkspaceSize(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                    int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  cudnnTensorDescriptor_t xDesc = a.tensor();
  cudnnTensorDescriptor_t dyDesc = a.tensor();
  cudnnConvolutionDescriptor_t convDesc = a.convolution();
  cudnnFilterDescriptor_t dwDesc = a.filter();
  auto algo = a.enumerated<cudnnConvolutionBwdFilterAlgo_t>(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
  return size_query(a, out, status, ctx.cudnn.cudnnGetConvolutionBackwardFilterWorkspaceSize,
                    "cudnnGetConvolutionBackwardFilterWorkspaceSize", handle, xDesc, dyDesc, convDesc, dwDesc, algo);
}

bool cudnnGetConvolutionForwardAlgorithmMaxCount(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                 int32_t& status) {
  return count_query(ctx, in, out, status, ctx.cudnn.cudnnGetConvolutionForwardAlgorithmMaxCount,
                     "cudnnGetConvolutionForwardAlgorithmMaxCount");
}

bool cudnnGetConvolutionBackwardDataAlgorithmMaxCount(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                      int32_t& status) {
  return count_query(ctx, in, out, status, ctx.cudnn.cudnnGetConvolutionBackwardDataAlgorithmMaxCount,
                     "cudnnGetConvolutionBackwardDataAlgorithmMaxCount");
}

bool cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                        int32_t& status) {
  return count_query(ctx, in, out, status, ctx.cudnn.cudnnGetConvolutionBackwardFilterAlgorithmMaxCount,
                     "cudnnGetConvolutionBackwardFilterAlgorithmMaxCount");
}

bool cudnnGetConvolutionForwardAlgorithm_v7(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return forward_algorithms(ctx, in, out, status, ctx.cudnn.cudnnGetConvolutionForwardAlgorithm_v7,
                            "cudnnGetConvolutionForwardAlgorithm_v7");
}

bool cudnnFindConvolutionForwardAlgorithm(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return forward_algorithms(ctx, in, out, status, ctx.cudnn.cudnnFindConvolutionForwardAlgorithm,
                            "cudnnFindConvolutionForwardAlgorithm");
}

bool cudnnGetConvolutionBackwardDataAlgorithm_v7(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                 int32_t& status) {
  return backward_data_algorithms(ctx, in, out, status, ctx.cudnn.cudnnGetConvolutionBackwardDataAlgorithm_v7,
                                  "cudnnGetConvolutionBackwardDataAlgorithm_v7");
}

bool cudnnFindConvolutionBackwardDataAlgorithm(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                               int32_t& status) {
  return backward_data_algorithms(ctx, in, out, status, ctx.cudnn.cudnnFindConvolutionBackwardDataAlgorithm,
                                  "cudnnFindConvolutionBackwardDataAlgorithm");
}

bool cudnnGetConvolutionBackwardFilterAlgorithm_v7(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                   int32_t& status) {
  return backward_filter_algorithms(ctx, in, out, status, ctx.cudnn.cudnnGetConvolutionBackwardFilterAlgorithm_v7,
                                    "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
}

bool cudnnFindConvolutionBackwardFilterAlgorithm(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                 int32_t& status) {
  return backward_filter_algorithms(ctx, in, out, status, ctx.cudnn.cudnnFindConvolutionBackwardFilterAlgorithm,
                                    "cudnnFindConvolutionBackwardFilterAlgorithm");
}

bool cudnnFindConvolutionForwardAlgorithmEx(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  cudnnTensorDescriptor_t xDesc = a.tensor();
  const void* x = a.device();
  cudnnFilterDescriptor_t wDesc = a.filter();
  const void* w = a.device();
  cudnnConvolutionDescriptor_t convDesc = a.convolution();
  cudnnTensorDescriptor_t yDesc = a.tensor();
  void* y = a.device();
  int requested = a.value<int32_t>();
  void* workspace = a.device();
  size_t workspace_bytes = a.value<uint64_t>();
  return perf_query<cudnnConvolutionFwdAlgoPerf_t>(out, status, requested, [&](auto* perf, int* returned) {
    return a.call(status, ctx.cudnn.cudnnFindConvolutionForwardAlgorithmEx, "cudnnFindConvolutionForwardAlgorithmEx",
                  handle, xDesc, x, wDesc, w, convDesc, yDesc, y, requested, returned, perf, workspace,
                  workspace_bytes);
  });
}

bool cudnnFindConvolutionBackwardDataAlgorithmEx(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                 int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  cudnnFilterDescriptor_t wDesc = a.filter();
  const void* w = a.device();
  cudnnTensorDescriptor_t dyDesc = a.tensor();
  const void* dy = a.device();
  cudnnConvolutionDescriptor_t convDesc = a.convolution();
  cudnnTensorDescriptor_t dxDesc = a.tensor();
  void* dx = a.device();
  int requested = a.value<int32_t>();
  void* workspace = a.device();
  size_t workspace_bytes = a.value<uint64_t>();
  return perf_query<cudnnConvolutionBwdDataAlgoPerf_t>(out, status, requested, [&](auto* perf, int* returned) {
    return a.call(status, ctx.cudnn.cudnnFindConvolutionBackwardDataAlgorithmEx,
                  "cudnnFindConvolutionBackwardDataAlgorithmEx", handle, wDesc, w, dyDesc, dy, convDesc, dxDesc, dx,
                  requested, returned, perf, workspace, workspace_bytes);
  });
}

bool cudnnFindConvolutionBackwardFilterAlgorithmEx(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                   int32_t& status) {
  cudnn::Args a(ctx, in);
  cudnnHandle_t handle = a.handle();
  cudnnTensorDescriptor_t xDesc = a.tensor();
  const void* x = a.device();
  cudnnTensorDescriptor_t dyDesc = a.tensor();
  const void* dy = a.device();
  cudnnConvolutionDescriptor_t convDesc = a.convolution();
  cudnnFilterDescriptor_t dwDesc = a.filter();
  void* dw = a.device();
  int requested = a.value<int32_t>();
  void* workspace = a.device();
  size_t workspace_bytes = a.value<uint64_t>();
  return perf_query<cudnnConvolutionBwdFilterAlgoPerf_t>(out, status, requested, [&](auto* perf, int* returned) {
    return a.call(status, ctx.cudnn.cudnnFindConvolutionBackwardFilterAlgorithmEx,
                  "cudnnFindConvolutionBackwardFilterAlgorithmEx", handle, xDesc, x, dyDesc, dy, convDesc, dwDesc, dw,
                  requested, returned, perf, workspace, workspace_bytes);
  });
}

}  // namespace rgpu::server::handlers
