// Decoding of the hand-written cuDNN calls' arguments (common/wire/cudnn_args.h), in parameter
// order: handles resolved through the session's table, legacy descriptors built (or found) in
// the descriptor cache, alpha/beta copied into storage of their own. The handlers then make the
// call through call(), which refuses malformed input and reports a missing table entry.
//
//   cudnn::Args a(ctx, in);
//   cudnnHandle_t handle = a.handle();
//   const void* alpha = a.scalar();
//   ...
//   return a.call(status, ctx.cudnn.cudnnAddTensor, "cudnnAddTensor", handle, alpha, ...);
//
// Calls whose every argument goes straight to cuDNN name the kinds of their arguments instead:
//
//   using namespace cudnn::arg;
//   return cudnn::forward<Handle, Scalar, Tensor, Device, Scalar, Tensor, Device>(
//       ctx, in, status, ctx.cudnn.cudnnAddTensor, "cudnnAddTensor");
#pragma once

#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <tuple>

#include "common/wire/codec.h"
#include "common/wire/cudnn_args.h"
#include "server/session/call_context.h"

namespace rgpu::server::cudnn {

class DescriptorCache;

class Args {
 public:
  Args(CallContext& ctx, wire::Decoder& in);

  cudnnHandle_t handle();
  // A backend descriptor id (0 stays null).
  cudnnBackendDescriptor_t backend_descriptor();
  // Legacy descriptors: absent travels as null.
  cudnnTensorDescriptor_t tensor();
  cudnnFilterDescriptor_t filter();
  cudnnConvolutionDescriptor_t convolution();
  cudnnActivationDescriptor_t activation();
  // A legacy op's descriptor (pooling, LRN, RNN, dropout, CTC loss, ...): a client id of `kind` (0
  // stays null).
  template <typename T>
  T object(HandleKind kind) {
    const uint64_t id = in_.get<uint64_t>();
    T d{};
    if (HandleTable::is_builtin(id) ? id != 0 : !ctx_.handles.resolve(kind, id, &d)) fail(CUDNN_STATUS_BAD_PARAM);
    return d;
  }
  // alpha/beta (a float or double), or cudnnSetTensor's value (one element of its tensor's type:
  // 1, 2, 4 or 8 bytes): null, or the value held here until the call returns.
  const void* scalar();
  void* device() { return reinterpret_cast<void*>(static_cast<uintptr_t>(in_.get<uint64_t>())); }
  template <typename T>
  T value() {
    return in_.get<T>();
  }
  // An enum from 0 to `last`; another value fails the call with CUDNN_STATUS_BAD_PARAM (and
  // becomes 0: an out-of-range enum value is never made).
  template <typename E>
  E enumerated(E last) {
    const int32_t v = in_.get<int32_t>();
    if (wire::cudnn::in_range(v, last)) return static_cast<E>(v);
    fail(CUDNN_STATUS_BAD_PARAM);
    return E{};
  }
  wire::Decoder& in() { return in_; }

  // Whether the payload decoded exactly: false means malformed input (return false).
  bool complete() const { return in_.ok() && in_.at_end() && !malformed_; }
  // Why the call cannot be made (an unknown id, a descriptor cuDNN refused); SUCCESS otherwise.
  cudnnStatus_t status() const { return status_; }
  void fail(cudnnStatus_t status) {
    if (status_ == CUDNN_STATUS_SUCCESS) status_ = status;
  }

  // Calls fn(args...) into `status` unless the input is malformed (returns false), an argument
  // failed (its status), or the backend lacks fn (CUDNN_STATUS_NOT_SUPPORTED, logged once).
  template <typename Fn, typename... A>
  bool call(int32_t& status, Fn fn, const char* name, A... args) {
    if (!complete()) return false;
    if (status_ != CUDNN_STATUS_SUCCESS) {
      status = status_;
      return true;
    }
    if (!fn) {
      report_missing(name);
      status = CUDNN_STATUS_NOT_SUPPORTED;
      return true;
    }
    status = fn(args...);
    return true;
  }

 private:
  template <typename Record>
  bool record(Record* r);
  // A legacy descriptor: its record, then the cache's descriptor for it (`build`).
  template <typename Record, typename Desc>
  Desc descriptor(cudnnStatus_t (DescriptorCache::*build)(const gen::cudnn::Api&, const Record&, Desc*));
  static void report_missing(const char* name);

