// Legacy filter descriptors: client-side records (legacy_records.h), no traffic.
#include <cudnn.h>

#include <algorithm>

#include "client/cudnn/legacy_records.h"

using rgpu::client::cudnn::data_type_size;
using rgpu::wire::cudnn::kMaxDims;

namespace {

cudnnStatus_t set_nd(cudnnFilterDescriptor_t desc, cudnnDataType_t type, cudnnTensorFormat_t format, int nb,
                     const int* dims) {
  if (!desc || !dims) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (nb < 1 || nb > kMaxDims) return CUDNN_STATUS_NOT_SUPPORTED;
  if (data_type_size(type) == 0) return CUDNN_STATUS_BAD_PARAM;
  if (format != CUDNN_TENSOR_NCHW && format != CUDNN_TENSOR_NHWC) return CUDNN_STATUS_NOT_SUPPORTED;
  for (int i = 0; i < nb; ++i) {
    if (dims[i] <= 0) return CUDNN_STATUS_BAD_PARAM;
  }
  rgpu::wire::cudnn::FilterRecord r{};
  r.data_type = type;
  r.format = format;
  r.nb_dims = nb;
  std::copy(dims, dims + nb, r.dims);
  return rgpu::client::cudnn::store_record(desc, r);
}

}  // namespace

extern "C" {  // exported by the shim's version script

cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t* filterDesc) {
  return rgpu::client::cudnn::create_record<cudnnFilterStruct>(filterDesc);
}

cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t filterDesc) {
  return rgpu::client::cudnn::destroy_record(filterDesc);
}

cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                                         cudnnTensorFormat_t format, int k, int c, int h, int w) {
  const int dims[4] = {k, c, h, w};
  return set_nd(filterDesc, dataType, format, 4, dims);
}

cudnnStatus_t cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                                         cudnnTensorFormat_t format, int nbDims, const int filterDimA[]) {
  return set_nd(filterDesc, dataType, format, nbDims, filterDimA);
}

cudnnStatus_t cudnnGetFilter4dDescriptor(const cudnnFilterDescriptor_t filterDesc, cudnnDataType_t* dataType,
                                         cudnnTensorFormat_t* format, int* k, int* c, int* h, int* w) {
  if (!filterDesc || !dataType || !format || !k || !c || !h || !w) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  const rgpu::wire::cudnn::FilterRecord& r = filterDesc->record;
  if (!filterDesc->set || r.nb_dims != 4) return CUDNN_STATUS_BAD_PARAM;
  *dataType = static_cast<cudnnDataType_t>(r.data_type);
  *format = static_cast<cudnnTensorFormat_t>(r.format);
  *k = r.dims[0], *c = r.dims[1], *h = r.dims[2], *w = r.dims[3];
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetFilterNdDescriptor(const cudnnFilterDescriptor_t filterDesc, int nbDimsRequested,
                                         cudnnDataType_t* dataType, cudnnTensorFormat_t* format, int* nbDims,
                                         int filterDimA[]) {
  if (!filterDesc || !dataType || !format || !nbDims) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (nbDimsRequested < 0) return CUDNN_STATUS_BAD_PARAM;
  const rgpu::wire::cudnn::FilterRecord& r = filterDesc->record;
  *dataType = static_cast<cudnnDataType_t>(r.data_type);
  *format = static_cast<cudnnTensorFormat_t>(r.format);
  *nbDims = r.nb_dims;
  for (int i = 0; filterDimA && i < std::min(nbDimsRequested, r.nb_dims); ++i) filterDimA[i] = r.dims[i];
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetFilterSizeInBytes(const cudnnFilterDescriptor_t filterDesc, size_t* size) {
  if (!filterDesc || !size) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  const rgpu::wire::cudnn::FilterRecord& r = filterDesc->record;
  if (!filterDesc->set) return CUDNN_STATUS_BAD_PARAM;
  size_t n = data_type_size(static_cast<cudnnDataType_t>(r.data_type));
  for (int i = 0; i < r.nb_dims; ++i) n *= static_cast<size_t>(r.dims[i]);
  *size = n;
  return CUDNN_STATUS_SUCCESS;
}

}  // extern "C"
