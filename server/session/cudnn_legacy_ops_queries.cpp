// Hand-written handlers of the legacy ops' queries (client/cudnn/legacy_ops_queries.cpp): sizes
// answered as u64, pooling output dimensions as i32s. Each lists its arguments' kinds
// (cudnn_args.h); the comment above it names them.
#include <tuple>

#include "common/wire/cudnn_args.h"
#include "gen/cudnn/cudnn_api.h"
#include "gen/cudnn/cudnn_handlers.h"
#include "server/session/cudnn_args.h"

namespace rgpu::server::handlers {
using namespace cudnn::arg;

namespace {

// The arguments a size query takes after its size: normalization's group count, or none.
template <typename... Kind>
struct Then {
  static auto decode(cudnn::Args& a) { return cudnn::decode<Kind...>(a); }
};
using GroupCount = Then<Value<int32_t>>;
using Nothing = Then<>;

// fn(arguments of the given kinds..., &size, arguments of the kinds in After...); replies with the
// size.
template <typename After, typename... Kind, typename Fn>
bool size_query(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status, Fn fn, const char* name) {
  cudnn::Args a(ctx, in);
  auto before = cudnn::decode<Kind...>(a);
  auto after = After::decode(a);
  size_t size = 0;
  auto call = [&](auto... v) { return a.call(status, fn, name, v...); };
  if (!std::apply(call, std::tuple_cat(before, std::tuple(&size), after))) return false;
  if (status == CUDNN_STATUS_SUCCESS) out.put<uint64_t>(size);
  return true;
}

// Pooling's output dimensions: `call(dims)` makes the call (false: malformed input), and on
// success the reply carries the first `nb` of dims as i32s.
template <typename Call>
bool pooling_dims(wire::Encoder& out, int32_t& status, int nb, Call call) {
  int dims[wire::cudnn::kMaxDims] = {};
  if (!call(dims)) return false;
  if (status == CUDNN_STATUS_SUCCESS) {
    for (int i = 0; i < nb; ++i) out.put<int32_t>(dims[i]);
  }
  return true;
}

}  // namespace

// poolingDesc, inputTensorDesc -> 4 i32 dimensions
bool cudnnGetPooling2dForwardOutputDim(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  cudnn::Args a(ctx, in);
  auto [pooling, input] = cudnn::decode<Pooling, Tensor>(a);
  return pooling_dims(out, status, 4, [&](int* d) {
    return a.call(status, ctx.cudnn.cudnnGetPooling2dForwardOutputDim, "cudnnGetPooling2dForwardOutputDim", pooling,
                  input, &d[0], &d[1], &d[2], &d[3]);
  });
}

// poolingDesc, inputTensorDesc, nbDims (1..kMaxDims) -> nbDims i32 dimensions
bool cudnnGetPoolingNdForwardOutputDim(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  cudnn::Args a(ctx, in);
  auto [pooling, input, nb] = cudnn::decode<Pooling, Tensor, Value<int32_t>>(a);
  if (nb < 1 || nb > wire::cudnn::kMaxDims) return false;
  return pooling_dims(out, status, nb, [&](int* d) {
    return a.call(status, ctx.cudnn.cudnnGetPoolingNdForwardOutputDim, "cudnnGetPoolingNdForwardOutputDim", pooling,
                  input, nb, d);
  });
}

// handle, reduceTensorDesc, aDesc, cDesc
bool cudnnGetReductionIndicesSize(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return size_query<Nothing, Handle, ReduceTensor, Tensor, Tensor>(ctx, in, out, status,
                                                                   ctx.cudnn.cudnnGetReductionIndicesSize,
                                                                   "cudnnGetReductionIndicesSize");
}

// handle, reduceTensorDesc, aDesc, cDesc
bool cudnnGetReductionWorkspaceSize(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return size_query<Nothing, Handle, ReduceTensor, Tensor, Tensor>(ctx, in, out, status,
                                                                   ctx.cudnn.cudnnGetReductionWorkspaceSize,
                                                                   "cudnnGetReductionWorkspaceSize");
}

// handle, mode, ops, algo, xDesc, zDesc, yDesc, scaleBiasDesc, activationDesc, meanVarDesc, groupCnt
bool cudnnGetNormalizationForwardTrainingWorkspaceSize(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                       int32_t& status) {
  return size_query<GroupCount, Handle, NormMode, NormOps, NormAlgo, Tensor, Tensor, Tensor, Tensor, Activation,
                    Tensor>(ctx, in, out, status, ctx.cudnn.cudnnGetNormalizationForwardTrainingWorkspaceSize,
                            "cudnnGetNormalizationForwardTrainingWorkspaceSize");
}

// handle, mode, ops, algo, xDesc, yDesc, dyDesc, dzDesc, dxDesc, dScaleBiasDesc, activationDesc,
// meanVarDesc, groupCnt
bool cudnnGetNormalizationBackwardWorkspaceSize(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                int32_t& status) {
  return size_query<GroupCount, Handle, NormMode, NormOps, NormAlgo, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor,
                    Activation, Tensor>(ctx, in, out, status, ctx.cudnn.cudnnGetNormalizationBackwardWorkspaceSize,
                                        "cudnnGetNormalizationBackwardWorkspaceSize");
}

// handle, mode, ops, algo, activationDesc, xDesc, groupCnt
bool cudnnGetNormalizationTrainingReserveSpaceSize(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                   int32_t& status) {
  return size_query<GroupCount, Handle, NormMode, NormOps, NormAlgo, Activation, Tensor>(
      ctx, in, out, status, ctx.cudnn.cudnnGetNormalizationTrainingReserveSpaceSize,
      "cudnnGetNormalizationTrainingReserveSpaceSize");
}

}  // namespace rgpu::server::handlers
