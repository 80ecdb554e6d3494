// Emulated cuDNN compute and queries. cudnnAddTensor, ReLU forward, cudnnSetTensor and
// cudnnScaleTensor on float tensors run as CPU loops over the virtual device's memory; batch
// normalization and convolution are validated and recorded in the handle's stream, as kernel
// launches are, but not computed. Every tensor is confirmed inside one live allocation before
// anything is issued.
#include <algorithm>
#include <cstring>

#include "server/backends/emulated/cudnn.h"
#include "server/backends/emulated/cudnn_objects.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
namespace {

using wire::cudnn::TensorRecord;

// The device bytes a tensor of `d` at `p` spans (its strides included), or an empty range.
DeviceRange tensor_range(cudnnTensorDescriptor_t d, const void* p) {
  if (!d || !p) return {};
  const TensorRecord& r = tensor_of(d)->record;
  const uint64_t element = r.data_type == CUDNN_DATA_DOUBLE ? 8 : r.data_type == CUDNN_DATA_FLOAT ? 4 : 2;
  // A peer's dimensions and strides can be anything positive: an overflowing span is no range,
  // and neither is a layout with more elements than its span holds (overlapping strides), which
  // would make the loops below run far longer than the memory they touch.
  uint64_t last = 0, term = 0, bytes = 0, count = 1;
  for (int i = 0; i < r.nb_dims; ++i) {
    if (r.dims[i] < 1 || r.strides[i] < 1) return {};
    if (__builtin_mul_overflow(uint64_t(r.dims[i] - 1), uint64_t(r.strides[i]), &term) ||
        __builtin_add_overflow(last, term, &last) || __builtin_mul_overflow(count, uint64_t(r.dims[i]), &count))
      return {};
  }
  if (count > last + 1 || __builtin_mul_overflow(last + 1, element, &bytes)) return {};
  return state().memory.find(p, bytes);
}

bool is_float(cudnnTensorDescriptor_t d) { return d && tensor_of(d)->record.data_type == CUDNN_DATA_FLOAT; }

cudnnStatus_t issued(cudaError_t err) {
  return err == cudaSuccess ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_EXECUTION_FAILED;
}

// Records work that the emulator does not compute in the handle's stream, after checking that
// each (descriptor, pointer) pair names device memory large enough for it.
using TensorArg = std::pair<cudnnTensorDescriptor_t, const void*>;
cudnnStatus_t record(cudnnHandle_t handle, std::initializer_list<TensorArg> tensors) {
  std::optional<cudaStream_t> stream = cudnn_stream(handle);
  if (!stream) return CUDNN_STATUS_BAD_PARAM;
  for (const auto& [d, p] : tensors) {
    if (!tensor_range(d, p)) return CUDNN_STATUS_BAD_PARAM;
  }
  return issued(state().enqueue(*stream, cudaGraphNodeTypeKernel, [] { return cudaSuccess; }));
}

// The index of element `linear` (row-major over `dims`) in a tensor with `strides`, where a
// dimension of size 1 in `r` broadcasts.
uint64_t offset(const TensorRecord& shape, const TensorRecord& r, uint64_t linear) {
  uint64_t off = 0;
  for (int i = shape.nb_dims - 1; i >= 0; --i) {
    uint64_t idx = linear % uint64_t(shape.dims[i]);
    linear /= uint64_t(shape.dims[i]);
    if (r.dims[i] != 1) off += idx * uint64_t(r.strides[i]);
  }
  return off;
}

uint64_t elements(const TensorRecord& r) {
  uint64_t n = 1;
  for (int i = 0; i < r.nb_dims; ++i) n *= uint64_t(r.dims[i]);
  return n;
}

float scalar(const void* p) {
  float v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Issues y = alpha f(x) + beta y on float tensors, over y's elements (x broadcasts where its
// dimension is 1). With beta 0, y is not read (a NaN there stays out).
template <typename F>
cudnnStatus_t pointwise(cudaStream_t stream, const TensorRecord& x, DeviceRange rx, const TensorRecord& y,
                        DeviceRange ry, const void* alpha, const void* beta, F f) {
  const float al = scalar(alpha), be = scalar(beta);
  return issued(state().enqueue(stream, cudaGraphNodeTypeKernel, [=] {
    const float* px = reinterpret_cast<const float*>(rx.data);
    float* py = reinterpret_cast<float*>(ry.data);
    for (uint64_t i = 0, n = elements(y); i < n; ++i) {
      float& out = py[offset(y, y, i)];
      const float v = al * f(px[offset(y, x, i)]);
      out = be == 0 ? v : v + be * out;
    }
    return cudaSuccess;
  }));
}

// cudnnSetTensor (set: y = v) and cudnnScaleTensor (y = v y) on a float tensor, v at `value`.
cudnnStatus_t scale_or_set(cudnnHandle_t handle, cudnnTensorDescriptor_t yDesc, void* y, const void* value, bool set) {
  std::optional<cudaStream_t> stream = cudnn_stream(handle);
  if (!stream) return CUDNN_STATUS_BAD_PARAM;
  if (!yDesc || !value) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (!is_float(yDesc)) return CUDNN_STATUS_NOT_SUPPORTED;
  DeviceRange ry = tensor_range(yDesc, y);
  if (!ry) return CUDNN_STATUS_BAD_PARAM;
  const TensorRecord r = tensor_of(yDesc)->record;
  const float v = scalar(value), one = 1, zero = 0;
  if (set) return pointwise(*stream, r, ry, r, ry, &one, &zero, [v](float) { return v; });
  return pointwise(*stream, r, ry, r, ry, &v, &zero, [](float x) { return x; });
}

// The size queries: no workspace or reserve is needed here, once the handle and the descriptors
// the query requires are known.
cudnnStatus_t no_bytes(cudnnHandle_t handle, bool described, size_t* size) {
  if (!cudnn_stream(handle) || !described) return CUDNN_STATUS_BAD_PARAM;
  *size = 0;
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

cudnnStatus_t cudnnAddTensor(cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t aDesc,
                             const void* A, const void* beta, const cudnnTensorDescriptor_t cDesc, void* C) {
  std::optional<cudaStream_t> stream = cudnn_stream(handle);
  if (!stream) return CUDNN_STATUS_BAD_PARAM;
  if (!alpha || !beta || !aDesc || !cDesc) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (!is_float(aDesc) || !is_float(cDesc)) return CUDNN_STATUS_NOT_SUPPORTED;
  const TensorRecord a = tensor_of(aDesc)->record, c = tensor_of(cDesc)->record;
  if (a.nb_dims != c.nb_dims) return CUDNN_STATUS_BAD_PARAM;
  for (int i = 0; i < c.nb_dims; ++i) {
    if (a.dims[i] != c.dims[i] && a.dims[i] != 1) return CUDNN_STATUS_BAD_PARAM;
  }
  DeviceRange ra = tensor_range(aDesc, A), rc = tensor_range(cDesc, C);
  if (!ra || !rc) return CUDNN_STATUS_BAD_PARAM;
  return pointwise(*stream, a, ra, c, rc, alpha, beta, [](float v) { return v; });
}

cudnnStatus_t cudnnActivationForward(cudnnHandle_t handle, cudnnActivationDescriptor_t activationDesc,
                                     const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x,
                                     const void* beta, const cudnnTensorDescriptor_t yDesc, void* y) {
  std::optional<cudaStream_t> stream = cudnn_stream(handle);
  if (!stream) return CUDNN_STATUS_BAD_PARAM;
  if (!activationDesc || !alpha || !beta || !xDesc || !yDesc) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (activation_of(activationDesc)->record.mode != CUDNN_ACTIVATION_RELU || !is_float(xDesc) || !is_float(yDesc))
    return CUDNN_STATUS_NOT_SUPPORTED;
  const TensorRecord xr = tensor_of(xDesc)->record, yr = tensor_of(yDesc)->record;
  if (xr.nb_dims != yr.nb_dims || !std::equal(xr.dims, xr.dims + xr.nb_dims, yr.dims)) return CUDNN_STATUS_BAD_PARAM;
  DeviceRange rx = tensor_range(xDesc, x), ry = tensor_range(yDesc, y);
  if (!rx || !ry) return CUDNN_STATUS_BAD_PARAM;
  return pointwise(*stream, xr, rx, yr, ry, alpha, beta, [](float v) { return std::max(v, 0.0f); });
}

// y = value everywhere (float tensors; y is not read).
cudnnStatus_t cudnnSetTensor(cudnnHandle_t handle, const cudnnTensorDescriptor_t yDesc, void* y, const void* valuePtr) {
  return scale_or_set(handle, yDesc, y, valuePtr, true);
}

// y = alpha y (float tensors).
cudnnStatus_t cudnnScaleTensor(cudnnHandle_t handle, const cudnnTensorDescriptor_t yDesc, void* y, const void* alpha) {
  return scale_or_set(handle, yDesc, y, alpha, false);
}

cudnnStatus_t cudnnBatchNormalizationForwardTrainingEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t, cudnnBatchNormOps_t, const void*, const void*,
    const cudnnTensorDescriptor_t xDesc, const void* xData, const cudnnTensorDescriptor_t, const void*,
    const cudnnTensorDescriptor_t yDesc, void* yData, const cudnnTensorDescriptor_t bnDesc, const void* bnScale,
    const void* bnBias, double, void*, void*, double, void*, void*, cudnnActivationDescriptor_t, void*, size_t, void*,
    size_t) {
  return record(handle, {{xDesc, xData}, {yDesc, yData}, {bnDesc, bnScale}, {bnDesc, bnBias}});
}

cudnnStatus_t cudnnBatchNormalizationBackwardEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t, cudnnBatchNormOps_t, const void*, const void*, const void*,
    const void*, const cudnnTensorDescriptor_t xDesc, const void* xData, const cudnnTensorDescriptor_t, const void*,
    const cudnnTensorDescriptor_t dyDesc, const void* dyData, const cudnnTensorDescriptor_t, void*,
    const cudnnTensorDescriptor_t dxDesc, void* dxData, const cudnnTensorDescriptor_t bnDesc, const void* bnScaleData,
    const void*, void* dBnScaleData, void* dBnBiasData, double, const void*, const void*, cudnnActivationDescriptor_t,
    void*, size_t, void*, size_t) {
  return record(handle, {{xDesc, xData},
                         {dyDesc, dyData},
                         {dxDesc, dxData},
                         {bnDesc, bnScaleData},
                         {bnDesc, dBnScaleData},
                         {bnDesc, dBnBiasData}});
}

cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t handle, const void*, const cudnnTensorDescriptor_t xDesc,
                                      const void* x, const cudnnFilterDescriptor_t wDesc, const void* w,
                                      const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t, void*,
                                      size_t, const void*, const cudnnTensorDescriptor_t yDesc, void* y) {
  if (!wDesc || !w || !convDesc || !state().memory.find(w, 1)) return CUDNN_STATUS_BAD_PARAM;
  return record(handle, {{xDesc, x}, {yDesc, y}});
}

