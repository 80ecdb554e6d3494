// The emulated cuDNN entry points by name (entry_table.h): the resolver given to gen::cudnn::load_api.
#include "server/backends/emulated/cudnn.h"
#include "server/backends/emulated/cudnn_rnn.h"
#include "server/backends/emulated/entry_table.h"

namespace rgpu::server::emulated {
namespace {

const Entry kTable[] = {
    RGPU_EMULATED(cudnnGetProperty),
    RGPU_EMULATED(cudnnCreate),
    RGPU_EMULATED(cudnnDestroy),
    RGPU_EMULATED(cudnnSetStream),
    RGPU_EMULATED(cudnnCreateTensorDescriptor),
    RGPU_EMULATED(cudnnSetTensorNdDescriptor),
    RGPU_EMULATED(cudnnDestroyTensorDescriptor),
    RGPU_EMULATED(cudnnCreateFilterDescriptor),
    RGPU_EMULATED(cudnnSetFilterNdDescriptor),
    RGPU_EMULATED(cudnnDestroyFilterDescriptor),
    RGPU_EMULATED(cudnnCreateConvolutionDescriptor),
    RGPU_EMULATED(cudnnSetConvolutionNdDescriptor),
    RGPU_EMULATED(cudnnSetConvolutionMathType),
    RGPU_EMULATED(cudnnSetConvolutionGroupCount),
    RGPU_EMULATED(cudnnSetConvolutionReorderType),
    RGPU_EMULATED(cudnnDestroyConvolutionDescriptor),
    RGPU_EMULATED(cudnnCreateActivationDescriptor),
    RGPU_EMULATED(cudnnSetActivationDescriptor),
    RGPU_EMULATED(cudnnSetActivationDescriptorSwishBeta),
    RGPU_EMULATED(cudnnDestroyActivationDescriptor),
    RGPU_EMULATED(cudnnAddTensor),
    RGPU_EMULATED(cudnnActivationForward),
    RGPU_EMULATED(cudnnBatchNormalizationForwardTrainingEx),
    RGPU_EMULATED(cudnnBatchNormalizationBackwardEx),
    RGPU_EMULATED(cudnnConvolutionForward),
    RGPU_EMULATED(cudnnSetTensor),
    RGPU_EMULATED(cudnnScaleTensor),
    RGPU_EMULATED(cudnnCreatePoolingDescriptor),
    RGPU_EMULATED(cudnnDestroyPoolingDescriptor),
    RGPU_EMULATED(cudnnSetPooling2dDescriptor),
    RGPU_EMULATED(cudnnGetPooling2dDescriptor),
    RGPU_EMULATED(cudnnGetPooling2dForwardOutputDim),
    RGPU_EMULATED(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize),
    RGPU_EMULATED(cudnnGetBatchNormalizationBackwardExWorkspaceSize),
    RGPU_EMULATED(cudnnGetBatchNormalizationTrainingExReserveSpaceSize),
    RGPU_EMULATED(cudnnGetConvolutionForwardWorkspaceSize),
    RGPU_EMULATED(cudnnGetConvolutionForwardAlgorithm_v7),
    RGPU_EMULATED(cudnnBackendCreateDescriptor),
    RGPU_EMULATED(cudnnBackendDestroyDescriptor),
    RGPU_EMULATED(cudnnBackendSetAttribute),
    RGPU_EMULATED(cudnnBackendFinalize),
    RGPU_EMULATED(cudnnBackendGetAttribute),
    RGPU_EMULATED(cudnnBackendExecute),
};

}  // namespace

void* resolve_cudnn(const char* name, void*) {
  if (!name) return nullptr;
  if (void* fn = find_entry(kTable, name)) return fn;
  return resolve_cudnn_rnn(name);
}

}  // namespace rgpu::server::emulated
