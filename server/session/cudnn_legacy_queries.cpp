// Hand-written handlers of the legacy API's queries (client/cudnn/legacy_queries.cpp): sizes
// answered as u64, algorithm lists as an i32 count and that many perf records. Each handler lists
// its arguments' kinds (server/session/cudnn_args.h); the comment above it names them.
#include <tuple>
#include <vector>

#include "common/wire/cudnn_args.h"
#include "gen/cudnn/cudnn_api.h"
#include "gen/cudnn/cudnn_handlers.h"
#include "server/session/cudnn_args.h"

namespace rgpu::server::handlers {
using namespace cudnn::arg;
using cudnn::result_query;
using cudnn::size_query;

namespace {

bool count_query(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status,
                 cudnnStatus_t (*fn)(cudnnHandle_t, int*), const char* name) {
  return result_query<int, int32_t, Handle>(ctx, in, out, status, fn, name);
}

// The arguments an algorithm query takes after the requested count: Find*Ex's workspace and its
// size, or none.
template <typename... Kind>
struct After {
  static auto decode(cudnn::Args& a) { return cudnn::decode<Kind...>(a); }
};
using NoWorkspace = After<>;
using Workspace = After<Device, Size>;

// An algorithm list: arguments of kinds Before, the requested count (at most kMaxAlgorithms),
// arguments of the kinds in Tail; fn(before..., requested, &returned, perf, after...) fills at
// most `requested` perf records, and on success the reply holds them.
template <typename Perf, typename Tail, typename... Before, typename Fn>
bool perf_query(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status, Fn fn, const char* name) {
  cudnn::Args a(ctx, in);
  auto before = cudnn::decode<Before...>(a);
  int requested = a.value<int32_t>();
  auto after = Tail::decode(a);
  if (requested < 0 || requested > wire::cudnn::kMaxAlgorithms) return false;
  std::vector<Perf> perf(requested > 0 ? requested : 1);
  int returned = 0;
  auto call = [&](auto... v) { return a.call(status, fn, name, v...); };
  if (!std::apply(call, std::tuple_cat(before, std::tuple(requested, &returned, perf.data()), after))) return false;
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
  return perf_query<cudnnConvolutionFwdAlgoPerf_t, NoWorkspace, Handle, Tensor, Filter, Convolution, Tensor>(
      ctx, in, out, status, fn, name);
}

bool backward_data_algorithms(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status,
                              decltype(&::cudnnGetConvolutionBackwardDataAlgorithm_v7) fn, const char* name) {
  return perf_query<cudnnConvolutionBwdDataAlgoPerf_t, NoWorkspace, Handle, Filter, Tensor, Convolution, Tensor>(
      ctx, in, out, status, fn, name);
}

bool backward_filter_algorithms(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status,
                                decltype(&::cudnnGetConvolutionBackwardFilterAlgorithm_v7) fn, const char* name) {
  return perf_query<cudnnConvolutionBwdFilterAlgoPerf_t, NoWorkspace, Handle, Tensor, Tensor, Convolution, Filter>(
      ctx, in, out, status, fn, name);
}

}  // namespace

// handle, mode, ops, xDesc, zDesc, yDesc, bnDesc, activationDesc
bool cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                              int32_t& status) {
  return size_query<Handle, BatchNormMode, BatchNormOps, Tensor, Tensor, Tensor, Tensor, Activation>(
      ctx, in, out, status, ctx.cudnn.cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize,
      "cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize");
}

// handle, mode, ops, xDesc, yDesc, dyDesc, dzDesc, dxDesc, bnDesc, activationDesc
bool cudnnGetBatchNormalizationBackwardExWorkspaceSize(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                       int32_t& status) {
  return size_query<Handle, BatchNormMode, BatchNormOps, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Activation>(
      ctx, in, out, status, ctx.cudnn.cudnnGetBatchNormalizationBackwardExWorkspaceSize,
      "cudnnGetBatchNormalizationBackwardExWorkspaceSize");
}

// handle, mode, ops, activationDesc, xDesc
bool cudnnGetBatchNormalizationTrainingExReserveSpaceSize(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                          int32_t& status) {
  return size_query<Handle, BatchNormMode, BatchNormOps, Activation, Tensor>(
      ctx, in, out, status, ctx.cudnn.cudnnGetBatchNormalizationTrainingExReserveSpaceSize,
      "cudnnGetBatchNormalizationTrainingExReserveSpaceSize");
}

// handle, xDesc, wDesc, convDesc, yDesc, algo
bool cudnnGetConvolutionForwardWorkspaceSize(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return size_query<Handle, Tensor, Filter, Convolution, Tensor, Enum<CUDNN_CONVOLUTION_FWD_ALGO_COUNT>>(
      ctx, in, out, status, ctx.cudnn.cudnnGetConvolutionForwardWorkspaceSize,
      "cudnnGetConvolutionForwardWorkspaceSize");
}

// handle, wDesc, dyDesc, convDesc, dxDesc, algo
bool cudnnGetConvolutionBackwardDataWorkspaceSize(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                  int32_t& status) {
  return size_query<Handle, Filter, Tensor, Convolution, Tensor, Enum<CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT>>(
      ctx, in, out, status, ctx.cudnn.cudnnGetConvolutionBackwardDataWorkspaceSize,
      "cudnnGetConvolutionBackwardDataWorkspaceSize");
}

// handle, xDesc, dyDesc, convDesc, dwDesc, algo
bool cudnnGetConvolutionBackwardFilterWorkspaceSize(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                    int32_t& status) {
  return size_query<Handle, Tensor, Tensor, Convolution, Filter, Enum<CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT>>(
      ctx, in, out, status, ctx.cudnn.cudnnGetConvolutionBackwardFilterWorkspaceSize,
      "cudnnGetConvolutionBackwardFilterWorkspaceSize");
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

// handle, xDesc, x, wDesc, w, convDesc, yDesc, y, requested, workspace, workspace_bytes
bool cudnnFindConvolutionForwardAlgorithmEx(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return perf_query<cudnnConvolutionFwdAlgoPerf_t, Workspace, Handle, Tensor, Device, Filter, Device, Convolution,
                    Tensor, Device>(ctx, in, out, status, ctx.cudnn.cudnnFindConvolutionForwardAlgorithmEx,
                                    "cudnnFindConvolutionForwardAlgorithmEx");
}

// handle, wDesc, w, dyDesc, dy, convDesc, dxDesc, dx, requested, workspace, workspace_bytes
bool cudnnFindConvolutionBackwardDataAlgorithmEx(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                 int32_t& status) {
  return perf_query<cudnnConvolutionBwdDataAlgoPerf_t, Workspace, Handle, Filter, Device, Tensor, Device, Convolution,
                    Tensor, Device>(ctx, in, out, status, ctx.cudnn.cudnnFindConvolutionBackwardDataAlgorithmEx,
                                    "cudnnFindConvolutionBackwardDataAlgorithmEx");
}

// handle, xDesc, x, dyDesc, dy, convDesc, dwDesc, dw, requested, workspace, workspace_bytes
bool cudnnFindConvolutionBackwardFilterAlgorithmEx(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                   int32_t& status) {
  return perf_query<cudnnConvolutionBwdFilterAlgoPerf_t, Workspace, Handle, Tensor, Device, Tensor, Device, Convolution,
                    Filter, Device>(ctx, in, out, status, ctx.cudnn.cudnnFindConvolutionBackwardFilterAlgorithmEx,
                                    "cudnnFindConvolutionBackwardFilterAlgorithmEx");
}

}  // namespace rgpu::server::handlers
