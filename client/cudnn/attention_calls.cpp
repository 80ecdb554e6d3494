// Multi-head attention. Attention descriptors are ids (created by the generated
// cudnnCreateAttnDescriptor); the setter and destroyer are the generated forwarders plus a
// client-side mirror of what was set: cudnnGetAttnDescriptor answers from it (handing back the
// caller's own dropout descriptors), and the forward and backward-data calls size their host
// window arrays from its longest Q sequence (one start and one end index per Q time step). Those
// two and the weights' backward are sent without waiting; cudnnGetMultiHeadAttnWeights waits (the
// weight tensor's descriptor, which cuDNN fills, comes back by content).
#include <cudnn.h>

#include "client/cudnn/descriptor_mirror.h"
#include "client/cudnn/legacy_call.h"
#include "gen/cudnn/cudnn_ids.h"
#include "gen/cudnn/cudnn_remote.h"

using rgpu::client::CallClass;
using rgpu::client::cudnn::LegacyCall;
namespace ids = rgpu::gen::cudnn;
namespace remote = rgpu::gen::cudnn::remote;
using rgpu::client::cudnn::give;

namespace {

struct AttnSettings {
  unsigned mode;
  int heads;
  double sm_scaler;
  cudnnDataType_t data_type, compute_prec;
  cudnnMathType_t math_type;
  cudnnDropoutDescriptor_t attn_dropout, post_dropout;
  int q_size, k_size, v_size, q_proj, k_proj, v_proj, o_proj, qo_max_seq, kv_max_seq, max_batch, max_beam;
};

auto& settings() { return rgpu::client::cudnn::mirror_of<cudnnAttnDescriptor_t, AttnSettings>(); }

// The window arrays (absent where null): as many ints as the descriptor's longest Q sequence.
// BAD_PARAM for a descriptor never set.
cudnnStatus_t windows(LegacyCall& call, cudnnAttnDescriptor_t attn, const int* lo, const int* hi) {
  AttnSettings a;
  if (!settings().find(attn, &a) || a.qo_max_seq < 0) return CUDNN_STATUS_BAD_PARAM;
  const size_t bytes = static_cast<size_t>(a.qo_max_seq) * sizeof(int);
  call.bytes(lo, lo ? bytes : 0).bytes(hi, hi ? bytes : 0);
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

extern "C" {  // exported by the shim's version script

cudnnStatus_t cudnnSetAttnDescriptor(cudnnAttnDescriptor_t attnDesc, unsigned attnMode, int nHeads, double smScaler,
                                     cudnnDataType_t dataType, cudnnDataType_t computePrec, cudnnMathType_t mathType,
                                     cudnnDropoutDescriptor_t attnDropoutDesc, cudnnDropoutDescriptor_t postDropoutDesc,
                                     int qSize, int kSize, int vSize, int qProjSize, int kProjSize, int vProjSize,
                                     int oProjSize, int qoMaxSeqLength, int kvMaxSeqLength, int maxBatchSize,
                                     int maxBeamSize) {
  const cudnnStatus_t s = remote::cudnnSetAttnDescriptor(
      attnDesc, attnMode, nHeads, smScaler, dataType, computePrec, mathType, attnDropoutDesc, postDropoutDesc, qSize,
      kSize, vSize, qProjSize, kProjSize, vProjSize, oProjSize, qoMaxSeqLength, kvMaxSeqLength, maxBatchSize,
      maxBeamSize);
  if (s == CUDNN_STATUS_SUCCESS)
    settings().store(attnDesc, {attnMode, nHeads, smScaler, dataType, computePrec, mathType, attnDropoutDesc,
                                postDropoutDesc, qSize, kSize, vSize, qProjSize, kProjSize, vProjSize, oProjSize,
                                qoMaxSeqLength, kvMaxSeqLength, maxBatchSize, maxBeamSize});
  return s;
}

cudnnStatus_t cudnnGetAttnDescriptor(cudnnAttnDescriptor_t attnDesc, unsigned* attnMode, int* nHeads,
                                     double* smScaler, cudnnDataType_t* dataType, cudnnDataType_t* computePrec,
                                     cudnnMathType_t* mathType, cudnnDropoutDescriptor_t* attnDropoutDesc,
                                     cudnnDropoutDescriptor_t* postDropoutDesc, int* qSize, int* kSize, int* vSize,
                                     int* qProjSize, int* kProjSize, int* vProjSize, int* oProjSize,
                                     int* qoMaxSeqLength, int* kvMaxSeqLength, int* maxBatchSize, int* maxBeamSize) {
  AttnSettings a;
  if (!attnDesc) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (!settings().find(attnDesc, &a)) return CUDNN_STATUS_BAD_PARAM;
  give(attnMode, a.mode), give(nHeads, a.heads), give(smScaler, a.sm_scaler), give(dataType, a.data_type);
  give(computePrec, a.compute_prec), give(mathType, a.math_type), give(attnDropoutDesc, a.attn_dropout);
  give(postDropoutDesc, a.post_dropout), give(qSize, a.q_size), give(kSize, a.k_size), give(vSize, a.v_size);
  give(qProjSize, a.q_proj), give(kProjSize, a.k_proj), give(vProjSize, a.v_proj), give(oProjSize, a.o_proj);
  give(qoMaxSeqLength, a.qo_max_seq), give(kvMaxSeqLength, a.kv_max_seq), give(maxBatchSize, a.max_batch);
  give(maxBeamSize, a.max_beam);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroyAttnDescriptor(cudnnAttnDescriptor_t attnDesc) {
  settings().erase(attnDesc);
  return remote::cudnnDestroyAttnDescriptor(attnDesc);
}

// Reply: for each of wDesc, wAddr the caller passed, its record or address.
cudnnStatus_t cudnnGetMultiHeadAttnWeights(cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
                                           cudnnMultiHeadAttnWeightKind_t wKind, size_t weightSizeInBytes,
                                           const void* weights, cudnnTensorDescriptor_t wDesc, void** wAddr) {
  LegacyCall call(ids::k_cudnnGetMultiHeadAttnWeights, CallClass::kSync);
  call.handle(handle).id(attnDesc).value<int32_t>(wKind).value<uint64_t>(weightSizeInBytes).device(weights);
  call.value<uint8_t>(wDesc != nullptr).value<uint8_t>(wAddr != nullptr);
  cudnnStatus_t status = call.invoke();
  if (status != CUDNN_STATUS_SUCCESS) return status;
  return call.filled_tensor(wDesc, wAddr) ? status : CUDNN_STATUS_INTERNAL_ERROR;
}

cudnnStatus_t cudnnMultiHeadAttnForward(cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc, int currIdx,
                                        const int loWinIdx[], const int hiWinIdx[], const int devSeqLengthsQO[],
                                        const int devSeqLengthsKV[], const cudnnSeqDataDescriptor_t qDesc,
                                        const void* queries, const void* residuals,
                                        const cudnnSeqDataDescriptor_t kDesc, const void* keys,
                                        const cudnnSeqDataDescriptor_t vDesc, const void* values,
                                        const cudnnSeqDataDescriptor_t oDesc, void* out, size_t weightSizeInBytes,
                                        const void* weights, size_t workSpaceSizeInBytes, void* workSpace,
                                        size_t reserveSpaceSizeInBytes, void* reserveSpace) {
  LegacyCall call(ids::k_cudnnMultiHeadAttnForward, CallClass::kAsync);
  call.handle(handle).id(attnDesc).value<int32_t>(currIdx);
  if (cudnnStatus_t s = windows(call, attnDesc, loWinIdx, hiWinIdx); s != CUDNN_STATUS_SUCCESS) return s;
  call.device(devSeqLengthsQO).device(devSeqLengthsKV).id(qDesc).device(queries).device(residuals).id(kDesc);
  call.device(keys).id(vDesc).device(values).id(oDesc).device(out).value<uint64_t>(weightSizeInBytes);
  call.device(weights).value<uint64_t>(workSpaceSizeInBytes).device(workSpace);
  call.value<uint64_t>(reserveSpaceSizeInBytes).device(reserveSpace);
  return call.post();
}

cudnnStatus_t cudnnMultiHeadAttnBackwardData(
    cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc, const int loWinIdx[], const int hiWinIdx[],
    const int devSeqLengthsDQDO[], const int devSeqLengthsDKDV[], const cudnnSeqDataDescriptor_t doDesc,
    const void* dout, const cudnnSeqDataDescriptor_t dqDesc, void* dqueries, const void* queries,
    const cudnnSeqDataDescriptor_t dkDesc, void* dkeys, const void* keys, const cudnnSeqDataDescriptor_t dvDesc,
    void* dvalues, const void* values, size_t weightSizeInBytes, const void* weights, size_t workSpaceSizeInBytes,
    void* workSpace, size_t reserveSpaceSizeInBytes, void* reserveSpace) {
  LegacyCall call(ids::k_cudnnMultiHeadAttnBackwardData, CallClass::kAsync);
  call.handle(handle).id(attnDesc);
  if (cudnnStatus_t s = windows(call, attnDesc, loWinIdx, hiWinIdx); s != CUDNN_STATUS_SUCCESS) return s;
  call.device(devSeqLengthsDQDO).device(devSeqLengthsDKDV).id(doDesc).device(dout).id(dqDesc).device(dqueries);
  call.device(queries).id(dkDesc).device(dkeys).device(keys).id(dvDesc).device(dvalues).device(values);
  call.value<uint64_t>(weightSizeInBytes).device(weights).value<uint64_t>(workSpaceSizeInBytes).device(workSpace);
  call.value<uint64_t>(reserveSpaceSizeInBytes).device(reserveSpace);
  return call.post();
}

}  // extern "C"
