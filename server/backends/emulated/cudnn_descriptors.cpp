// Emulated cuDNN: its version (the headers'), handles (each with its stream) and legacy
// descriptors (the records themselves).
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "server/backends/emulated/cudnn.h"
#include "server/backends/emulated/cudnn_objects.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
namespace {

struct Handles {
  std::mutex mu;
  std::unordered_map<cudnnHandle_t, std::unique_ptr<cudaStream_t>> streams;
};

Handles& handles() {
  static Handles h;
  return h;
}

template <typename Object, typename Desc>
auto& record(Desc d) {
  return reinterpret_cast<Object*>(d)->record;
}

}  // namespace

cudnnStatus_t cudnnGetProperty(libraryPropertyType type, int* value) {
  if (!value) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  // The generated dispatch passes a peer's integer as the enum: read it as the integer it is
  // (loading an enum object outside its range would be undefined behaviour).
  int32_t property;
  static_assert(sizeof property == sizeof type);
  std::memcpy(&property, &type, sizeof property);
  switch (property) {
    case MAJOR_VERSION: *value = CUDNN_MAJOR; return CUDNN_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CUDNN_MINOR; return CUDNN_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CUDNN_PATCHLEVEL; return CUDNN_STATUS_SUCCESS;
    default: return CUDNN_STATUS_BAD_PARAM;
  }
}

std::optional<cudaStream_t> cudnn_stream(cudnnHandle_t handle) {
  std::lock_guard lock(handles().mu);
  auto it = handles().streams.find(handle);
  if (it == handles().streams.end()) return std::nullopt;
  return *it->second;
}

cudnnStatus_t cudnnCreate(cudnnHandle_t* handle) {
  if (!handle) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  auto stream = std::make_unique<cudaStream_t>(nullptr);
  *handle = reinterpret_cast<cudnnHandle_t>(stream.get());
  std::lock_guard lock(handles().mu);
  handles().streams.emplace(*handle, std::move(stream));
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  std::lock_guard lock(handles().mu);
  return handles().streams.erase(handle) ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
}

cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t streamId) {
  {
    std::lock_guard lock(state().mu);
    Stream* s = nullptr;
    if (state().resolve_stream(streamId, &s) != cudaSuccess) return CUDNN_STATUS_BAD_PARAM;
  }
  std::lock_guard lock(handles().mu);
  auto it = handles().streams.find(handle);
  if (it == handles().streams.end()) return CUDNN_STATUS_BAD_PARAM;
  *it->second = streamId;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t* tensorDesc) {
  return create<CudnnTensor>(tensorDesc);
}

cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType, int nbDims,
                                         const int dimA[], const int strideA[]) {
  if (!tensorDesc || !dimA || !strideA) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (nbDims < 1 || nbDims > wire::cudnn::kMaxDims) return CUDNN_STATUS_NOT_SUPPORTED;
  for (int i = 0; i < nbDims; ++i) {
    if (dimA[i] <= 0 || strideA[i] <= 0) return CUDNN_STATUS_BAD_PARAM;
  }
  wire::cudnn::TensorRecord r{};
  r.data_type = dataType;
  r.nb_dims = nbDims;
  std::copy(dimA, dimA + nbDims, r.dims);
  std::copy(strideA, strideA + nbDims, r.strides);
  record<CudnnTensor>(tensorDesc) = r;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t tensorDesc) {
  return destroy<CudnnTensor>(tensorDesc);
}

cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t* filterDesc) {
  return create<CudnnFilter>(filterDesc);
}

cudnnStatus_t cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                                         cudnnTensorFormat_t format, int nbDims, const int filterDimA[]) {
  if (!filterDesc || !filterDimA) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (nbDims < 1 || nbDims > wire::cudnn::kMaxDims) return CUDNN_STATUS_NOT_SUPPORTED;
  wire::cudnn::FilterRecord r{};
  r.data_type = dataType;
  r.format = format;
  r.nb_dims = nbDims;
  std::copy(filterDimA, filterDimA + nbDims, r.dims);
  record<CudnnFilter>(filterDesc) = r;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t filterDesc) {
  return destroy<CudnnFilter>(filterDesc);
}

cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t* convDesc) {
  return create<CudnnConvolution>(convDesc);
}

cudnnStatus_t cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t convDesc, int arrayLength, const int padA[],
                                              const int filterStrideA[], const int dilationA[],
                                              cudnnConvolutionMode_t mode, cudnnDataType_t computeType) {
  if (!convDesc || !padA || !filterStrideA || !dilationA) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (arrayLength < 1 || arrayLength > wire::cudnn::kMaxConvDims) return CUDNN_STATUS_NOT_SUPPORTED;
  auto& r = record<CudnnConvolution>(convDesc);
  r.array_length = arrayLength;
  std::copy(padA, padA + arrayLength, r.pads);
  std::copy(filterStrideA, filterStrideA + arrayLength, r.strides);
  std::copy(dilationA, dilationA + arrayLength, r.dilations);
  r.mode = mode;
  r.compute_type = computeType;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t mathType) {
  record<CudnnConvolution>(convDesc).math_type = mathType;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc, int groupCount) {
  if (groupCount < 1) return CUDNN_STATUS_BAD_PARAM;
  record<CudnnConvolution>(convDesc).group_count = groupCount;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionReorderType(cudnnConvolutionDescriptor_t convDesc, cudnnReorderType_t reorderType) {
  record<CudnnConvolution>(convDesc).reorder_type = reorderType;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t convDesc) {
  return destroy<CudnnConvolution>(convDesc);
}

cudnnStatus_t cudnnCreateActivationDescriptor(cudnnActivationDescriptor_t* activationDesc) {
  return create<CudnnActivation>(activationDesc);
}

cudnnStatus_t cudnnSetActivationDescriptor(cudnnActivationDescriptor_t activationDesc, cudnnActivationMode_t mode,
                                           cudnnNanPropagation_t reluNanOpt, double coef) {
  auto& r = record<CudnnActivation>(activationDesc);
  r.mode = mode;
  r.nan_opt = reluNanOpt;
  r.coef = coef;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetActivationDescriptorSwishBeta(cudnnActivationDescriptor_t activationDesc, double swish_beta) {
  record<CudnnActivation>(activationDesc).swish_beta = swish_beta;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroyActivationDescriptor(cudnnActivationDescriptor_t activationDesc) {
  return destroy<CudnnActivation>(activationDesc);
}

}  // namespace rgpu::server::emulated
