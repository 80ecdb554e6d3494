// Legacy tensor descriptors: client-side records (legacy_records.h), no traffic. Every setter
// stores dimensions and strides explicitly, so the server builds each with
// cudnnSetTensorNdDescriptor. Also cudnnDeriveBNTensorDescriptor, a computation on records.
#include <cudnn.h>

#include <algorithm>

#include "client/cudnn/legacy_records.h"

using rgpu::client::cudnn::data_type_size;
using rgpu::client::cudnn::packed_strides;
using rgpu::wire::cudnn::kMaxDims;

namespace {

cudnnStatus_t set_nd(cudnnTensorDescriptor_t desc, cudnnDataType_t type, int nb, const int* dims, const int* strides) {
  if (!desc || !dims || !strides) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (nb < 1 || nb > kMaxDims) return CUDNN_STATUS_NOT_SUPPORTED;
  if (data_type_size(type) == 0) return CUDNN_STATUS_BAD_PARAM;
  for (int i = 0; i < nb; ++i) {
    if (dims[i] <= 0 || strides[i] <= 0) return CUDNN_STATUS_BAD_PARAM;
  }
  rgpu::wire::cudnn::TensorRecord r{};
  r.data_type = type;
  r.nb_dims = nb;
  std::copy(dims, dims + nb, r.dims);
  std::copy(strides, strides + nb, r.strides);
  return rgpu::client::cudnn::store_record(desc, r);
}

cudnnStatus_t set_packed(cudnnTensorDescriptor_t desc, cudnnTensorFormat_t format, cudnnDataType_t type, int nb,
                         const int* dims) {
  if (!dims) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (nb < 1 || nb > kMaxDims) return CUDNN_STATUS_NOT_SUPPORTED;
  int strides[kMaxDims];
  if (!packed_strides(format, nb, dims, strides)) return CUDNN_STATUS_NOT_SUPPORTED;
  return set_nd(desc, type, nb, dims, strides);
}

}  // namespace

extern "C" {  // exported by the shim's version script

cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t* tensorDesc) {
  return rgpu::client::cudnn::create_record<cudnnTensorStruct>(tensorDesc);
}

cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t tensorDesc) {
  return rgpu::client::cudnn::destroy_record(tensorDesc);
}

cudnnStatus_t cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format,
                                         cudnnDataType_t dataType, int n, int c, int h, int w) {
  const int dims[4] = {n, c, h, w};
  return set_packed(tensorDesc, format, dataType, 4, dims);
}

cudnnStatus_t cudnnSetTensor4dDescriptorEx(cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType, int n, int c,
                                           int h, int w, int nStride, int cStride, int hStride, int wStride) {
  const int dims[4] = {n, c, h, w};
  const int strides[4] = {nStride, cStride, hStride, wStride};
  return set_nd(tensorDesc, dataType, 4, dims, strides);
}

cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType, int nbDims,
                                         const int dimA[], const int strideA[]) {
  return set_nd(tensorDesc, dataType, nbDims, dimA, strideA);
}

cudnnStatus_t cudnnSetTensorNdDescriptorEx(cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format,
                                           cudnnDataType_t dataType, int nbDims, const int dimA[]) {
  return set_packed(tensorDesc, format, dataType, nbDims, dimA);
}

cudnnStatus_t cudnnGetTensor4dDescriptor(const cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t* dataType, int* n,
                                         int* c, int* h, int* w, int* nStride, int* cStride, int* hStride,
                                         int* wStride) {
  if (!tensorDesc || !dataType || !n || !c || !h || !w || !nStride || !cStride || !hStride || !wStride)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  const rgpu::wire::cudnn::TensorRecord& r = tensorDesc->record;
  if (!tensorDesc->set || r.nb_dims != 4) return CUDNN_STATUS_BAD_PARAM;
  *dataType = static_cast<cudnnDataType_t>(r.data_type);
  *n = r.dims[0], *c = r.dims[1], *h = r.dims[2], *w = r.dims[3];
  *nStride = r.strides[0], *cStride = r.strides[1], *hStride = r.strides[2], *wStride = r.strides[3];
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetTensorNdDescriptor(const cudnnTensorDescriptor_t tensorDesc, int nbDimsRequested,
                                         cudnnDataType_t* dataType, int* nbDims, int dimA[], int strideA[]) {
  if (!tensorDesc || !dataType || !nbDims) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (nbDimsRequested < 0) return CUDNN_STATUS_BAD_PARAM;
  const rgpu::wire::cudnn::TensorRecord& r = tensorDesc->record;
  *dataType = static_cast<cudnnDataType_t>(r.data_type);
  *nbDims = r.nb_dims;
  for (int i = 0; i < std::min(nbDimsRequested, r.nb_dims); ++i) {
    if (dimA) dimA[i] = r.dims[i];
    if (strideA) strideA[i] = r.strides[i];
  }
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetTensorSizeInBytes(const cudnnTensorDescriptor_t tensorDesc, size_t* size) {
  if (!tensorDesc || !size) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  const rgpu::wire::cudnn::TensorRecord& r = tensorDesc->record;
  if (!tensorDesc->set) return CUDNN_STATUS_BAD_PARAM;
  // The span from the first element to the last, strides included.
  size_t last = 0;
  for (int i = 0; i < r.nb_dims; ++i) last += static_cast<size_t>(r.dims[i] - 1) * static_cast<size_t>(r.strides[i]);
  *size = (last + 1) * data_type_size(static_cast<cudnnDataType_t>(r.data_type));
  return CUDNN_STATUS_SUCCESS;
}

// Scale, bias, mean and variance of batch normalization: 1xCx1x1 (spatial) or 1xCxHxW (per
// activation), packed, in float for half and bfloat16 inputs.
cudnnStatus_t cudnnDeriveBNTensorDescriptor(cudnnTensorDescriptor_t derivedBnDesc, const cudnnTensorDescriptor_t xDesc,
                                            cudnnBatchNormMode_t mode) {
  if (!derivedBnDesc || !xDesc) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  const rgpu::wire::cudnn::TensorRecord& x = xDesc->record;
  if (!xDesc->set || x.nb_dims < 3) return CUDNN_STATUS_BAD_PARAM;
  int dims[kMaxDims];
  for (int i = 0; i < x.nb_dims; ++i) {
    bool keep = i == 1 || (mode == CUDNN_BATCHNORM_PER_ACTIVATION && i >= 2);
    dims[i] = keep ? x.dims[i] : 1;
  }
  auto type = static_cast<cudnnDataType_t>(x.data_type);
  if (type == CUDNN_DATA_HALF || type == CUDNN_DATA_BFLOAT16) type = CUDNN_DATA_FLOAT;
  return set_packed(derivedBnDesc, CUDNN_TENSOR_NCHW, type, x.nb_dims, dims);
}

}  // extern "C"
