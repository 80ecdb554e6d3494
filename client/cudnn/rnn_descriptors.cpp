// RNN and RNN data descriptors (ids, created by the generated create calls): their setters and
// destroyers are the generated forwarders plus a client-side mirror of what was set (rnn_settings.h),
// which cudnnGetRNNDescriptor_v8 answers from (it hands back the caller's own dropout descriptor)
// and the size queries key their cached answers by.
#include <cudnn.h>

#include <cstring>

#include "client/cudnn/descriptor_mirror.h"
#include "client/cudnn/rnn_settings.h"
#include "gen/cudnn/cudnn_remote.h"

namespace remote = rgpu::gen::cudnn::remote;
using rgpu::client::cudnn::give;
using rgpu::client::cudnn::mirror_of;
using rgpu::client::cudnn::find_rnn_settings;
using rgpu::client::cudnn::RnnDataSettings;
using rgpu::client::cudnn::RnnSettings;

namespace {

auto& settings() { return mirror_of<cudnnRNNDescriptor_t, RnnSettings>(); }
auto& data_settings() { return mirror_of<cudnnRNNDataDescriptor_t, RnnDataSettings>(); }

}  // namespace

bool rgpu::client::cudnn::find_rnn_settings(cudnnRNNDescriptor_t d, RnnSettings* out) {
  return settings().find(d, out);
}

bool rgpu::client::cudnn::find_rnn_data_settings(cudnnRNNDataDescriptor_t d, RnnDataSettings* out) {
  return data_settings().find(d, out);
}

extern "C" {  // exported by the shim's version script

cudnnStatus_t cudnnSetRNNDescriptor_v8(cudnnRNNDescriptor_t rnnDesc, cudnnRNNAlgo_t algo, cudnnRNNMode_t cellMode,
                                       cudnnRNNBiasMode_t biasMode, cudnnDirectionMode_t dirMode,
                                       cudnnRNNInputMode_t inputMode, cudnnDataType_t dataType,
                                       cudnnDataType_t mathPrec, cudnnMathType_t mathType, int32_t inputSize,
                                       int32_t hiddenSize, int32_t projSize, int32_t numLayers,
                                       cudnnDropoutDescriptor_t dropoutDesc, uint32_t auxFlags) {
  const cudnnStatus_t s =
      remote::cudnnSetRNNDescriptor_v8(rnnDesc, algo, cellMode, biasMode, dirMode, inputMode, dataType, mathPrec,
                                       mathType, inputSize, hiddenSize, projSize, numLayers, dropoutDesc, auxFlags);
  if (s == CUDNN_STATUS_SUCCESS)
    settings().store(rnnDesc, {algo, cellMode, biasMode, dirMode, inputMode, dataType, mathPrec, mathType, inputSize,
                               hiddenSize, projSize, numLayers, dropoutDesc, auxFlags});
  return s;
}

// Every output may be null (cuDNN skips those).
cudnnStatus_t cudnnGetRNNDescriptor_v8(cudnnRNNDescriptor_t rnnDesc, cudnnRNNAlgo_t* algo, cudnnRNNMode_t* cellMode,
                                       cudnnRNNBiasMode_t* biasMode, cudnnDirectionMode_t* dirMode,
                                       cudnnRNNInputMode_t* inputMode, cudnnDataType_t* dataType,
                                       cudnnDataType_t* mathPrec, cudnnMathType_t* mathType, int32_t* inputSize,
                                       int32_t* hiddenSize, int32_t* projSize, int32_t* numLayers,
                                       cudnnDropoutDescriptor_t* dropoutDesc, uint32_t* auxFlags) {
  RnnSettings r;
  if (!rnnDesc) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (!find_rnn_settings(rnnDesc, &r)) return CUDNN_STATUS_BAD_PARAM;
  give(algo, r.algo), give(cellMode, r.cell_mode), give(biasMode, r.bias_mode), give(dirMode, r.dir_mode);
  give(inputMode, r.input_mode), give(dataType, r.data_type), give(mathPrec, r.math_prec);
  give(mathType, r.math_type), give(inputSize, r.input_size), give(hiddenSize, r.hidden_size);
  give(projSize, r.proj_size), give(numLayers, r.num_layers), give(dropoutDesc, r.dropout);
  give(auxFlags, r.aux_flags);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroyRNNDescriptor(cudnnRNNDescriptor_t rnnDesc) {
  settings().erase(rnnDesc);
  return remote::cudnnDestroyRNNDescriptor(rnnDesc);
}

cudnnStatus_t cudnnSetRNNDataDescriptor(cudnnRNNDataDescriptor_t rnnDataDesc, cudnnDataType_t dataType,
                                        cudnnRNNDataLayout_t layout, int maxSeqLength, int batchSize, int vectorSize,
                                        const int seqLengthArray[], void* paddingFill) {
  data_settings().erase(rnnDataDesc);  // whatever the outcome: what it held before is gone
  const cudnnStatus_t s = remote::cudnnSetRNNDataDescriptor(rnnDataDesc, dataType, layout, maxSeqLength, batchSize,
                                                            vectorSize, seqLengthArray, paddingFill);
  if (s != CUDNN_STATUS_SUCCESS || batchSize <= 0 || !seqLengthArray) return s;  // refused: nothing to mirror
  RnnDataSettings r{dataType, layout, maxSeqLength, batchSize, vectorSize, {seqLengthArray, seqLengthArray + batchSize}, 0};
  if (paddingFill) std::memcpy(&r.padding_fill, paddingFill, rgpu::client::cudnn::fill_bytes(dataType));
  data_settings().store(rnnDataDesc, r);
  return s;
}

cudnnStatus_t cudnnDestroyRNNDataDescriptor(cudnnRNNDataDescriptor_t rnnDataDesc) {
  data_settings().erase(rnnDataDesc);
  return remote::cudnnDestroyRNNDataDescriptor(rnnDataDesc);
}

}  // extern "C"
