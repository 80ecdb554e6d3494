// Legacy convolution descriptors: client-side records (legacy_records.h), no traffic; the output
// dimensions of a forward convolution are computed here, as cuDNN does.
#include <cudnn.h>

#include <algorithm>

#include "client/cudnn/legacy_records.h"

using rgpu::wire::cudnn::kMaxConvDims;

namespace {

// Applies `change` to the record of a non-null descriptor.
template <typename F>
cudnnStatus_t update(cudnnConvolutionDescriptor_t desc, F change) {
  if (!desc) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  return change(desc->record);
}

cudnnStatus_t set_nd(cudnnConvolutionDescriptor_t desc, int n, const int* pads, const int* strides,
                     const int* dilations, cudnnConvolutionMode_t mode, cudnnDataType_t compute_type) {
  if (!desc || !pads || !strides || !dilations) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (n < 1 || n > kMaxConvDims) return CUDNN_STATUS_NOT_SUPPORTED;
  if (mode != CUDNN_CONVOLUTION && mode != CUDNN_CROSS_CORRELATION) return CUDNN_STATUS_BAD_PARAM;
  for (int i = 0; i < n; ++i) {
    if (pads[i] < 0 || strides[i] <= 0 || dilations[i] <= 0) return CUDNN_STATUS_BAD_PARAM;
  }
  rgpu::wire::cudnn::ConvolutionRecord r = desc->record;
  r.array_length = n;
  // Unused dimensions stay zero: equal descriptors are equal bytes (the server's cache key).
  std::fill_n(r.pads, kMaxConvDims, 0);
  std::fill_n(r.strides, kMaxConvDims, 0);
  std::fill_n(r.dilations, kMaxConvDims, 0);
  std::copy(pads, pads + n, r.pads);
  std::copy(strides, strides + n, r.strides);
  std::copy(dilations, dilations + n, r.dilations);
  r.mode = mode;
  r.compute_type = compute_type;
  return rgpu::client::cudnn::store_record(desc, r);
}

}  // namespace

extern "C" {  // exported by the shim's version script

cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t* convDesc) {
  return rgpu::client::cudnn::create_record<cudnnConvolutionStruct>(convDesc);
}

cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t convDesc) {
  return rgpu::client::cudnn::destroy_record(convDesc);
}

cudnnStatus_t cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t convDesc, int pad_h, int pad_w, int u,
                                              int v, int dilation_h, int dilation_w, cudnnConvolutionMode_t mode,
                                              cudnnDataType_t computeType) {
  const int pads[2] = {pad_h, pad_w}, strides[2] = {u, v}, dilations[2] = {dilation_h, dilation_w};
  return set_nd(convDesc, 2, pads, strides, dilations, mode, computeType);
}

cudnnStatus_t cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t convDesc, int arrayLength, const int padA[],
                                              const int filterStrideA[], const int dilationA[],
                                              cudnnConvolutionMode_t mode, cudnnDataType_t computeType) {
  return set_nd(convDesc, arrayLength, padA, filterStrideA, dilationA, mode, computeType);
}

