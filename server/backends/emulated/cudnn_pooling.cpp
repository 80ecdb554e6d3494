// Emulated cuDNN pooling descriptors (2-d): created, set, read back and destroyed as cuDNN does,
// and their output dimensions, so the descriptors' client ids and the hand-written output-dim
// query are checked end to end. Pooling itself is not emulated.
#include "server/backends/emulated/cudnn.h"
#include "server/backends/emulated/cudnn_objects.h"

namespace rgpu::server::emulated {
namespace {

struct Pooling2d {
  cudnnPoolingMode_t mode = CUDNN_POOLING_MAX;
  cudnnNanPropagation_t nan_opt = CUDNN_NOT_PROPAGATE_NAN;
  int window[2] = {}, padding[2] = {}, stride[2] = {};
  bool set = false;
};

Pooling2d* pooling_of(cudnnPoolingDescriptor_t d) { return reinterpret_cast<Pooling2d*>(d); }

}  // namespace

cudnnStatus_t cudnnCreatePoolingDescriptor(cudnnPoolingDescriptor_t* poolingDesc) {
  if (!poolingDesc) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  *poolingDesc = reinterpret_cast<cudnnPoolingDescriptor_t>(new Pooling2d);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroyPoolingDescriptor(cudnnPoolingDescriptor_t poolingDesc) {
  delete pooling_of(poolingDesc);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetPooling2dDescriptor(cudnnPoolingDescriptor_t poolingDesc, cudnnPoolingMode_t mode,
                                          cudnnNanPropagation_t maxpoolingNanOpt, int windowHeight, int windowWidth,
                                          int verticalPadding, int horizontalPadding, int verticalStride,
                                          int horizontalStride) {
  if (!poolingDesc) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (windowHeight < 1 || windowWidth < 1 || verticalPadding < 0 || horizontalPadding < 0 || verticalStride < 1 ||
      horizontalStride < 1)
    return CUDNN_STATUS_BAD_PARAM;
  Pooling2d& p = *pooling_of(poolingDesc);
  p = Pooling2d{mode, maxpoolingNanOpt, {windowHeight, windowWidth}, {verticalPadding, horizontalPadding},
                {verticalStride, horizontalStride}, true};
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetPooling2dDescriptor(const cudnnPoolingDescriptor_t poolingDesc, cudnnPoolingMode_t* mode,
                                          cudnnNanPropagation_t* maxpoolingNanOpt, int* windowHeight,
                                          int* windowWidth, int* verticalPadding, int* horizontalPadding,
                                          int* verticalStride, int* horizontalStride) {
  if (!poolingDesc || !mode || !maxpoolingNanOpt || !windowHeight || !windowWidth || !verticalPadding ||
      !horizontalPadding || !verticalStride || !horizontalStride)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  const Pooling2d& p = *pooling_of(poolingDesc);
  if (!p.set) return CUDNN_STATUS_BAD_PARAM;
  *mode = p.mode, *maxpoolingNanOpt = p.nan_opt;
  *windowHeight = p.window[0], *windowWidth = p.window[1];
  *verticalPadding = p.padding[0], *horizontalPadding = p.padding[1];
  *verticalStride = p.stride[0], *horizontalStride = p.stride[1];
  return CUDNN_STATUS_SUCCESS;
}

// N and C as the input's; each spatial size 1 + (in + 2 pad - window) / stride.
cudnnStatus_t cudnnGetPooling2dForwardOutputDim(const cudnnPoolingDescriptor_t poolingDesc,
                                                const cudnnTensorDescriptor_t inputTensorDesc, int* n, int* c, int* h,
                                                int* w) {
  if (!poolingDesc || !inputTensorDesc || !n || !c || !h || !w) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  const Pooling2d& p = *pooling_of(poolingDesc);
  const wire::cudnn::TensorRecord& in = tensor_of(inputTensorDesc)->record;
  if (!p.set || in.nb_dims != 4) return CUDNN_STATUS_BAD_PARAM;
  int out[2];
  for (int i = 0; i < 2; ++i) {
    const int span = in.dims[2 + i] + 2 * p.padding[i] - p.window[i];
    if (span < 0) return CUDNN_STATUS_BAD_PARAM;
    out[i] = 1 + span / p.stride[i];
  }
  *n = in.dims[0], *c = in.dims[1], *h = out[0], *w = out[1];
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace rgpu::server::emulated
