// Hand-written handlers of the RNN, dropout, CTC loss and multi-head attention calls that take
// legacy tensor descriptors or host arrays (client/cudnn/rnn_calls.cpp, dropout_calls.cpp,
// ctc_loss_calls.cpp, attention_calls.cpp write them): arguments read back in parameter order,
// RNN, RNN data, dropout, CTC loss, attention and sequence data descriptors as ids of their own
// kinds. Each handler lists its arguments' kinds; the comment above it names them.
#include <cstring>
#include <span>
#include <tuple>
#include <vector>

#include "common/wire/cudnn_args.h"
#include "gen/cudnn/cudnn_api.h"
#include "gen/cudnn/cudnn_handlers.h"
#include "server/session/cudnn_args.h"

namespace rgpu::server::handlers {
using namespace cudnn::arg;
using cudnn::size_query;

namespace {

using ForwardMode = Enum<CUDNN_FWD_MODE_TRAINING>;
using CtcAlgo = Enum<CUDNN_CTC_LOSS_ALGO_NON_DETERMINISTIC>;

// The record of a tensor descriptor cuDNN wrote (no dimensions where it could not be read).
wire::cudnn::TensorRecord read_back(const gen::cudnn::Api& api, cudnnTensorDescriptor_t d) {
  wire::cudnn::TensorRecord r{};
  cudnnDataType_t type{};
  if (api.cudnnGetTensorNdDescriptor(d, wire::cudnn::kMaxDims, &type, &r.nb_dims, r.dims, r.strides) !=
          CUDNN_STATUS_SUCCESS ||
      r.nb_dims < 0 || r.nb_dims > wire::cudnn::kMaxDims)
    return {};
  r.data_type = type;
  return r;
}

// Whether the backend can make, read back and free the tensor descriptors cuDNN fills.
cudnnStatus_t can_fill_tensors(const gen::cudnn::Api& api) {
  const bool can = api.cudnnCreateTensorDescriptor && api.cudnnDestroyTensorDescriptor && api.cudnnGetTensorNdDescriptor;
  return can ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_NOT_SUPPORTED;
}

// A tensor descriptor of the server's own for cuDNN to fill, if the client passed one.
struct FilledTensor {
  const gen::cudnn::Api& api;
  cudnnTensorDescriptor_t desc = nullptr;
  FilledTensor(const gen::cudnn::Api& a, bool wanted, cudnnStatus_t* status) : api(a) {
    if (wanted && *status == CUDNN_STATUS_SUCCESS) *status = api.cudnnCreateTensorDescriptor(&desc);
  }
  ~FilledTensor() {
    if (desc) api.cudnnDestroyTensorDescriptor(desc);
  }
  FilledTensor(const FilledTensor&) = delete;
  FilledTensor& operator=(const FilledTensor&) = delete;
};

// A host array of ints that travelled as bytes (absent: null).
struct HostInts {
  std::vector<int> values;
  bool present = false;
  bool read(wire::Decoder& in) {
    std::span<const uint8_t> b = in.get_bytes(&present);
    if (b.size() % sizeof(int) != 0) return false;
    values.resize(b.size() / sizeof(int));
    if (!b.empty()) std::memcpy(values.data(), b.data(), b.size());
    return in.ok();
  }
  const int* data() const { return present ? values.data() : nullptr; }
};

// The v7 CTC loss's host arrays, checked against the probabilities (T x N x A): N label and input
// lengths, as many labels as the lengths add up to. cuDNN reads that much of each; a shorter
// array fails the call with CUDNN_STATUS_BAD_PARAM.
struct CtcHostArrays {
  HostInts labels, label_lengths, input_lengths;
  bool read(wire::Decoder& in) { return labels.read(in) && label_lengths.read(in) && input_lengths.read(in); }
  cudnnStatus_t check(const gen::cudnn::Api& api, cudnnTensorDescriptor_t probs) const {
    if (!probs || !labels.present || !label_lengths.present || !input_lengths.present) return CUDNN_STATUS_BAD_PARAM;
    if (!api.cudnnGetTensorNdDescriptor) return CUDNN_STATUS_NOT_SUPPORTED;
    const wire::cudnn::TensorRecord r = read_back(api, probs);
    if (r.nb_dims != 3) return CUDNN_STATUS_BAD_PARAM;
    const size_t batch = static_cast<size_t>(r.dims[1]);
    if (label_lengths.values.size() < batch || input_lengths.values.size() < batch) return CUDNN_STATUS_BAD_PARAM;
    size_t total = 0;
    for (size_t i = 0; i < batch; ++i) {
      if (label_lengths.values[i] < 0) return CUDNN_STATUS_BAD_PARAM;
      total += static_cast<size_t>(label_lengths.values[i]);
    }
    return labels.values.size() < total ? CUDNN_STATUS_BAD_PARAM : CUDNN_STATUS_SUCCESS;
  }
};

// Attention's window arrays (absent or one index per Q time step: cuDNN reads the descriptor's
// qoMaxSeqLength of each); shorter ones fail the call with CUDNN_STATUS_BAD_PARAM.
struct AttnWindows {
  HostInts lo, hi;
  bool read(wire::Decoder& in) { return lo.read(in) && hi.read(in); }
  cudnnStatus_t check(const gen::cudnn::Api& api, cudnnAttnDescriptor_t attn) const {
    if (!lo.present && !hi.present) return CUDNN_STATUS_SUCCESS;
    if (!attn) return CUDNN_STATUS_BAD_PARAM;
    if (!api.cudnnGetAttnDescriptor) return CUDNN_STATUS_NOT_SUPPORTED;
    unsigned mode;
    int heads, sizes[7], q_length, kv_length, batch, beam;
    double scaler;
    cudnnDataType_t type, prec;
    cudnnMathType_t math;
    cudnnDropoutDescriptor_t d1, d2;
    cudnnStatus_t s = api.cudnnGetAttnDescriptor(attn, &mode, &heads, &scaler, &type, &prec, &math, &d1, &d2, &sizes[0],
                                                 &sizes[1], &sizes[2], &sizes[3], &sizes[4], &sizes[5], &sizes[6],
                                                 &q_length, &kv_length, &batch, &beam);
    if (s != CUDNN_STATUS_SUCCESS) return s;
    const size_t need = q_length > 0 ? static_cast<size_t>(q_length) : 0;
    if ((lo.present && lo.values.size() < need) || (hi.present && hi.values.size() < need))
      return CUDNN_STATUS_BAD_PARAM;
    return CUDNN_STATUS_SUCCESS;
  }
};

}  // namespace

// handle, rnnDesc, pseudoLayer, weightSpaceSize, weightSpace, linLayerID, then whether the caller
// passed mDesc, mAddr, bDesc, bAddr (u8 each). Reply: for each passed, its record or address.
bool cudnnGetRNNWeightParams(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  cudnn::Args a(ctx, in);
  auto [handle, rnn, layer, space_size, space, lin] =
      cudnn::decode<Handle, Rnn, Value<int32_t>, Size, Device, Value<int32_t>>(a);
  const uint8_t m_desc = a.value<uint8_t>(), m_addr = a.value<uint8_t>();
  const uint8_t b_desc = a.value<uint8_t>(), b_addr = a.value<uint8_t>();
  if (m_desc > 1 || m_addr > 1 || b_desc > 1 || b_addr > 1) return false;
  const gen::cudnn::Api& api = ctx.cudnn;
  cudnnStatus_t made = can_fill_tensors(api);
  FilledTensor m(api, m_desc, &made), b(api, b_desc, &made);
  if (made != CUDNN_STATUS_SUCCESS) a.fail(made);
  void *m_ptr = nullptr, *b_ptr = nullptr;
  if (!a.call(status, api.cudnnGetRNNWeightParams, "cudnnGetRNNWeightParams", handle, rnn, layer, space_size, space,
              lin, m.desc, m_addr ? &m_ptr : nullptr, b.desc, b_addr ? &b_ptr : nullptr))
    return false;
  if (status != CUDNN_STATUS_SUCCESS) return true;
  if (m_desc) out.put(read_back(api, m.desc));
  if (m_addr) out.put<uint64_t>(reinterpret_cast<uintptr_t>(m_ptr));
  if (b_desc) out.put(read_back(api, b.desc));
  if (b_addr) out.put<uint64_t>(reinterpret_cast<uintptr_t>(b_ptr));
  return true;
}

// handle, rnnDesc, fwdMode, devSeqLengths, xDesc, x, yDesc, y, hDesc, hx, hy, cDesc, cx, cy,
// weightSpaceSize, weightSpace, workSpaceSize, workSpace, reserveSpaceSize, reserveSpace
bool cudnnRNNForward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Rnn, ForwardMode, DeviceArray<int32_t>, RnnData, Device, RnnData, Device, Tensor,
                        Device, Device, Tensor, Device, Device, Size, Device, Size, Device, Size, Device>(
      ctx, in, status, ctx.cudnn.cudnnRNNForward, "cudnnRNNForward");
}

