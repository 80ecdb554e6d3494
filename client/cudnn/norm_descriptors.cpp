// cudnnDeriveNormTensorDescriptor: a computation on legacy tensor records (no traffic), like
// cudnnDeriveBNTensorDescriptor (tensor_descriptors.cpp).
#include <cudnn.h>

#include "client/cudnn/legacy_records.h"

extern "C" {  // exported by the shim's version script

// Scale and bias, mean and variance of normalization: 1xCx1x1 (per channel) or 1xCxHxW (per
// activation), packed, in float for half and bfloat16 inputs; both descriptors alike. cuDNN
// supports one group only.
cudnnStatus_t cudnnDeriveNormTensorDescriptor(cudnnTensorDescriptor_t derivedNormScaleBiasDesc,
                                              cudnnTensorDescriptor_t derivedNormMeanVarDesc,
                                              const cudnnTensorDescriptor_t xDesc, cudnnNormMode_t mode,
                                              int groupCnt) {
  if (!derivedNormScaleBiasDesc || !derivedNormMeanVarDesc || !xDesc) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (groupCnt != 1) return CUDNN_STATUS_NOT_SUPPORTED;
  const rgpu::wire::cudnn::TensorRecord& x = xDesc->record;
  if (!xDesc->set || x.nb_dims < 3) return CUDNN_STATUS_BAD_PARAM;
  int dims[rgpu::wire::cudnn::kMaxDims];
  for (int i = 0; i < x.nb_dims; ++i) {
    const bool keep = i == 1 || (mode == CUDNN_NORM_PER_ACTIVATION && i >= 2);
    dims[i] = keep ? x.dims[i] : 1;
  }
  auto type = static_cast<cudnnDataType_t>(x.data_type);
  if (type == CUDNN_DATA_HALF || type == CUDNN_DATA_BFLOAT16) type = CUDNN_DATA_FLOAT;
  cudnnStatus_t status = cudnnSetTensorNdDescriptorEx(derivedNormScaleBiasDesc, CUDNN_TENSOR_NCHW, type, x.nb_dims, dims);
  if (status != CUDNN_STATUS_SUCCESS) return status;
  return cudnnSetTensorNdDescriptorEx(derivedNormMeanVarDesc, CUDNN_TENSOR_NCHW, type, x.nb_dims, dims);
}

}  // extern "C"