  CallContext& ctx_;
  wire::Decoder& in_;
  bool malformed_ = false;
  cudnnStatus_t status_ = CUDNN_STATUS_SUCCESS;
  static constexpr int kMaxScalars = 4;  // cudnnBatchNormalizationBackwardEx has four
  double scalars_[kMaxScalars] = {};
  int used_scalars_ = 0;
};

// The kinds of argument the hand-written calls send: each decodes one argument with Args.
namespace arg {
struct Handle {
  static cudnnHandle_t get(Args& a) { return a.handle(); }
};
struct Tensor {
  static cudnnTensorDescriptor_t get(Args& a) { return a.tensor(); }
};
struct Filter {
  static cudnnFilterDescriptor_t get(Args& a) { return a.filter(); }
};
struct Convolution {
  static cudnnConvolutionDescriptor_t get(Args& a) { return a.convolution(); }
};
struct Activation {
  static cudnnActivationDescriptor_t get(Args& a) { return a.activation(); }
};
// A legacy op's descriptor: a client id of kind K, a T on the server.
template <HandleKind K, typename T>
struct Object {
  static T get(Args& a) { return a.object<T>(K); }
};
using Pooling = Object<HandleKind::kCudnnPooling, cudnnPoolingDescriptor_t>;
using Lrn = Object<HandleKind::kCudnnLrn, cudnnLRNDescriptor_t>;
using OpTensor = Object<HandleKind::kCudnnOpTensor, cudnnOpTensorDescriptor_t>;
using ReduceTensor = Object<HandleKind::kCudnnReduceTensor, cudnnReduceTensorDescriptor_t>;
using SpatialTransformer = Object<HandleKind::kCudnnSpatialTransformer, cudnnSpatialTransformerDescriptor_t>;
using TensorTransform = Object<HandleKind::kCudnnTensorTransform, cudnnTensorTransformDescriptor_t>;
using Rnn = Object<HandleKind::kCudnnRnn, cudnnRNNDescriptor_t>;
using RnnData = Object<HandleKind::kCudnnRnnData, cudnnRNNDataDescriptor_t>;
using Dropout = Object<HandleKind::kCudnnDropout, cudnnDropoutDescriptor_t>;
using CtcLoss = Object<HandleKind::kCudnnCtcLoss, cudnnCTCLossDescriptor_t>;
using Attn = Object<HandleKind::kCudnnAttn, cudnnAttnDescriptor_t>;
using SeqData = Object<HandleKind::kCudnnSeqData, cudnnSeqDataDescriptor_t>;
// A CUDA graph of the same session (the runtime's ids).
using Graph = Object<HandleKind::kGraph, cudaGraph_t>;
// A backend (graph API) descriptor id.
struct BackendDescriptor {
  static cudnnBackendDescriptor_t get(Args& a) { return a.backend_descriptor(); }
};
// alpha or beta (or cudnnSetTensor's value).
struct Scalar {
  static const void* get(Args& a) { return a.scalar(); }
};
// A device pointer, read or written by the call.
struct Device {
  static void* get(Args& a) { return a.device(); }
};
// A device array of T (sequence lengths, labels).
template <typename T>
struct DeviceArray {
  static T* get(Args& a) { return static_cast<T*>(a.device()); }
};
// A size in bytes (u64 on the wire).
struct Size {
  static size_t get(Args& a) { return a.value<uint64_t>(); }
};
template <typename T>
struct Value {
  static T get(Args& a) { return a.value<T>(); }
};
// An enum from 0 to Last (see Args::enumerated).
template <auto Last>
struct Enum {
  static decltype(Last) get(Args& a) { return a.enumerated(Last); }
};
using BatchNormMode = Enum<CUDNN_BATCHNORM_SPATIAL_PERSISTENT>;
using BatchNormOps = Enum<CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION>;
using SoftmaxAlgorithm = Enum<CUDNN_SOFTMAX_LOG>;
using SoftmaxMode = Enum<CUDNN_SOFTMAX_MODE_CHANNEL>;
using NormMode = Enum<CUDNN_NORM_PER_CHANNEL>;
using NormOps = Enum<CUDNN_NORM_OPS_NORM_ADD_ACTIVATION>;
using NormAlgo = Enum<CUDNN_NORM_ALGO_PERSIST>;
}  // namespace arg

// One argument of each kind, decoded in order (a braced list is evaluated left to right).
template <typename... Kind>
auto decode(Args& a) {
  return std::tuple<decltype(Kind::get(a))...>{Kind::get(a)...};
}

// Calls fn with arguments of the given kinds, read from `in` (Args::call's rules).
template <typename... Kind, typename Fn>
bool forward(CallContext& ctx, wire::Decoder& in, int32_t& status, Fn fn, const char* name) {
  Args a(ctx, in);
  auto args = decode<Kind...>(a);
  return std::apply([&](auto... v) { return a.call(status, fn, name, v...); }, args);
}

// Calls `fn` with arguments of the given kinds and a Result written by the call; replies with it,
// as Wire, on success.
template <typename Result, typename Wire, typename... Kind, typename Fn>
bool result_query(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status, Fn fn, const char* name) {
  Args a(ctx, in);
  auto args = decode<Kind...>(a);
  Result result = 0;
  auto call = [&](auto... v) { return a.call(status, fn, name, v..., &result); };
  if (!std::apply(call, args)) return false;
  if (status == CUDNN_STATUS_SUCCESS) out.put<Wire>(result);
  return true;
}

// A size query: arguments of the given kinds, then the size_t* the reply carries as u64.
template <typename... Kind, typename Fn>
bool size_query(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status, Fn fn, const char* name) {
  return result_query<size_t, uint64_t, Kind...>(ctx, in, out, status, fn, name);
}

}  // namespace rgpu::server::cudnn
