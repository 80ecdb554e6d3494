// How a hand-written cuDNN call travels: its arguments in wire order (common/wire/cudnn_args.h)
// through the runtime's call pipe. Legacy descriptors go by content, alpha/beta by value.
//
//   LegacyCall call(k_cudnnAddTensor, CallClass::kAsync);
//   call.handle(handle).scalar(alpha, cDesc).tensor(aDesc).device(A)...;
//   return call.post();
#pragma once

#include <cudnn.h>

#include <cstdint>
#include <vector>

#include "client/runtime/call.h"
#include "common/wire/cudnn_args.h"
#include "codegen/support/gen_marshal.h"

namespace rgpu::client::cudnn {

class LegacyCall {
 public:
  LegacyCall(uint32_t id, CallClass cls) : id_(id), call_(id, cls) {}

  LegacyCall& handle(cudnnHandle_t h);
  // A descriptor that is a client-chosen id (RNN, RNN data, dropout, CTC loss, attention,
  // sequence data): its id, 0 for null.
  template <typename Descriptor>
  LegacyCall& id(Descriptor d) {
    call_.args().put<uint64_t>(gen::handle_id(d));
    return *this;
  }
  // A null descriptor travels as absent (the server passes null); one never set fails the call
  // here with CUDNN_STATUS_BAD_PARAM.
  LegacyCall& tensor(cudnnTensorDescriptor_t d);
  LegacyCall& filter(cudnnFilterDescriptor_t d);
  LegacyCall& convolution(cudnnConvolutionDescriptor_t d);
  LegacyCall& activation(cudnnActivationDescriptor_t d);
  // A legacy op's descriptor (pooling, LRN, ...): the client id the generated Create made.
  template <typename H>
  LegacyCall& object(H h) {
    call_.args().put<uint64_t>(reinterpret_cast<uintptr_t>(h));
    return *this;
  }
  // alpha/beta: a double when `like` describes doubles, else a float (cuDNN's rule).
  LegacyCall& scalar(const void* p, cudnnTensorDescriptor_t like);
  LegacyCall& scalar(const void* p, cudnnFilterDescriptor_t like);
  // One element of `like`'s data type (cudnnSetTensor's value); a type of unknown size fails the
  // call with CUDNN_STATUS_BAD_PARAM.
  LegacyCall& element(const void* p, cudnnTensorDescriptor_t like);
  LegacyCall& device(const void* p);
  // Length-prefixed bytes (null travels as absent).
  LegacyCall& bytes(const void* p, size_t n) {
    call_.args().put_bytes(p, n);
    return *this;
  }
  template <typename T>
  LegacyCall& value(T v) {
    call_.args().put(v);
    return *this;
  }

  // Sends without waiting.
  cudnnStatus_t post();
  // Sends and waits; on success results() holds the reply.
  cudnnStatus_t invoke();
  // As invoke(), but a question asked before (same call, same argument bytes) is answered from
  // this process's cache of successful replies: size and heuristic queries depend only on them.
  cudnnStatus_t invoke_cached();
  wire::Decoder& results() { return results_; }
  // Sends (cached: invoke_cached(), else invoke()) and reads the n values of the reply, each sent
  // as Wire, into out[0..n).
  template <typename Wire, typename T>
  cudnnStatus_t answer(bool cached, T* out, int n = 1) {
    cudnnStatus_t status = cached ? invoke_cached() : invoke();
    if (status != CUDNN_STATUS_SUCCESS) return status;
    Wire v[wire::cudnn::kMaxDims];
    if (n < 1 || n > wire::cudnn::kMaxDims) return CUDNN_STATUS_INTERNAL_ERROR;
    for (int i = 0; i < n; ++i) v[i] = results_.get<Wire>();
    if (!results_.ok()) return CUDNN_STATUS_INTERNAL_ERROR;
    for (int i = 0; i < n; ++i) out[i] = static_cast<T>(v[i]);
    return status;
  }
  // Reads, after invoke(), a tensor descriptor cuDNN filled on the server (its record; no
  // dimensions: there is no such tensor) and an address, each only if the caller passed one.
  bool filled_tensor(cudnnTensorDescriptor_t desc, void** addr);
  // Sends and waits (cached: invoke_cached()) for a reply that is one size (u64), into *out.
  cudnnStatus_t size_reply(size_t* out, bool cached);

 private:
  cudnnStatus_t finish(int32_t rc);
  LegacyCall& value_bytes(const void* p, uint8_t bytes);

  uint32_t id_;
  Call call_;
  cudnnStatus_t error_ = CUDNN_STATUS_SUCCESS;  // the first argument that cannot be sent
  std::vector<uint8_t> reply_;
  wire::Decoder results_;
};

}  // namespace rgpu::client::cudnn