// handle, rnnDesc, devSeqLengths, yDesc, y, dy, xDesc, dx, hDesc, hx, dhy, dhx, cDesc, cx, dcy,
// dcx, weightSpaceSize, weightSpace, workSpaceSize, workSpace, reserveSpaceSize, reserveSpace
bool cudnnRNNBackwardData_v8(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Rnn, DeviceArray<int32_t>, RnnData, Device, Device, RnnData, Device, Tensor, Device,
                        Device, Device, Tensor, Device, Device, Device, Size, Device, Size, Device, Size, Device>(
      ctx, in, status, ctx.cudnn.cudnnRNNBackwardData_v8, "cudnnRNNBackwardData_v8");
}

// handle, rnnDesc, addGrad, devSeqLengths, xDesc, x, hDesc, hx, yDesc, y, weightSpaceSize,
// dweightSpace, workSpaceSize, workSpace, reserveSpaceSize, reserveSpace
bool cudnnRNNBackwardWeights_v8(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Rnn, Enum<CUDNN_WGRAD_MODE_SET>, DeviceArray<int32_t>, RnnData, Device, Tensor, Device,
                        RnnData, Device, Size, Device, Size, Device, Size, Device>(
      ctx, in, status, ctx.cudnn.cudnnRNNBackwardWeights_v8, "cudnnRNNBackwardWeights_v8");
}

