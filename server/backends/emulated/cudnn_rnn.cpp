// Emulated cuDNN RNNs, dropout and CTC loss (see cudnn_rnn.h). The objects are plain records
// (a descriptor a peer names is only ever one this file created).
#include "server/backends/emulated/cudnn_rnn.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <utility>

#include "server/backends/emulated/cudnn.h"
#include "server/backends/emulated/cudnn_objects.h"
#include "server/backends/emulated/entry_table.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
namespace {

struct Dropout {
  float dropout;
  void* states;
  size_t state_bytes;
  unsigned long long seed;
  bool set;
};

struct Rnn {
  cudnnRNNAlgo_t algo;
  cudnnRNNMode_t cell;
  cudnnRNNBiasMode_t bias;
  cudnnDirectionMode_t dir;
  cudnnRNNInputMode_t input_mode;
  cudnnDataType_t data_type, math_prec;
  cudnnMathType_t math_type;
  int32_t input, hidden, proj, layers;
  cudnnDropoutDescriptor_t dropout;
  uint32_t aux_flags;
  cudnnRNNClipMode_t clip_mode;
  cudnnNanPropagation_t clip_nan;
  double lclip, rclip;
  bool set;
};

constexpr int kMaxBatch = 512;  // the emulator's limit on an RNN data descriptor's batch

struct RnnData {
  cudnnDataType_t data_type;
  cudnnRNNDataLayout_t layout;
  int max_seq, batch, vector;
  int seq_lengths[kMaxBatch];
  double fill;
  bool set;
};

struct CtcLoss {
  cudnnDataType_t comp_type;
  cudnnLossNormalizationMode_t norm_mode;
  cudnnNanPropagation_t grad_mode;
  int max_label_length;
  bool set;
};

constexpr int kMaxWidth = 1 << 14;  // input and hidden sizes: a matrix's elements fit an int

constexpr size_t kDropoutStateBytes = 16;  // the emulator's generator: a seed and a counter

template <typename Object, typename Desc>
Object* object(Desc d) {
  return reinterpret_cast<Object*>(d);
}

size_t element_bytes(cudnnDataType_t t) {
  return t == CUDNN_DATA_DOUBLE ? 8 : (t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16) ? 2 : 4;
}

// Records work in the handle's stream once each (address, bytes) lies inside live device memory.
cudnnStatus_t record(cudnnHandle_t handle, std::initializer_list<std::pair<const void*, uint64_t>> buffers) {
  std::optional<cudaStream_t> stream = cudnn_stream(handle);
  if (!stream) return CUDNN_STATUS_BAD_PARAM;
  for (const auto& [p, bytes] : buffers) {
    if (bytes && !state().memory.find(p, bytes)) return CUDNN_STATUS_BAD_PARAM;
  }
  const cudaError_t err = state().enqueue(*stream, cudaGraphNodeTypeKernel, [] { return cudaSuccess; });
  return err == cudaSuccess ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_EXECUTION_FAILED;
}

// ---- RNN weight layout: per pseudo-layer (layer x direction), 2 x gates matrices (input, then
// recurrent: hidden rows, input or hidden columns), then the biases the bias mode keeps. ----
int gates(const Rnn& r) { return r.cell == CUDNN_LSTM ? 4 : r.cell == CUDNN_GRU ? 3 : 1; }
int directions(const Rnn& r) { return r.dir == CUDNN_BIDIRECTIONAL ? 2 : 1; }
bool has_bias(const Rnn& r, int lin) {
  const bool input_side = lin < gates(r);
  return r.bias == CUDNN_RNN_DOUBLE_BIAS || (r.bias == CUDNN_RNN_SINGLE_INP_BIAS && input_side) ||
         (r.bias == CUDNN_RNN_SINGLE_REC_BIAS && !input_side);
}
uint64_t columns(const Rnn& r, int pseudo_layer, int lin) {
  if (lin >= gates(r)) return uint64_t(r.hidden);
  return pseudo_layer < directions(r) ? uint64_t(r.input) : uint64_t(r.hidden) * uint64_t(directions(r));
}
// Elements of one pseudo-layer up to (not including) matrix `lin` (2 x gates: all matrices) or
// its bias (`lin` past the matrices: bias lin - 2 x gates).
uint64_t layer_offset(const Rnn& r, int pseudo_layer, int lin) {
  uint64_t n = 0;
  for (int i = 0; i < std::min(lin, 2 * gates(r)); ++i) n += uint64_t(r.hidden) * columns(r, pseudo_layer, i);
  for (int i = 0; i < lin - 2 * gates(r); ++i) n += has_bias(r, i) ? uint64_t(r.hidden) : 0;
  return n;
}
uint64_t layer_elements(const Rnn& r, int pseudo_layer) { return layer_offset(r, pseudo_layer, 4 * gates(r)); }
uint64_t weight_bytes(const Rnn& r) {
  uint64_t n = 0;
  for (int p = 0; p < r.layers * directions(r); ++p) n += layer_elements(r, p);
  return n * element_bytes(r.data_type);
}

uint64_t data_bytes(const RnnData& d) {
  return uint64_t(d.max_seq) * uint64_t(d.batch) * uint64_t(d.vector) * element_bytes(d.data_type);
}

void set_matrix(cudnnTensorDescriptor_t desc, cudnnDataType_t type, int rows, int cols) {
  if (!desc) return;
  wire::cudnn::TensorRecord& t = reinterpret_cast<CudnnTensor*>(desc)->record;
  t = {};
  if (rows == 0) return;  // no such weight: no dimensions
  t.data_type = type;
  t.nb_dims = 3;
  t.dims[0] = 1, t.dims[1] = rows, t.dims[2] = cols;
  t.strides[0] = rows * cols, t.strides[1] = cols, t.strides[2] = 1;
}

}  // namespace

