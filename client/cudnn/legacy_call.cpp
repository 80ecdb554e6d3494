// LegacyCall: encoding of descriptors and scalars, and the per-process cache of query replies.
#include "client/cudnn/legacy_call.h"

#include <map>
#include <mutex>
#include <string>

#include "client/cudnn/legacy_records.h"
#include "codegen/support/gen_marshal.h"

namespace rgpu::client::cudnn {
namespace {

struct ReplyCache {
  std::mutex mu;
  std::map<std::string, std::vector<uint8_t>> replies;  // call id + argument bytes -> reply bytes
};

ReplyCache& reply_cache() {
  static ReplyCache* c = new ReplyCache;  // never destroyed: calls may come from exit handlers
  return *c;
}

// Presence byte, then the record; a descriptor never set fails the call.
template <typename Struct>
void put_record(wire::Encoder& e, const Struct* d, cudnnStatus_t* error) {
  e.put<uint8_t>(d ? 1 : 0);
  if (!d) return;
  if (!d->set && *error == CUDNN_STATUS_SUCCESS) *error = CUDNN_STATUS_BAD_PARAM;
  e.put(d->record);
}

}  // namespace

LegacyCall& LegacyCall::handle(cudnnHandle_t h) {
  call_.args().put<uint64_t>(gen::handle_id(h));
  return *this;
}

LegacyCall& LegacyCall::tensor(cudnnTensorDescriptor_t d) {
  put_record(call_.args(), d, &error_);
  return *this;
}

LegacyCall& LegacyCall::filter(cudnnFilterDescriptor_t d) {
  put_record(call_.args(), d, &error_);
  return *this;
}

LegacyCall& LegacyCall::convolution(cudnnConvolutionDescriptor_t d) {
  put_record(call_.args(), d, &error_);
  return *this;
}

LegacyCall& LegacyCall::activation(cudnnActivationDescriptor_t d) {
  put_record(call_.args(), d, &error_);
  return *this;
}

// A value of `bytes` bytes at p (absent when p is null): its size, then the bytes.
LegacyCall& LegacyCall::value_bytes(const void* p, uint8_t bytes) {
  if (!p) bytes = 0;
  call_.args().put<uint8_t>(bytes);
  call_.args().put_raw(p, bytes);
  return *this;
}

LegacyCall& LegacyCall::scalar(const void* p, cudnnTensorDescriptor_t like) {
  return value_bytes(p, like && like->record.data_type == CUDNN_DATA_DOUBLE ? 8 : 4);
}

LegacyCall& LegacyCall::scalar(const void* p, cudnnFilterDescriptor_t like) {
  return value_bytes(p, like && like->record.data_type == CUDNN_DATA_DOUBLE ? 8 : 4);
}

LegacyCall& LegacyCall::element(const void* p, cudnnTensorDescriptor_t like) {
  const size_t bytes = like ? data_type_size(static_cast<cudnnDataType_t>(like->record.data_type)) : 0;
  if (bytes == 0 && error_ == CUDNN_STATUS_SUCCESS) error_ = CUDNN_STATUS_BAD_PARAM;
  return value_bytes(p, static_cast<uint8_t>(bytes));
}

LegacyCall& LegacyCall::device(const void* p) {
  call_.args().put<uint64_t>(reinterpret_cast<uintptr_t>(p));
  return *this;
}

cudnnStatus_t LegacyCall::finish(int32_t rc) {
  if (rc == kStatusUnavailable) return CUDNN_STATUS_NOT_INITIALIZED;
  return static_cast<cudnnStatus_t>(rc);
}

cudnnStatus_t LegacyCall::post() {
  if (error_ != CUDNN_STATUS_SUCCESS) return error_;
  return finish(call_.post());
}

cudnnStatus_t LegacyCall::invoke() {
  if (error_ != CUDNN_STATUS_SUCCESS) return error_;
  cudnnStatus_t status = finish(call_.invoke());
  if (status != CUDNN_STATUS_SUCCESS || !call_.replied()) return status;
  // Keep the reply: the call's own buffer is per thread and reused by the next call.
  wire::Decoder& d = call_.results();
  reply_.resize(d.remaining());
  d.get_raw(reply_.data(), reply_.size());
  results_ = wire::Decoder(reply_);
  return status;
}

cudnnStatus_t LegacyCall::invoke_cached() {
  if (error_ != CUDNN_STATUS_SUCCESS) return error_;
  std::span<const uint8_t> args = call_.args().payload();
  std::string key(reinterpret_cast<const char*>(&id_), sizeof id_);
  key.append(reinterpret_cast<const char*>(args.data()), args.size());
  {
    std::lock_guard lock(reply_cache().mu);
    auto it = reply_cache().replies.find(key);
    if (it != reply_cache().replies.end()) {
      reply_ = it->second;
      results_ = wire::Decoder(reply_);
      return CUDNN_STATUS_SUCCESS;
    }
  }
  cudnnStatus_t status = invoke();
  if (status != CUDNN_STATUS_SUCCESS) return status;
  std::lock_guard lock(reply_cache().mu);
  reply_cache().replies.emplace(std::move(key), reply_);
  return status;
}

bool LegacyCall::filled_tensor(cudnnTensorDescriptor_t desc, void** addr) {
  if (desc) {
    wire::cudnn::TensorRecord r{};
    results_.get(&r);
    if (!results_.ok() || (r.nb_dims != 0 && !wire::cudnn::valid(r))) return false;
    desc->record = r;
    desc->set = r.nb_dims != 0;
  }
  if (addr) *addr = reinterpret_cast<void*>(static_cast<uintptr_t>(results_.get<uint64_t>()));
  return results_.ok();
}

cudnnStatus_t LegacyCall::size_reply(size_t* out, bool cached) {
  cudnnStatus_t status = cached ? invoke_cached() : invoke();
  if (status != CUDNN_STATUS_SUCCESS) return status;
  const uint64_t size = results_.get<uint64_t>();
  if (!results_.ok()) return CUDNN_STATUS_INTERNAL_ERROR;
  *out = size;
  return status;
}

}  // namespace rgpu::client::cudnn