// xdesc
bool cudnnDropoutGetReserveSpaceSize(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return size_query<Tensor>(ctx, in, out, status, ctx.cudnn.cudnnDropoutGetReserveSpaceSize,
                            "cudnnDropoutGetReserveSpaceSize");
}

// handle, dropoutDesc, xdesc, x, ydesc, y, reserveSpace, reserveSpaceSizeInBytes
bool cudnnDropoutForward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Dropout, Tensor, Device, Tensor, Device, Device, Size>(
      ctx, in, status, ctx.cudnn.cudnnDropoutForward, "cudnnDropoutForward");
}

// handle, dropoutDesc, dydesc, dy, dxdesc, dx, reserveSpace, reserveSpaceSizeInBytes
bool cudnnDropoutBackward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, Dropout, Tensor, Device, Tensor, Device, Device, Size>(
      ctx, in, status, ctx.cudnn.cudnnDropoutBackward, "cudnnDropoutBackward");
}

// handle, probsDesc, gradientsDesc, labels, labelLengths, inputLengths (host arrays), algo,
// ctcLossDesc
bool cudnnGetCTCLossWorkspaceSize(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  cudnn::Args a(ctx, in);
  auto [handle, probs, gradients] = cudnn::decode<Handle, Tensor, Tensor>(a);
  CtcHostArrays host;
  if (!host.read(a.in())) return false;
  auto [algo, ctc] = cudnn::decode<CtcAlgo, CtcLoss>(a);
  if (a.complete() && a.status() == CUDNN_STATUS_SUCCESS) a.fail(host.check(ctx.cudnn, probs));
  size_t size = 0;
  if (!a.call(status, ctx.cudnn.cudnnGetCTCLossWorkspaceSize, "cudnnGetCTCLossWorkspaceSize", handle, probs,
              gradients, host.labels.data(), host.label_lengths.data(), host.input_lengths.data(), algo, ctc, &size))
    return false;
  if (status == CUDNN_STATUS_SUCCESS) out.put<uint64_t>(size);
  return true;
}

// handle, algo, ctcLossDesc, probsDesc, gradientsDesc
bool cudnnGetCTCLossWorkspaceSize_v8(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return size_query<Handle, CtcAlgo, CtcLoss, Tensor, Tensor>(ctx, in, out, status,
                                                              ctx.cudnn.cudnnGetCTCLossWorkspaceSize_v8,
                                                              "cudnnGetCTCLossWorkspaceSize_v8");
}

// handle, probsDesc, probs, labels, labelLengths, inputLengths (host arrays), costs,
// gradientsDesc, gradients, algo, ctcLossDesc, workspace, workSpaceSizeInBytes
bool cudnnCTCLoss(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  cudnn::Args a(ctx, in);
  auto [handle, probs_desc, probs] = cudnn::decode<Handle, Tensor, Device>(a);
  CtcHostArrays host;
  if (!host.read(a.in())) return false;
  auto [costs, gradients_desc, gradients, algo, ctc, workspace, workspace_size] =
      cudnn::decode<Device, Tensor, Device, CtcAlgo, CtcLoss, Device, Size>(a);
  if (a.complete() && a.status() == CUDNN_STATUS_SUCCESS) a.fail(host.check(ctx.cudnn, probs_desc));
  return a.call(status, ctx.cudnn.cudnnCTCLoss, "cudnnCTCLoss", handle, probs_desc, probs, host.labels.data(),
                host.label_lengths.data(), host.input_lengths.data(), costs, gradients_desc, gradients, algo, ctc,
                workspace, workspace_size);
}

