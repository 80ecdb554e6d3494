// Legacy activation descriptors: client-side records (legacy_records.h), no traffic.
#include <cudnn.h>

#include "client/cudnn/legacy_records.h"

extern "C" {  // exported by the shim's version script

cudnnStatus_t cudnnCreateActivationDescriptor(cudnnActivationDescriptor_t* activationDesc) {
  return rgpu::client::cudnn::create_record<cudnnActivationStruct>(activationDesc);
}

cudnnStatus_t cudnnDestroyActivationDescriptor(cudnnActivationDescriptor_t activationDesc) {
  return rgpu::client::cudnn::destroy_record(activationDesc);
}

cudnnStatus_t cudnnSetActivationDescriptor(cudnnActivationDescriptor_t activationDesc, cudnnActivationMode_t mode,
                                           cudnnNanPropagation_t reluNanOpt, double coef) {
  if (!activationDesc) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  rgpu::wire::cudnn::ActivationRecord r = activationDesc->record;
  r.mode = mode;
  r.nan_opt = reluNanOpt;
  r.coef = coef;
  return rgpu::client::cudnn::store_record(activationDesc, r);
}

cudnnStatus_t cudnnGetActivationDescriptor(const cudnnActivationDescriptor_t activationDesc,
                                           cudnnActivationMode_t* mode, cudnnNanPropagation_t* reluNanOpt,
                                           double* coef) {
  if (!activationDesc || !mode || !reluNanOpt || !coef) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  *mode = static_cast<cudnnActivationMode_t>(activationDesc->record.mode);
  *reluNanOpt = static_cast<cudnnNanPropagation_t>(activationDesc->record.nan_opt);
  *coef = activationDesc->record.coef;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetActivationDescriptorSwishBeta(cudnnActivationDescriptor_t activationDesc, double swish_beta) {
  if (!activationDesc) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  activationDesc->record.swish_beta = swish_beta;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetActivationDescriptorSwishBeta(cudnnActivationDescriptor_t activationDesc, double* swish_beta) {
  if (!activationDesc || !swish_beta) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  *swish_beta = activationDesc->record.swish_beta;
  return CUDNN_STATUS_SUCCESS;
}

}  // extern "C"
