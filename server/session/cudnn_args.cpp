// cudnn::Args: bounds-checked decoding of hand-written cuDNN calls, with handle translation and
// real legacy descriptors from the descriptor cache.
#include "server/session/cudnn_args.h"

#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "common/log.h"
#include "common/wire/cudnn_args.h"
#include "server/session/cudnn_descriptor_cache.h"

namespace rgpu::server::cudnn {

Args::Args(CallContext& ctx, wire::Decoder& in) : ctx_(ctx), in_(in) { descriptor_cache().trim(ctx.cudnn); }

cudnnHandle_t Args::handle() {
  const uint64_t id = in_.get<uint64_t>();
  cudnnHandle_t h{};
  // Ids CUDA reserves for streams never name a cuDNN handle.
  if (HandleTable::is_builtin(id) || !ctx_.handles.resolve(HandleKind::kCudnn, id, &h)) fail(CUDNN_STATUS_BAD_PARAM);
  return h;
}

cudnnBackendDescriptor_t Args::backend_descriptor() {
  const uint64_t id = in_.get<uint64_t>();
  cudnnBackendDescriptor_t d{};
  if (id == 0) return d;
  if (HandleTable::is_builtin(id) || !ctx_.handles.resolve(HandleKind::kCudnnDescriptor, id, &d))
    fail(CUDNN_STATUS_BAD_PARAM);
  return d;
}

template <typename Record>
bool Args::record(Record* r) {
  const uint8_t present = in_.get<uint8_t>();
  if (present > 1) malformed_ = true;
  if (present != 1) return false;
  in_.get(r);
  if (!in_.ok()) return false;
  if (!wire::cudnn::valid(*r)) {
    malformed_ = true;
    return false;
  }
  return true;
}

template <typename Record, typename Desc>
Desc Args::descriptor(cudnnStatus_t (DescriptorCache::*build)(const gen::cudnn::Api&, const Record&, Desc*)) {
  Record r;
  Desc d{};
  if (record(&r)) fail((descriptor_cache().*build)(ctx_.cudnn, r, &d));
  return d;
}

cudnnTensorDescriptor_t Args::tensor() { return descriptor(&DescriptorCache::tensor); }
cudnnFilterDescriptor_t Args::filter() { return descriptor(&DescriptorCache::filter); }
cudnnConvolutionDescriptor_t Args::convolution() { return descriptor(&DescriptorCache::convolution); }
cudnnActivationDescriptor_t Args::activation() { return descriptor(&DescriptorCache::activation); }

const void* Args::scalar() {
  const uint8_t bytes = in_.get<uint8_t>();
  if (bytes == 0) return nullptr;
  if ((bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8) || used_scalars_ == kMaxScalars) {
    malformed_ = true;
    return nullptr;
  }
  double* slot = &scalars_[used_scalars_++];
  in_.get_raw(slot, bytes);  // a float (or a narrower value) sits at the start of its slot
  return slot;
}

void Args::report_missing(const char* name) {
  static std::mutex mu;
  static std::set<std::string> logged;
  std::lock_guard lock(mu);
  if (logged.insert(name).second) RGPU_LOG_WARN("%s is not available on this backend", name);
}

}  // namespace rgpu::server::cudnn