// handle, algo, ctcLossDesc, probsDesc, probs, labels, labelLengths, inputLengths (device
// arrays), costs, gradientsDesc, gradients, workSpaceSizeInBytes, workspace
bool cudnnCTCLoss_v8(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  return cudnn::forward<Handle, CtcAlgo, CtcLoss, Tensor, Device, DeviceArray<int>, DeviceArray<int>,
                        DeviceArray<int>, Device, Tensor, Device, Size, Device>(ctx, in, status,
                                                                                ctx.cudnn.cudnnCTCLoss_v8,
                                                                                "cudnnCTCLoss_v8");
}

// handle, attnDesc, wKind, weightSizeInBytes, weights, then whether the caller passed wDesc,
// wAddr (u8 each). Reply: for each passed, its record or address.
bool cudnnGetMultiHeadAttnWeights(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  cudnn::Args a(ctx, in);
  auto [handle, attn, kind, size, weights] = cudnn::decode<Handle, Attn, Enum<CUDNN_MH_ATTN_O_BIASES>, Size, Device>(a);
  const uint8_t w_desc = a.value<uint8_t>(), w_addr = a.value<uint8_t>();
  if (w_desc > 1 || w_addr > 1) return false;
  const gen::cudnn::Api& api = ctx.cudnn;
  cudnnStatus_t made = can_fill_tensors(api);
  FilledTensor w(api, w_desc, &made);
  if (made != CUDNN_STATUS_SUCCESS) a.fail(made);
  void* w_ptr = nullptr;
  if (!a.call(status, api.cudnnGetMultiHeadAttnWeights, "cudnnGetMultiHeadAttnWeights", handle, attn, kind, size,
              weights, w.desc, w_addr ? &w_ptr : nullptr))
    return false;
  if (status != CUDNN_STATUS_SUCCESS) return true;
  if (w_desc) out.put(read_back(api, w.desc));
  if (w_addr) out.put<uint64_t>(reinterpret_cast<uintptr_t>(w_ptr));
  return true;
}

// handle, attnDesc, currIdx, loWinIdx, hiWinIdx (host arrays), devSeqLengthsQO, devSeqLengthsKV,
// qDesc, queries, residuals, kDesc, keys, vDesc, values, oDesc, out, weightSizeInBytes, weights,
// workSpaceSizeInBytes, workSpace, reserveSpaceSizeInBytes, reserveSpace
bool cudnnMultiHeadAttnForward(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  cudnn::Args a(ctx, in);
  auto head = cudnn::decode<Handle, Attn, Value<int32_t>>(a);
  AttnWindows windows;
  if (!windows.read(a.in())) return false;
  auto rest = cudnn::decode<DeviceArray<int>, DeviceArray<int>, SeqData, Device, Device, SeqData, Device, SeqData,
                            Device, SeqData, Device, Size, Device, Size, Device, Size, Device>(a);
  if (a.complete() && a.status() == CUDNN_STATUS_SUCCESS) a.fail(windows.check(ctx.cudnn, std::get<1>(head)));
  auto call = [&](auto... v) {
    return a.call(status, ctx.cudnn.cudnnMultiHeadAttnForward, "cudnnMultiHeadAttnForward", v...);
  };
  return std::apply(call, std::tuple_cat(head, std::tuple(windows.lo.data(), windows.hi.data()), rest));
}

// handle, attnDesc, loWinIdx, hiWinIdx (host arrays), devSeqLengthsDQDO, devSeqLengthsDKDV, doDesc,
// dout, dqDesc, dqueries, queries, dkDesc, dkeys, keys, dvDesc, dvalues, values, weightSizeInBytes,
// weights, workSpaceSizeInBytes, workSpace, reserveSpaceSizeInBytes, reserveSpace
bool cudnnMultiHeadAttnBackwardData(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  cudnn::Args a(ctx, in);
  auto head = cudnn::decode<Handle, Attn>(a);
  AttnWindows windows;
  if (!windows.read(a.in())) return false;
  auto rest = cudnn::decode<DeviceArray<int>, DeviceArray<int>, SeqData, Device, SeqData, Device, Device, SeqData,
                            Device, Device, SeqData, Device, Device, Size, Device, Size, Device, Size, Device>(a);
  if (a.complete() && a.status() == CUDNN_STATUS_SUCCESS) a.fail(windows.check(ctx.cudnn, std::get<1>(head)));
  auto call = [&](auto... v) {
    return a.call(status, ctx.cudnn.cudnnMultiHeadAttnBackwardData, "cudnnMultiHeadAttnBackwardData", v...);
  };
  return std::apply(call, std::tuple_cat(head, std::tuple(windows.lo.data(), windows.hi.data()), rest));
}

}  // namespace rgpu::server::handlers