cudnnStatus_t cudnnGetTensorNdDescriptor(const cudnnTensorDescriptor_t tensorDesc, int nbDimsRequested,
                                         cudnnDataType_t* dataType, int* nbDims, int dimA[], int strideA[]) {
  if (!tensorDesc || !dataType || !nbDims) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  const wire::cudnn::TensorRecord& r = tensor_of(tensorDesc)->record;
  *dataType = static_cast<cudnnDataType_t>(r.data_type);
  *nbDims = r.nb_dims;
  for (int i = 0; i < std::min(nbDimsRequested, r.nb_dims); ++i) {
    if (dimA) dimA[i] = r.dims[i];
    if (strideA) strideA[i] = r.strides[i];
  }
  return CUDNN_STATUS_SUCCESS;
}

// ---- dropout ----
cudnnStatus_t cudnnCreateDropoutDescriptor(cudnnDropoutDescriptor_t* d) { return create<Dropout>(d); }
cudnnStatus_t cudnnDestroyDropoutDescriptor(cudnnDropoutDescriptor_t d) { return destroy<Dropout>(d); }

cudnnStatus_t cudnnDropoutGetStatesSize(cudnnHandle_t handle, size_t* sizeInBytes) {
  if (!sizeInBytes) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (!cudnn_stream(handle)) return CUDNN_STATUS_BAD_PARAM;
  *sizeInBytes = kDropoutStateBytes;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDropoutGetReserveSpaceSize(cudnnTensorDescriptor_t xdesc, size_t* sizeInBytes) {
  if (!xdesc || !sizeInBytes) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  const wire::cudnn::TensorRecord& r = tensor_of(xdesc)->record;
  size_t n = 1;
  for (int i = 0; i < r.nb_dims; ++i) n *= size_t(r.dims[i]);
  *sizeInBytes = n;  // one mask byte per element
  return CUDNN_STATUS_SUCCESS;
}

// Set initializes the states in the handle's stream (recorded); Restore takes them as they are.
static cudnnStatus_t set_dropout(cudnnDropoutDescriptor_t desc, cudnnHandle_t handle, float dropout, void* states,
                          size_t bytes, unsigned long long seed, bool initialize) {
  if (!desc) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (dropout < 0.0f || dropout > 1.0f || (dropout > 0.0f && (!states || bytes < kDropoutStateBytes)))
    return CUDNN_STATUS_BAD_PARAM;
  if (states) {
    cudnnStatus_t s = initialize ? record(handle, {{states, kDropoutStateBytes}})
                                 : (cudnn_stream(handle) ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM);
    if (s != CUDNN_STATUS_SUCCESS) return s;
  }
  *object<Dropout>(desc) = Dropout{dropout, states, bytes, seed, true};
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc, cudnnHandle_t handle, float dropout,
                                        void* states, size_t stateSizeInBytes, unsigned long long seed) {
  return set_dropout(dropoutDesc, handle, dropout, states, stateSizeInBytes, seed, true);
}

cudnnStatus_t cudnnRestoreDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc, cudnnHandle_t handle, float dropout,
                                            void* states, size_t stateSizeInBytes, unsigned long long seed) {
  return set_dropout(dropoutDesc, handle, dropout, states, stateSizeInBytes, seed, false);
}

