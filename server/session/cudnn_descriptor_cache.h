// The real legacy descriptors behind the records clients send (common/wire/cudnn_args.h): built
// with the backend's cuDNN on first sight of a record and kept, keyed by its bytes, so a training
// loop builds each shape's descriptors once. One cache per worker process (one session), used by
// the session thread only.
#pragma once

#include <cudnn.h>

#include <map>
#include <string>
#include <string_view>

#include "common/wire/cudnn_args.h"

namespace rgpu::gen::cudnn {
struct Api;
}

namespace rgpu::server::cudnn {

class DescriptorCache {
 public:
  // Each returns cuDNN's status of building the descriptor (CUDNN_STATUS_NOT_SUPPORTED when the
  // backend lacks the functions); on success *out is valid until the next call to trim().
  cudnnStatus_t tensor(const gen::cudnn::Api& api, const wire::cudnn::TensorRecord& r, cudnnTensorDescriptor_t* out);
  cudnnStatus_t filter(const gen::cudnn::Api& api, const wire::cudnn::FilterRecord& r, cudnnFilterDescriptor_t* out);
  cudnnStatus_t convolution(const gen::cudnn::Api& api, const wire::cudnn::ConvolutionRecord& r,
                            cudnnConvolutionDescriptor_t* out);
  cudnnStatus_t activation(const gen::cudnn::Api& api, const wire::cudnn::ActivationRecord& r,
                           cudnnActivationDescriptor_t* out);
  // Called between calls: drops everything once the cache holds more than kLimit descriptors of a
  // kind (a program that keeps making new shapes), so it cannot grow without bound.
  void trim(const gen::cudnn::Api& api);

  static constexpr size_t kLimit = 4096;

 private:
  // A record's bytes: looked up without copying (a hit, the steady state, allocates nothing).
  template <typename Record>
  static std::string_view key(const Record& r) {
    return std::string_view(reinterpret_cast<const char*>(&r), sizeof r);
  }
  template <typename Desc>
  using Map = std::map<std::string, Desc, std::less<>>;

  Map<cudnnTensorDescriptor_t> tensors_;
  Map<cudnnFilterDescriptor_t> filters_;
  Map<cudnnConvolutionDescriptor_t> convolutions_;
  Map<cudnnActivationDescriptor_t> activations_;
};

DescriptorCache& descriptor_cache();

}  // namespace rgpu::server::cudnn
