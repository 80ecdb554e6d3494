// The RNN data and sequence data getters: generated forwarders (gen::cudnn::remote), except that
// paddingFill is one value of the descriptor's data type, which the caller learns from the same
// call. Its reply is 8 bytes (the largest, double) in a buffer here; the caller gets the type's
// size of them.
#include <cudnn.h>

#include <cstring>

#include "client/cudnn/rnn_settings.h"
#include "gen/cudnn/cudnn_remote.h"

namespace remote = rgpu::gen::cudnn::remote;
using rgpu::client::cudnn::fill_bytes;

namespace {

// Writes the call's data type and padding value (held in `fill`) to the caller's pointers.
cudnnStatus_t deliver(cudnnStatus_t status, cudnnDataType_t type, const unsigned char* fill,
                      cudnnDataType_t* dataType, void* paddingFill) {
  if (status != CUDNN_STATUS_SUCCESS) return status;
  if (dataType) *dataType = type;
  if (paddingFill) std::memcpy(paddingFill, fill, fill_bytes(type));
  return status;
}

}  // namespace

extern "C" {  // exported by the shim's version script

cudnnStatus_t cudnnGetRNNDataDescriptor(cudnnRNNDataDescriptor_t rnnDataDesc, cudnnDataType_t* dataType,
                                        cudnnRNNDataLayout_t* layout, int* maxSeqLength, int* batchSize,
                                        int* vectorSize, int arrayLengthRequested, int seqLengthArray[],
                                        void* paddingFill) {
  cudnnDataType_t type{};
  unsigned char fill[8] = {};
  return deliver(remote::cudnnGetRNNDataDescriptor(rnnDataDesc, &type, layout, maxSeqLength, batchSize, vectorSize,
                                                   arrayLengthRequested, seqLengthArray, paddingFill ? fill : nullptr),
                 type, fill, dataType, paddingFill);
}

cudnnStatus_t cudnnGetSeqDataDescriptor(const cudnnSeqDataDescriptor_t seqDataDesc, cudnnDataType_t* dataType,
                                        int* nbDims, int nbDimsRequested, int dimA[], cudnnSeqDataAxis_t axes[],
                                        size_t* seqLengthArraySize, size_t seqLengthSizeRequested,
                                        int seqLengthArray[], void* paddingFill) {
  cudnnDataType_t type{};
  unsigned char fill[8] = {};
  return deliver(remote::cudnnGetSeqDataDescriptor(seqDataDesc, &type, nbDims, nbDimsRequested, dimA, axes,
                                                   seqLengthArraySize, seqLengthSizeRequested, seqLengthArray,
                                                   paddingFill ? fill : nullptr),
                 type, fill, dataType, paddingFill);
}

}  // extern "C"