cudnnStatus_t cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t, cudnnBatchNormOps_t, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t,
    const cudnnActivationDescriptor_t, size_t* sizeInBytes) {
  return no_bytes(handle, xDesc, sizeInBytes);
}

cudnnStatus_t cudnnGetBatchNormalizationBackwardExWorkspaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t, cudnnBatchNormOps_t, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t,
    const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnActivationDescriptor_t,
    size_t* sizeInBytes) {
  return no_bytes(handle, xDesc, sizeInBytes);
}

cudnnStatus_t cudnnGetBatchNormalizationTrainingExReserveSpaceSize(cudnnHandle_t handle, cudnnBatchNormMode_t,
                                                                   cudnnBatchNormOps_t,
                                                                   const cudnnActivationDescriptor_t,
                                                                   const cudnnTensorDescriptor_t xDesc,
                                                                   size_t* sizeInBytes) {
  return no_bytes(handle, xDesc, sizeInBytes);
}

cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                      const cudnnFilterDescriptor_t wDesc,
                                                      const cudnnConvolutionDescriptor_t convDesc,
                                                      const cudnnTensorDescriptor_t yDesc, cudnnConvolutionFwdAlgo_t,
                                                      size_t* sizeInBytes) {
  return no_bytes(handle, xDesc && wDesc && convDesc && yDesc, sizeInBytes);
}

// One algorithm (implicit GEMM, which needs no workspace); no time, as heuristics give none.
cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc,
                                                     const cudnnFilterDescriptor_t filterDesc,
                                                     const cudnnConvolutionDescriptor_t convDesc,
                                                     const cudnnTensorDescriptor_t destDesc,
                                                     const int requestedAlgoCount, int* returnedAlgoCount,
                                                     cudnnConvolutionFwdAlgoPerf_t* perfResults) {
  if (!cudnn_stream(handle) || !srcDesc || !filterDesc || !convDesc || !destDesc || requestedAlgoCount < 1)
    return CUDNN_STATUS_BAD_PARAM;
  perfResults[0] = cudnnConvolutionFwdAlgoPerf_t{};
  perfResults[0].algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  perfResults[0].status = CUDNN_STATUS_SUCCESS;
  perfResults[0].time = -1;
  perfResults[0].determinism = CUDNN_DETERMINISTIC;
  perfResults[0].mathType = CUDNN_DEFAULT_MATH;
  *returnedAlgoCount = 1;
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace rgpu::server::emulated