cudnnStatus_t cudnnGetConvolution2dDescriptor(const cudnnConvolutionDescriptor_t convDesc, int* pad_h, int* pad_w,
                                              int* u, int* v, int* dilation_h, int* dilation_w,
                                              cudnnConvolutionMode_t* mode, cudnnDataType_t* computeType) {
  if (!convDesc || !pad_h || !pad_w || !u || !v || !dilation_h || !dilation_w || !mode || !computeType)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  const rgpu::wire::cudnn::ConvolutionRecord& r = convDesc->record;
  if (!convDesc->set || r.array_length != 2) return CUDNN_STATUS_BAD_PARAM;
  *pad_h = r.pads[0], *pad_w = r.pads[1], *u = r.strides[0], *v = r.strides[1];
  *dilation_h = r.dilations[0], *dilation_w = r.dilations[1];
  *mode = static_cast<cudnnConvolutionMode_t>(r.mode);
  *computeType = static_cast<cudnnDataType_t>(r.compute_type);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionNdDescriptor(const cudnnConvolutionDescriptor_t convDesc, int arrayLengthRequested,
                                              int* arrayLength, int padA[], int strideA[], int dilationA[],
                                              cudnnConvolutionMode_t* mode, cudnnDataType_t* computeType) {
  if (!convDesc || !arrayLength || !mode || !computeType) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (arrayLengthRequested < 0) return CUDNN_STATUS_BAD_PARAM;
  const rgpu::wire::cudnn::ConvolutionRecord& r = convDesc->record;
  *arrayLength = r.array_length;
  for (int i = 0; i < std::min(arrayLengthRequested, r.array_length); ++i) {
    if (padA) padA[i] = r.pads[i];
    if (strideA) strideA[i] = r.strides[i];
    if (dilationA) dilationA[i] = r.dilations[i];
  }
  *mode = static_cast<cudnnConvolutionMode_t>(r.mode);
  *computeType = static_cast<cudnnDataType_t>(r.compute_type);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t mathType) {
  if (!rgpu::wire::cudnn::in_range(mathType, CUDNN_FMA_MATH)) return CUDNN_STATUS_BAD_PARAM;
  return update(convDesc, [&](rgpu::wire::cudnn::ConvolutionRecord& r) {
    r.math_type = mathType;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t cudnnGetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t* mathType) {
  if (!mathType) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  return update(convDesc, [&](rgpu::wire::cudnn::ConvolutionRecord& r) {
    *mathType = static_cast<cudnnMathType_t>(r.math_type);
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc, int groupCount) {
  if (groupCount < 1) return CUDNN_STATUS_BAD_PARAM;
  return update(convDesc, [&](rgpu::wire::cudnn::ConvolutionRecord& r) {
    r.group_count = groupCount;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t cudnnGetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc, int* groupCount) {
  if (!groupCount) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  return update(convDesc, [&](rgpu::wire::cudnn::ConvolutionRecord& r) {
    *groupCount = r.group_count;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t cudnnSetConvolutionReorderType(cudnnConvolutionDescriptor_t convDesc, cudnnReorderType_t reorderType) {
  if (!rgpu::wire::cudnn::in_range(reorderType, CUDNN_NO_REORDER)) return CUDNN_STATUS_BAD_PARAM;
  return update(convDesc, [&](rgpu::wire::cudnn::ConvolutionRecord& r) {
    r.reorder_type = reorderType;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t cudnnGetConvolutionReorderType(cudnnConvolutionDescriptor_t convDesc, cudnnReorderType_t* reorderType) {
  if (!reorderType) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  return update(convDesc, [&](rgpu::wire::cudnn::ConvolutionRecord& r) {
    *reorderType = static_cast<cudnnReorderType_t>(r.reorder_type);
    return CUDNN_STATUS_SUCCESS;
  });
}

// out = 1 + (in + 2 pad - ((filter - 1) dilation + 1)) / stride per spatial dimension; the batch
// from the input, the channels from the filter's output maps.
cudnnStatus_t cudnnGetConvolutionNdForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                                    const cudnnTensorDescriptor_t inputTensorDesc,
                                                    const cudnnFilterDescriptor_t filterDesc, int nbDims,
                                                    int tensorOuputDimA[]) {
  if (!convDesc || !inputTensorDesc || !filterDesc || !tensorOuputDimA) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  const auto& c = convDesc->record;
  const auto& x = inputTensorDesc->record;
  const auto& w = filterDesc->record;
  if (!convDesc->set || !inputTensorDesc->set || !filterDesc->set) return CUDNN_STATUS_BAD_PARAM;
  if (nbDims != x.nb_dims || x.nb_dims != w.nb_dims || c.array_length != nbDims - 2) return CUDNN_STATUS_BAD_PARAM;
  tensorOuputDimA[0] = x.dims[0];
  tensorOuputDimA[1] = w.dims[0];
  for (int i = 0; i < c.array_length; ++i) {
    int span = (w.dims[i + 2] - 1) * c.dilations[i] + 1;
    int room = x.dims[i + 2] + 2 * c.pads[i] - span;
    if (room < 0) return CUDNN_STATUS_BAD_PARAM;
    tensorOuputDimA[i + 2] = 1 + room / c.strides[i];
  }
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolution2dForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                                    const cudnnTensorDescriptor_t inputTensorDesc,
                                                    const cudnnFilterDescriptor_t filterDesc, int* n, int* c, int* h,
                                                    int* w) {
  if (!n || !c || !h || !w) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  int dims[4];
  cudnnStatus_t status = cudnnGetConvolutionNdForwardOutputDim(convDesc, inputTensorDesc, filterDesc, 4, dims);
  if (status != CUDNN_STATUS_SUCCESS) return status;
  *n = dims[0], *c = dims[1], *h = dims[2], *w = dims[3];
  return CUDNN_STATUS_SUCCESS;
}

}  // extern "C"
