// The CTC loss calls (they take legacy tensor descriptors): the workspace sizes wait, the losses
// are sent without waiting. cudnnCTCLoss and its workspace query (the v7 forms) take host arrays:
// a label and an input length per batch entry (the probabilities are T x N x A: N = dims[1]) and
// the labels, as many as the label lengths add up to. They travel as bytes; the _v8 forms take
// device arrays. The CTC loss descriptor travels as its id; its setters are generated.
#include <cudnn.h>

#include "client/cudnn/legacy_call.h"
#include "client/cudnn/legacy_records.h"
#include "gen/cudnn/cudnn_ids.h"

using rgpu::client::CallClass;
using rgpu::client::cudnn::LegacyCall;
namespace ids = rgpu::gen::cudnn;

namespace {

// Appends the v7 host arrays (absent where null, for cuDNN to refuse); BAD_PARAM when the
// probabilities are not T x N x A or a label length is negative.
cudnnStatus_t host_arrays(LegacyCall& call, cudnnTensorDescriptor_t probsDesc, const int* labels,
                          const int* labelLengths, const int* inputLengths) {
  if (!probsDesc || !probsDesc->set || probsDesc->record.nb_dims != 3) return CUDNN_STATUS_BAD_PARAM;
  const size_t batch = static_cast<size_t>(probsDesc->record.dims[1]);
  size_t label_count = 0;
  for (size_t i = 0; labelLengths && i < batch; ++i) {
    if (labelLengths[i] < 0) return CUDNN_STATUS_BAD_PARAM;
    label_count += static_cast<size_t>(labelLengths[i]);
  }
  call.bytes(labels, labels ? label_count * sizeof(int) : 0);
  call.bytes(labelLengths, labelLengths ? batch * sizeof(int) : 0);
  call.bytes(inputLengths, inputLengths ? batch * sizeof(int) : 0);
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

extern "C" {  // exported by the shim's version script

cudnnStatus_t cudnnGetCTCLossWorkspaceSize(cudnnHandle_t handle, const cudnnTensorDescriptor_t probsDesc,
                                           const cudnnTensorDescriptor_t gradientsDesc, const int* labels,
                                           const int* labelLengths, const int* inputLengths, cudnnCTCLossAlgo_t algo,
                                           cudnnCTCLossDescriptor_t ctcLossDesc, size_t* sizeInBytes) {
  if (!sizeInBytes) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  LegacyCall call(ids::k_cudnnGetCTCLossWorkspaceSize, CallClass::kSync);
  call.handle(handle).tensor(probsDesc).tensor(gradientsDesc);
  if (cudnnStatus_t s = host_arrays(call, probsDesc, labels, labelLengths, inputLengths); s != CUDNN_STATUS_SUCCESS)
    return s;
  call.value<int32_t>(algo).id(ctcLossDesc);
  return call.size_reply(sizeInBytes, false);
}

cudnnStatus_t cudnnGetCTCLossWorkspaceSize_v8(cudnnHandle_t handle, cudnnCTCLossAlgo_t algo,
                                              cudnnCTCLossDescriptor_t ctcLossDesc,
                                              const cudnnTensorDescriptor_t probsDesc,
                                              const cudnnTensorDescriptor_t gradientsDesc, size_t* sizeInBytes) {
  if (!sizeInBytes) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  LegacyCall call(ids::k_cudnnGetCTCLossWorkspaceSize_v8, CallClass::kSync);
  call.handle(handle).value<int32_t>(algo).id(ctcLossDesc).tensor(probsDesc).tensor(gradientsDesc);
  return call.size_reply(sizeInBytes, false);
}

cudnnStatus_t cudnnCTCLoss(cudnnHandle_t handle, const cudnnTensorDescriptor_t probsDesc, const void* probs,
                           const int hostLabels[], const int hostLabelLengths[], const int hostInputLengths[],
                           void* costs, const cudnnTensorDescriptor_t gradientsDesc, void* gradients,
                           cudnnCTCLossAlgo_t algo, cudnnCTCLossDescriptor_t ctcLossDesc, void* workspace,
                           size_t workSpaceSizeInBytes) {
  LegacyCall call(ids::k_cudnnCTCLoss, CallClass::kAsync);
  call.handle(handle).tensor(probsDesc).device(probs);
  if (cudnnStatus_t s = host_arrays(call, probsDesc, hostLabels, hostLabelLengths, hostInputLengths);
      s != CUDNN_STATUS_SUCCESS)
    return s;
  call.device(costs).tensor(gradientsDesc).device(gradients).value<int32_t>(algo).id(ctcLossDesc).device(workspace);
  call.value<uint64_t>(workSpaceSizeInBytes);
  return call.post();
}

cudnnStatus_t cudnnCTCLoss_v8(cudnnHandle_t handle, cudnnCTCLossAlgo_t algo, cudnnCTCLossDescriptor_t ctcLossDesc,
                              const cudnnTensorDescriptor_t probsDesc, const void* probs, const int labels[],
                              const int labelLengths[], const int inputLengths[], void* costs,
                              const cudnnTensorDescriptor_t gradientsDesc, void* gradients,
                              size_t workSpaceSizeInBytes, void* workspace) {
  LegacyCall call(ids::k_cudnnCTCLoss_v8, CallClass::kAsync);
  call.handle(handle).value<int32_t>(algo).id(ctcLossDesc).tensor(probsDesc).device(probs).device(labels);
  call.device(labelLengths).device(inputLengths).device(costs).tensor(gradientsDesc).device(gradients);
  call.value<uint64_t>(workSpaceSizeInBytes).device(workspace);
  return call.post();
}

}  // extern "C"
