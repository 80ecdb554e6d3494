// What the emulated cuDNN's handles and legacy descriptors point at. Descriptors hold the same
// records clients send (common/wire/cudnn_args.h); a handle holds its stream.
#pragma once

#include <cudnn.h>

#include <optional>

#include "common/wire/cudnn_args.h"

namespace rgpu::server::emulated {

struct CudnnTensor {
  wire::cudnn::TensorRecord record{};
};
struct CudnnFilter {
  wire::cudnn::FilterRecord record{};
};
struct CudnnConvolution {
  wire::cudnn::ConvolutionRecord record{};
};
struct CudnnActivation {
  wire::cudnn::ActivationRecord record{};
};

inline const CudnnTensor* tensor_of(cudnnTensorDescriptor_t d) { return reinterpret_cast<const CudnnTensor*>(d); }
inline const CudnnActivation* activation_of(cudnnActivationDescriptor_t d) {
  return reinterpret_cast<const CudnnActivation*>(d);
}

// The stream of a live handle, or nothing for an unknown one.
std::optional<cudaStream_t> cudnn_stream(cudnnHandle_t handle);

// A descriptor the emulator makes (a value-initialised Object behind the opaque handle) and frees:
// shared by the legacy descriptors and the RNN family's.
template <typename Object, typename Desc>
cudnnStatus_t create(Desc* out) {
  if (!out) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  *out = reinterpret_cast<Desc>(new Object{});
  return CUDNN_STATUS_SUCCESS;
}

template <typename Object, typename Desc>
cudnnStatus_t destroy(Desc d) {
  delete reinterpret_cast<Object*>(d);
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace rgpu::server::emulated