cudnnStatus_t cudnnGetDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc, cudnnHandle_t, float* dropout,
                                        void** states, unsigned long long* seed) {
  if (!dropoutDesc || !dropout || !states || !seed) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  const Dropout& d = *object<Dropout>(dropoutDesc);
  if (!d.set) return CUDNN_STATUS_BAD_PARAM;
  *dropout = d.dropout, *states = d.states, *seed = d.seed;
  return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t dropout_pass(cudnnHandle_t handle, cudnnDropoutDescriptor_t desc, cudnnTensorDescriptor_t in_desc,
                           const void* in, cudnnTensorDescriptor_t out_desc, void* out, void* reserve,
                           size_t reserve_bytes) {
  if (!desc || !in_desc || !out_desc || !object<Dropout>(desc)->set) return CUDNN_STATUS_BAD_PARAM;
  size_t mask = 0;
  emulated::cudnnDropoutGetReserveSpaceSize(in_desc, &mask);
  const uint64_t bytes = mask * element_bytes(static_cast<cudnnDataType_t>(tensor_of(in_desc)->record.data_type));
  if (reserve_bytes < mask) return CUDNN_STATUS_BAD_PARAM;
  return record(handle, {{in, bytes}, {out, bytes}, {reserve, mask}});
}

cudnnStatus_t cudnnDropoutForward(cudnnHandle_t handle, const cudnnDropoutDescriptor_t dropoutDesc,
                                  const cudnnTensorDescriptor_t xdesc, const void* x,
                                  const cudnnTensorDescriptor_t ydesc, void* y, void* reserveSpace,
                                  size_t reserveSpaceSizeInBytes) {
  return dropout_pass(handle, dropoutDesc, xdesc, x, ydesc, y, reserveSpace, reserveSpaceSizeInBytes);
}

cudnnStatus_t cudnnDropoutBackward(cudnnHandle_t handle, const cudnnDropoutDescriptor_t dropoutDesc,
                                   const cudnnTensorDescriptor_t dydesc, const void* dy,
                                   const cudnnTensorDescriptor_t dxdesc, void* dx, void* reserveSpace,
                                   size_t reserveSpaceSizeInBytes) {
  return dropout_pass(handle, dropoutDesc, dydesc, dy, dxdesc, dx, reserveSpace, reserveSpaceSizeInBytes);
}

// ---- RNN descriptors ----
cudnnStatus_t cudnnCreateRNNDescriptor(cudnnRNNDescriptor_t* d) { return create<Rnn>(d); }
cudnnStatus_t cudnnDestroyRNNDescriptor(cudnnRNNDescriptor_t d) { return destroy<Rnn>(d); }

cudnnStatus_t cudnnSetRNNDescriptor_v8(cudnnRNNDescriptor_t rnnDesc, cudnnRNNAlgo_t algo, cudnnRNNMode_t cellMode,
                                       cudnnRNNBiasMode_t biasMode, cudnnDirectionMode_t dirMode,
                                       cudnnRNNInputMode_t inputMode, cudnnDataType_t dataType,
                                       cudnnDataType_t mathPrec, cudnnMathType_t mathType, int32_t inputSize,
                                       int32_t hiddenSize, int32_t projSize, int32_t numLayers,
                                       cudnnDropoutDescriptor_t dropoutDesc, uint32_t auxFlags) {
  if (!rnnDesc) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  // Enums arrive as a peer's integers: compare them as integers.
  const int cell = static_cast<int>(cellMode), bias = static_cast<int>(biasMode), dir = static_cast<int>(dirMode);
  if (cell < CUDNN_RNN_RELU || cell > CUDNN_GRU || bias < CUDNN_RNN_NO_BIAS || bias > CUDNN_RNN_SINGLE_REC_BIAS ||
      dir < CUDNN_UNIDIRECTIONAL || dir > CUDNN_BIDIRECTIONAL || inputSize < 1 || hiddenSize < 1 || numLayers < 1 ||
      inputSize > kMaxWidth || hiddenSize > kMaxWidth || numLayers > 64)
    return CUDNN_STATUS_BAD_PARAM;
  if (projSize != hiddenSize || static_cast<int>(inputMode) != CUDNN_LINEAR_INPUT)
    return CUDNN_STATUS_NOT_SUPPORTED;  // the emulator has no projections, no skip input
  Rnn& r = *object<Rnn>(rnnDesc);
  r = Rnn{algo, cellMode, biasMode, dirMode, inputMode, dataType, mathPrec, mathType, inputSize, hiddenSize, projSize,
          numLayers, dropoutDesc, auxFlags, CUDNN_RNN_CLIP_NONE, CUDNN_NOT_PROPAGATE_NAN, 0.0, 0.0, true};
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnRNNSetClip_v8(cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t clipMode,
                                 cudnnNanPropagation_t clipNanOpt, double lclip, double rclip) {
  if (!rnnDesc) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (static_cast<int>(clipMode) == CUDNN_RNN_CLIP_MINMAX && lclip > rclip) return CUDNN_STATUS_BAD_PARAM;
  Rnn& r = *object<Rnn>(rnnDesc);
  r.clip_mode = clipMode, r.clip_nan = clipNanOpt, r.lclip = lclip, r.rclip = rclip;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnRNNGetClip_v8(cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t* clipMode,
                                 cudnnNanPropagation_t* clipNanOpt, double* lclip, double* rclip) {
  if (!rnnDesc || !clipMode || !clipNanOpt || !lclip || !rclip) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  const Rnn& r = *object<Rnn>(rnnDesc);
  *clipMode = r.clip_mode, *clipNanOpt = r.clip_nan, *lclip = r.lclip, *rclip = r.rclip;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetRNNWeightSpaceSize(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, size_t* weightSpaceSize) {
  if (!rnnDesc || !weightSpaceSize) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (!cudnn_stream(handle) || !object<Rnn>(rnnDesc)->set) return CUDNN_STATUS_BAD_PARAM;
  *weightSpaceSize = weight_bytes(*object<Rnn>(rnnDesc));
  return CUDNN_STATUS_SUCCESS;
}

// Nothing is computed here, but the sizes depend on what cuDNN's do (the descriptors' settings,
// the mode, dropout in training), so that a client's cached answer can be told from a fresh one:
// a layer's gate outputs for every step as work space, every layer's as reserve space in training,
// and dropout's masks beside them.
cudnnStatus_t cudnnGetRNNTempSpaceSizes(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnForwardMode_t fwdMode,
                                        cudnnRNNDataDescriptor_t xDesc, size_t* workSpaceSize,
                                        size_t* reserveSpaceSize) {
  if (!rnnDesc || !xDesc || !workSpaceSize) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  const Rnn& r = *object<Rnn>(rnnDesc);
  const RnnData& x = *object<RnnData>(xDesc);
  if (!cudnn_stream(handle) || !r.set || !x.set) return CUDNN_STATUS_BAD_PARAM;
  uint64_t steps = 0;
  for (int b = 0; b < x.batch; ++b) steps += uint64_t(x.seq_lengths[b]);
  const uint64_t layer = steps * uint64_t(r.hidden) * uint64_t(gates(r) * directions(r)) * element_bytes(r.data_type);
  const bool dropout = r.dropout && object<Dropout>(r.dropout)->set && object<Dropout>(r.dropout)->dropout > 0;
  *workSpaceSize = layer;
  if (reserveSpaceSize)
    *reserveSpaceSize = fwdMode == CUDNN_FWD_MODE_TRAINING ? layer * uint64_t(r.layers) * (dropout ? 2 : 1) : 0;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetRNNWeightParams(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int32_t pseudoLayer,
                                      size_t weightSpaceSize, const void* weightSpace, int32_t linLayerID,
                                      cudnnTensorDescriptor_t mDesc, void** mAddr, cudnnTensorDescriptor_t bDesc,
                                      void** bAddr) {
  if (!rnnDesc) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  const Rnn& r = *object<Rnn>(rnnDesc);
  if (!cudnn_stream(handle) || !r.set || pseudoLayer < 0 || pseudoLayer >= r.layers * directions(r) ||
      linLayerID < 0 || linLayerID >= 2 * gates(r) || weightSpaceSize < weight_bytes(r))
    return CUDNN_STATUS_BAD_PARAM;
  uint64_t base = 0;
  for (int p = 0; p < pseudoLayer; ++p) base += layer_elements(r, p);
  const uint64_t e = element_bytes(r.data_type);
  const auto* space = static_cast<const uint8_t*>(weightSpace);
  const int cols = static_cast<int>(columns(r, pseudoLayer, linLayerID));
  set_matrix(mDesc, r.data_type, r.hidden, cols);
  if (mAddr) *mAddr = const_cast<uint8_t*>(space + (base + layer_offset(r, pseudoLayer, linLayerID)) * e);
  const bool bias = has_bias(r, linLayerID);
  set_matrix(bDesc, r.data_type, bias ? r.hidden : 0, 1);
  if (bAddr)
    *bAddr = bias ? const_cast<uint8_t*>(space + (base + layer_offset(r, pseudoLayer, 2 * gates(r) + linLayerID)) * e)
                  : nullptr;
  return CUDNN_STATUS_SUCCESS;
}

// ---- RNN data descriptors ----
cudnnStatus_t cudnnCreateRNNDataDescriptor(cudnnRNNDataDescriptor_t* d) { return create<RnnData>(d); }
cudnnStatus_t cudnnDestroyRNNDataDescriptor(cudnnRNNDataDescriptor_t d) { return destroy<RnnData>(d); }

cudnnStatus_t cudnnSetRNNDataDescriptor(cudnnRNNDataDescriptor_t rnnDataDesc, cudnnDataType_t dataType,
                                        cudnnRNNDataLayout_t layout, int maxSeqLength, int batchSize, int vectorSize,
                                        const int seqLengthArray[], void* paddingFill) {
  if (!rnnDataDesc || !seqLengthArray) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (maxSeqLength < 1 || batchSize < 1 || vectorSize < 1 || static_cast<int>(layout) < 0 ||
      static_cast<int>(layout) > CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED)
    return CUDNN_STATUS_BAD_PARAM;
  if (batchSize > kMaxBatch) return CUDNN_STATUS_NOT_SUPPORTED;
  for (int i = 0; i < batchSize; ++i) {
    if (seqLengthArray[i] < 1 || seqLengthArray[i] > maxSeqLength) return CUDNN_STATUS_BAD_PARAM;
  }
  RnnData& d = *object<RnnData>(rnnDataDesc);
  d = RnnData{dataType, layout, maxSeqLength, batchSize, vectorSize, {}, 0.0, true};
  std::copy(seqLengthArray, seqLengthArray + batchSize, d.seq_lengths);
  if (paddingFill) std::memcpy(&d.fill, paddingFill, element_bytes(dataType));
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetRNNDataDescriptor(cudnnRNNDataDescriptor_t rnnDataDesc, cudnnDataType_t* dataType,
                                        cudnnRNNDataLayout_t* layout, int* maxSeqLength, int* batchSize,
                                        int* vectorSize, int arrayLengthRequested, int seqLengthArray[],
                                        void* paddingFill) {
  if (!rnnDataDesc) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  const RnnData& d = *object<RnnData>(rnnDataDesc);
  if (!d.set || arrayLengthRequested < 0) return CUDNN_STATUS_BAD_PARAM;
  if (dataType) *dataType = d.data_type;
  if (layout) *layout = d.layout;
  if (maxSeqLength) *maxSeqLength = d.max_seq;
  if (batchSize) *batchSize = d.batch;
  if (vectorSize) *vectorSize = d.vector;
  if (seqLengthArray) std::copy(d.seq_lengths, d.seq_lengths + std::min(arrayLengthRequested, d.batch), seqLengthArray);
  if (paddingFill) std::memcpy(paddingFill, &d.fill, element_bytes(d.data_type));
  return CUDNN_STATUS_SUCCESS;
}

// ---- RNN compute: checked and recorded ----
// x and y (y: hidden x directions wide) against the descriptors, the weights against their size.
static cudnnStatus_t rnn_pass(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnRNNDataDescriptor_t xDesc,
                       const void* x, cudnnRNNDataDescriptor_t yDesc, const void* y, size_t weight_size,
                       const void* weights) {
  if (!rnnDesc || !xDesc || !yDesc) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  const Rnn& r = *object<Rnn>(rnnDesc);
  const RnnData &xd = *object<RnnData>(xDesc), &yd = *object<RnnData>(yDesc);
  if (!r.set || !xd.set || !yd.set || xd.vector != r.input || yd.vector != r.hidden * directions(r) ||
      xd.batch != yd.batch || weight_size < weight_bytes(r))
    return CUDNN_STATUS_BAD_PARAM;
  return record(handle, {{x, data_bytes(xd)}, {y, data_bytes(yd)}, {weights, weight_bytes(r)}});
}

cudnnStatus_t cudnnRNNForward(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnForwardMode_t,
                              const int32_t[], cudnnRNNDataDescriptor_t xDesc, const void* x,
                              cudnnRNNDataDescriptor_t yDesc, void* y, cudnnTensorDescriptor_t, const void*, void*,
                              cudnnTensorDescriptor_t, const void*, void*, size_t weightSpaceSize,
                              const void* weightSpace, size_t, void*, size_t, void*) {
  return rnn_pass(handle, rnnDesc, xDesc, x, yDesc, y, weightSpaceSize, weightSpace);
}

cudnnStatus_t cudnnRNNBackwardData_v8(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, const int32_t[],
                                      cudnnRNNDataDescriptor_t yDesc, const void* y, const void*,
                                      cudnnRNNDataDescriptor_t xDesc, void* dx, cudnnTensorDescriptor_t, const void*,
                                      const void*, void*, cudnnTensorDescriptor_t, const void*, const void*, void*,
                                      size_t weightSpaceSize, const void* weightSpace, size_t, void*, size_t, void*) {
  return rnn_pass(handle, rnnDesc, xDesc, dx, yDesc, y, weightSpaceSize, weightSpace);
}

cudnnStatus_t cudnnRNNBackwardWeights_v8(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnWgradMode_t,
                                         const int32_t[], cudnnRNNDataDescriptor_t xDesc, const void* x,
                                         cudnnTensorDescriptor_t, const void*, cudnnRNNDataDescriptor_t yDesc,
                                         const void* y, size_t weightSpaceSize, void* dweightSpace, size_t, void*,
                                         size_t, void*) {
  return rnn_pass(handle, rnnDesc, xDesc, x, yDesc, y, weightSpaceSize, dweightSpace);
}

// ---- CTC loss ----
cudnnStatus_t cudnnCreateCTCLossDescriptor(cudnnCTCLossDescriptor_t* d) { return create<CtcLoss>(d); }
cudnnStatus_t cudnnDestroyCTCLossDescriptor(cudnnCTCLossDescriptor_t d) { return destroy<CtcLoss>(d); }

cudnnStatus_t cudnnSetCTCLossDescriptor_v8(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t compType,
                                           cudnnLossNormalizationMode_t normMode, cudnnNanPropagation_t gradMode,
                                           int maxLabelLength) {
  if (!ctcLossDesc) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (maxLabelLength < 1) return CUDNN_STATUS_BAD_PARAM;
  *object<CtcLoss>(ctcLossDesc) = CtcLoss{compType, normMode, gradMode, maxLabelLength, true};
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetCTCLossDescriptor_v8(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t* compType,
                                           cudnnLossNormalizationMode_t* normMode, cudnnNanPropagation_t* gradMode,
                                           int* maxLabelLength) {
  if (!ctcLossDesc || !compType || !normMode || !gradMode || !maxLabelLength)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  const CtcLoss& c = *object<CtcLoss>(ctcLossDesc);
  if (!c.set) return CUDNN_STATUS_BAD_PARAM;
  *compType = c.comp_type, *normMode = c.norm_mode, *gradMode = c.grad_mode, *maxLabelLength = c.max_label_length;
  return CUDNN_STATUS_SUCCESS;
}

// The v7 host arrays against probabilities of T x N x A: each label in 1..A-1 (0 is the blank),
// each label length at most the descriptor's and its input length, each input length at most T.
static cudnnStatus_t check_ctc(cudnnTensorDescriptor_t probsDesc, cudnnCTCLossDescriptor_t ctcLossDesc, const int* labels,
                        const int* labelLengths, const int* inputLengths) {
  if (!probsDesc || !ctcLossDesc || !labels || !labelLengths || !inputLengths)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  const wire::cudnn::TensorRecord& p = tensor_of(probsDesc)->record;
  const CtcLoss& c = *object<CtcLoss>(ctcLossDesc);
  if (!c.set || p.nb_dims != 3) return CUDNN_STATUS_BAD_PARAM;
  const int* label = labels;
  for (int n = 0; n < p.dims[1]; ++n) {
    if (labelLengths[n] < 0 || labelLengths[n] > c.max_label_length || labelLengths[n] > inputLengths[n] ||
        inputLengths[n] > p.dims[0])
      return CUDNN_STATUS_BAD_PARAM;
    for (int i = 0; i < labelLengths[n]; ++i, ++label) {
      if (*label < 1 || *label >= p.dims[2]) return CUDNN_STATUS_BAD_PARAM;
    }
  }
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetCTCLossWorkspaceSize(cudnnHandle_t handle, const cudnnTensorDescriptor_t probsDesc,
                                           const cudnnTensorDescriptor_t, const int* labels, const int* labelLengths,
                                           const int* inputLengths, cudnnCTCLossAlgo_t,
                                           cudnnCTCLossDescriptor_t ctcLossDesc, size_t* sizeInBytes) {
  if (!sizeInBytes) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (!cudnn_stream(handle)) return CUDNN_STATUS_BAD_PARAM;
  cudnnStatus_t s = check_ctc(probsDesc, ctcLossDesc, labels, labelLengths, inputLengths);
  if (s == CUDNN_STATUS_SUCCESS) *sizeInBytes = 0;  // nothing is computed
  return s;
}

cudnnStatus_t cudnnCTCLoss(cudnnHandle_t handle, const cudnnTensorDescriptor_t probsDesc, const void* probs,
                           const int hostLabels[], const int hostLabelLengths[], const int hostInputLengths[],
                           void* costs, const cudnnTensorDescriptor_t, void* gradients, cudnnCTCLossAlgo_t,
                           cudnnCTCLossDescriptor_t ctcLossDesc, void*, size_t) {
  cudnnStatus_t s = check_ctc(probsDesc, ctcLossDesc, hostLabels, hostLabelLengths, hostInputLengths);
  if (s != CUDNN_STATUS_SUCCESS) return s;
  const wire::cudnn::TensorRecord& p = tensor_of(probsDesc)->record;
  const uint64_t e = element_bytes(static_cast<cudnnDataType_t>(p.data_type));
  const uint64_t probs_bytes = uint64_t(p.dims[0]) * uint64_t(p.dims[1]) * uint64_t(p.dims[2]) * e;
  return record(handle, {{probs, probs_bytes}, {costs, uint64_t(p.dims[1]) * e}, {gradients, gradients ? probs_bytes : 0}});
}

namespace {

const Entry kTable[] = {
    RGPU_EMULATED(cudnnGetTensorNdDescriptor),
    RGPU_EMULATED(cudnnCreateDropoutDescriptor),
    RGPU_EMULATED(cudnnDestroyDropoutDescriptor),
    RGPU_EMULATED(cudnnDropoutGetStatesSize),
    RGPU_EMULATED(cudnnDropoutGetReserveSpaceSize),
    RGPU_EMULATED(cudnnSetDropoutDescriptor),
    RGPU_EMULATED(cudnnRestoreDropoutDescriptor),
    RGPU_EMULATED(cudnnGetDropoutDescriptor),
    RGPU_EMULATED(cudnnDropoutForward),
    RGPU_EMULATED(cudnnDropoutBackward),
    RGPU_EMULATED(cudnnCreateRNNDescriptor),
    RGPU_EMULATED(cudnnDestroyRNNDescriptor),
    RGPU_EMULATED(cudnnSetRNNDescriptor_v8),
    RGPU_EMULATED(cudnnRNNSetClip_v8),
    RGPU_EMULATED(cudnnRNNGetClip_v8),
    RGPU_EMULATED(cudnnGetRNNWeightSpaceSize),
    RGPU_EMULATED(cudnnGetRNNTempSpaceSizes),
    RGPU_EMULATED(cudnnGetRNNWeightParams),
    RGPU_EMULATED(cudnnCreateRNNDataDescriptor),
    RGPU_EMULATED(cudnnDestroyRNNDataDescriptor),
    RGPU_EMULATED(cudnnSetRNNDataDescriptor),
    RGPU_EMULATED(cudnnGetRNNDataDescriptor),
    RGPU_EMULATED(cudnnRNNForward),
    RGPU_EMULATED(cudnnRNNBackwardData_v8),
    RGPU_EMULATED(cudnnRNNBackwardWeights_v8),
    RGPU_EMULATED(cudnnCreateCTCLossDescriptor),
    RGPU_EMULATED(cudnnDestroyCTCLossDescriptor),
    RGPU_EMULATED(cudnnSetCTCLossDescriptor_v8),
    RGPU_EMULATED(cudnnGetCTCLossDescriptor_v8),
    RGPU_EMULATED(cudnnGetCTCLossWorkspaceSize),
    RGPU_EMULATED(cudnnCTCLoss),
};

}  // namespace

void* resolve_cudnn_rnn(const char* name) { return find_entry(kTable, name); }

}  // namespace rgpu::server::emulated
