// cuDNN's RNN, dropout and CTC loss calls through the shim against rgpud --emulate (whose cuDNN
// keeps these descriptors as cuDNN does, answers sizes from its own layouts and records compute
// without running it): descriptors read back through the server, the weight space and the weight
// matrices' descriptors and addresses, compute accepted, CTC's host arrays arriving whole. Prints
// "ok: ..." per check and "ok: cudnn_rnn_tour" last.
//
// Mode for round-trip counting (RGPU_STATS=1):
//   cudnn_rnn_tour dropout_queries N   asks the dropout reserve size of one tensor N times: 1 round
//                                      trip (+1 for the closing synchronize), whatever N
//   cudnn_rnn_tour weight_queries N    N times, as PyTorch does per call: a new RNN descriptor set
//                                      alike, its weight-space size, and where 3 matrices lie in
//                                      the weights and in their gradients (which must agree); then
//                                      one descriptor set otherwise. The same round trips whatever N
//   cudnn_rnn_tour temp_queries N      N times, as PyTorch's RNN step does: new dropout, RNN and
//                                      RNN data descriptors set alike, the temporary sizes asked for
//                                      the forward and the backward pass; then three questions that
//                                      differ in one thing each. The same round trips whatever N
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tour_checks.h"

#define CHECK_DNN(x) CHECK_STATUS(#x, x, CUDNN_STATUS_SUCCESS, cudnnGetErrorString)

namespace {

// LSTM, 2 layers, both directions, input 4, hidden 8, two biases: per direction, layer 0 holds
// 4 x 8 x 4 + 4 x 8 x 8 weights and 8 x 8 biases (448), layer 1 (input 16) 4 x 8 x 16 + 4 x 8 x 8
// and 8 x 8 (832).
constexpr int kInput = 4, kHidden = 8, kLayers = 2, kSeq = 5, kBatch = 3;
constexpr size_t kWeights = 2 * (448 + 832);

int dropout(cudnnHandle_t handle) {
  size_t states_size = 0;
  CHECK_DNN(cudnnDropoutGetStatesSize(handle, &states_size));
  EXPECT(states_size > 0, "cudnnDropoutGetStatesSize answers");
  void* states;
  CHECK_CUDA(cudaMalloc(&states, states_size));
  cudnnDropoutDescriptor_t d;
  CHECK_DNN(cudnnCreateDropoutDescriptor(&d));
  CHECK_DNN(cudnnSetDropoutDescriptor(d, handle, 0.25f, states, states_size, 42));
  float p = 0;
  void* got_states = nullptr;
  unsigned long long seed = 0;
  CHECK_DNN(cudnnGetDropoutDescriptor(d, handle, &p, &got_states, &seed));
  EXPECT(p == 0.25f && got_states == states && seed == 42, "a dropout descriptor reads back (states: the caller's)");
  CHECK_DNN(cudnnRestoreDropoutDescriptor(d, handle, 0.5f, states, states_size, 7));
  CHECK_DNN(cudnnGetDropoutDescriptor(d, handle, &p, &got_states, &seed));
  EXPECT(p == 0.5f && seed == 7, "cudnnRestoreDropoutDescriptor is replayed");

  cudnnTensorDescriptor_t x;
  CHECK_DNN(cudnnCreateTensorDescriptor(&x));
  CHECK_DNN(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 5));
  size_t reserve_size = 0;
  CHECK_DNN(cudnnDropoutGetReserveSpaceSize(x, &reserve_size));
  EXPECT(reserve_size >= 120, "cudnnDropoutGetReserveSpaceSize answers (a mask of 120 elements)");
  float *in, *out;
  void* reserve;
  CHECK_CUDA(cudaMalloc(&in, 120 * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&out, 120 * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&reserve, reserve_size));
  CHECK_DNN(cudnnDropoutForward(handle, d, x, in, x, out, reserve, reserve_size));
  CHECK_DNN(cudnnDropoutBackward(handle, d, x, out, x, in, reserve, reserve_size));
  CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT(true, "dropout forward and backward are accepted");
  // A reserve space too small: refused on the server, after the call returned.
  EXPECT(cudnnDropoutForward(handle, d, x, in, x, out, reserve, 1) == CUDNN_STATUS_SUCCESS,
         "dropout forward is sent without waiting");
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_DNN(cudnnDestroyTensorDescriptor(x));
  CHECK_DNN(cudnnDestroyDropoutDescriptor(d));
  CHECK_CUDA(cudaFree(in));
  CHECK_CUDA(cudaFree(out));
  CHECK_CUDA(cudaFree(reserve));
  CHECK_CUDA(cudaFree(states));
  return 0;
}

int rnn_data(cudnnRNNDataDescriptor_t d, int vector) {
  const int lengths[kBatch] = {5, 3, 2};
  float fill = 0.5f;
  CHECK_DNN(cudnnSetRNNDataDescriptor(d, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, kSeq, kBatch,
                                      vector, lengths, &fill));
  cudnnDataType_t type;
  cudnnRNNDataLayout_t layout;
  int seq = 0, batch = 0, vec = 0, got[kBatch] = {};
  float got_fill = 0;
  CHECK_DNN(cudnnGetRNNDataDescriptor(d, &type, &layout, &seq, &batch, &vec, kBatch, got, &got_fill));
  EXPECT(type == CUDNN_DATA_FLOAT && layout == CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED && seq == kSeq &&
             batch == kBatch && vec == vector && got[0] == 5 && got[1] == 3 && got[2] == 2 && got_fill == 0.5f,
         "an RNN data descriptor reads back (sequence lengths, padding fill)");
  return 0;
}

// The weight matrix or bias of (pseudo-layer, lin) lies in the weight space with these dimensions.
int weight(cudnnHandle_t handle, cudnnRNNDescriptor_t rnn, void* w, int layer, int lin, int cols, const char* what) {
  cudnnTensorDescriptor_t m, b;
  CHECK_DNN(cudnnCreateTensorDescriptor(&m));
  CHECK_DNN(cudnnCreateTensorDescriptor(&b));
  void *m_addr = nullptr, *b_addr = nullptr;
  CHECK_DNN(cudnnGetRNNWeightParams(handle, rnn, layer, kWeights * sizeof(float), w, lin, m, &m_addr, b, &b_addr));
  cudnnDataType_t type;
  int nb = 0, dims[3] = {}, strides[3] = {}, bnb = 0, bdims[3] = {};
  CHECK_DNN(cudnnGetTensorNdDescriptor(m, 3, &type, &nb, dims, strides));
  CHECK_DNN(cudnnGetTensorNdDescriptor(b, 3, &type, &bnb, bdims, strides));
  auto* base = static_cast<char*>(w);
  auto inside = [&](void* p) { return static_cast<char*>(p) >= base && static_cast<char*>(p) < base + kWeights * 4; };
  EXPECT(nb == 3 && dims[1] == kHidden && dims[2] == cols && bnb == 3 && bdims[1] == kHidden && inside(m_addr) &&
             inside(b_addr) && m_addr != b_addr,
         what);
  CHECK_DNN(cudnnDestroyTensorDescriptor(m));
  CHECK_DNN(cudnnDestroyTensorDescriptor(b));
  return 0;
}

int rnn(cudnnHandle_t handle) {
  cudnnDropoutDescriptor_t drop;
  CHECK_DNN(cudnnCreateDropoutDescriptor(&drop));
  CHECK_DNN(cudnnSetDropoutDescriptor(drop, handle, 0.0f, nullptr, 0, 0));
  cudnnRNNDescriptor_t rnn;
  CHECK_DNN(cudnnCreateRNNDescriptor(&rnn));
  CHECK_DNN(cudnnSetRNNDescriptor_v8(rnn, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
                                     CUDNN_BIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                     CUDNN_DEFAULT_MATH, kInput, kHidden, kHidden, kLayers, drop,
                                     CUDNN_RNN_PADDED_IO_ENABLED));
  cudnnRNNMode_t cell;
  cudnnDirectionMode_t dir;
  int32_t hidden = 0, layers = 0;
  cudnnDropoutDescriptor_t got_drop = nullptr;
  CHECK_DNN(cudnnGetRNNDescriptor_v8(rnn, nullptr, &cell, nullptr, &dir, nullptr, nullptr, nullptr, nullptr, nullptr,
                                     &hidden, nullptr, &layers, &got_drop, nullptr));
  EXPECT(cell == CUDNN_LSTM && dir == CUDNN_BIDIRECTIONAL && hidden == kHidden && layers == kLayers && got_drop == drop,
         "an RNN descriptor reads back (its dropout descriptor: the caller's)");
  CHECK_DNN(cudnnRNNSetClip_v8(rnn, CUDNN_RNN_CLIP_MINMAX, CUDNN_PROPAGATE_NAN, -2.0, 3.0));
  cudnnRNNClipMode_t clip;
  cudnnNanPropagation_t nan;
  double lo = 0, hi = 0;
  CHECK_DNN(cudnnRNNGetClip_v8(rnn, &clip, &nan, &lo, &hi));
  EXPECT(clip == CUDNN_RNN_CLIP_MINMAX && nan == CUDNN_PROPAGATE_NAN && lo == -2.0 && hi == 3.0,
         "an RNN descriptor's clipping reads back");
  size_t weight_size = 0;
  CHECK_DNN(cudnnGetRNNWeightSpaceSize(handle, rnn, &weight_size));
  EXPECT(weight_size == kWeights * sizeof(float), "cudnnGetRNNWeightSpaceSize: 2560 floats");

  cudnnRNNDataDescriptor_t x, y;
  CHECK_DNN(cudnnCreateRNNDataDescriptor(&x));
  CHECK_DNN(cudnnCreateRNNDataDescriptor(&y));
  if (rnn_data(x, kInput) || rnn_data(y, 2 * kHidden)) return 1;
  size_t work_size = 1, reserve_size = 1;
  CHECK_DNN(cudnnGetRNNTempSpaceSizes(handle, rnn, CUDNN_FWD_MODE_TRAINING, x, &work_size, &reserve_size));
  EXPECT(true, "cudnnGetRNNTempSpaceSizes answers");

  void *w, *dw, *xs, *ys, *h, *c, *work, *reserve;
  int* seq;
  const size_t x_bytes = sizeof(float) * kSeq * kBatch * kInput, y_bytes = sizeof(float) * kSeq * kBatch * 2 * kHidden;
  const size_t h_bytes = sizeof(float) * 2 * kLayers * kBatch * kHidden;
  CHECK_CUDA(cudaMalloc(&w, weight_size));
  CHECK_CUDA(cudaMalloc(&dw, weight_size));
  CHECK_CUDA(cudaMalloc(&xs, x_bytes));
  CHECK_CUDA(cudaMalloc(&ys, y_bytes));
  CHECK_CUDA(cudaMalloc(&h, h_bytes));
  CHECK_CUDA(cudaMalloc(&c, h_bytes));
  CHECK_CUDA(cudaMalloc(&work, work_size + 1));
  CHECK_CUDA(cudaMalloc(&reserve, reserve_size + 1));
  CHECK_CUDA(cudaMalloc(&seq, sizeof(int) * kBatch));
  if (weight(handle, rnn, w, 0, 1, kInput, "layer 0's input matrix and bias: 8 x 4, inside the weight space") ||
      weight(handle, rnn, w, 2, 1, 2 * kHidden, "layer 1's input matrix: 8 x 16 (both directions in)") ||
      weight(handle, rnn, w, 3, 6, kHidden, "a recurrent matrix: 8 x 8"))
    return 1;

  cudnnTensorDescriptor_t hd;
  CHECK_DNN(cudnnCreateTensorDescriptor(&hd));
  const int hdims[3] = {2 * kLayers, kBatch, kHidden}, hstrides[3] = {kBatch * kHidden, kHidden, 1};
  CHECK_DNN(cudnnSetTensorNdDescriptor(hd, CUDNN_DATA_FLOAT, 3, hdims, hstrides));
  CHECK_DNN(cudnnRNNForward(handle, rnn, CUDNN_FWD_MODE_TRAINING, seq, x, xs, y, ys, hd, h, h, hd, c, c, weight_size,
                            w, work_size, work, reserve_size, reserve));
  CHECK_DNN(cudnnRNNBackwardData_v8(handle, rnn, seq, y, ys, ys, x, xs, hd, h, h, h, hd, c, c, c, weight_size, w,
                                    work_size, work, reserve_size, reserve));
  CHECK_DNN(cudnnRNNBackwardWeights_v8(handle, rnn, CUDNN_WGRAD_MODE_ADD, seq, x, xs, hd, h, y, ys, weight_size, dw,
                                       work_size, work, reserve_size, reserve));
  CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT(true, "RNN forward, backward data and backward weights are accepted");

  CHECK_DNN(cudnnDestroyTensorDescriptor(hd));
  CHECK_DNN(cudnnDestroyRNNDataDescriptor(x));
  CHECK_DNN(cudnnDestroyRNNDataDescriptor(y));
  CHECK_DNN(cudnnDestroyRNNDescriptor(rnn));
  CHECK_DNN(cudnnDestroyDropoutDescriptor(drop));
  for (void* p : {w, dw, xs, ys, h, c, work, reserve, static_cast<void*>(seq)}) CHECK_CUDA(cudaFree(p));
  EXPECT(cudnnGetRNNWeightSpaceSize(handle, rnn, &weight_size) == CUDNN_STATUS_BAD_PARAM &&
             cudnnGetRNNDescriptor_v8(rnn, nullptr, &cell, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                      nullptr, nullptr, nullptr, nullptr, nullptr, nullptr) == CUDNN_STATUS_BAD_PARAM,
         "a destroyed RNN descriptor is refused");
  return 0;
}

int ctc_loss(cudnnHandle_t handle) {
  cudnnCTCLossDescriptor_t ctc;
  CHECK_DNN(cudnnCreateCTCLossDescriptor(&ctc));
  CHECK_DNN(cudnnSetCTCLossDescriptor_v8(ctc, CUDNN_DATA_FLOAT, CUDNN_LOSS_NORMALIZATION_SOFTMAX,
                                         CUDNN_NOT_PROPAGATE_NAN, 4));
  cudnnDataType_t type;
  cudnnLossNormalizationMode_t norm;
  cudnnNanPropagation_t grad;
  int max_label = 0;
  CHECK_DNN(cudnnGetCTCLossDescriptor_v8(ctc, &type, &norm, &grad, &max_label));
  EXPECT(type == CUDNN_DATA_FLOAT && norm == CUDNN_LOSS_NORMALIZATION_SOFTMAX && grad == CUDNN_NOT_PROPAGATE_NAN &&
             max_label == 4,
         "a CTC loss descriptor reads back");
  // T = 6 steps, N = 2 sequences, A = 5 symbols (0: blank).
  cudnnTensorDescriptor_t probs;
  CHECK_DNN(cudnnCreateTensorDescriptor(&probs));
  const int dims[3] = {6, 2, 5}, strides[3] = {10, 5, 1};
  CHECK_DNN(cudnnSetTensorNdDescriptor(probs, CUDNN_DATA_FLOAT, 3, dims, strides));
  const int labels[5] = {1, 2, 3, 4, 1}, label_lengths[2] = {2, 3}, input_lengths[2] = {6, 5};
  size_t work_size = 1;
  CHECK_DNN(cudnnGetCTCLossWorkspaceSize(handle, probs, probs, labels, label_lengths, input_lengths,
                                         CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, ctc, &work_size));
  EXPECT(true, "cudnnGetCTCLossWorkspaceSize takes the host labels and lengths");
  const int bad_labels[5] = {1, 2, 3, 4, 5};  // 5 is no symbol: the server saw the last label
  EXPECT(cudnnGetCTCLossWorkspaceSize(handle, probs, probs, bad_labels, label_lengths, input_lengths,
                                      CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, ctc, &work_size) == CUDNN_STATUS_BAD_PARAM,
         "the server checks every host label (a bad last one is refused)");
  float *p, *costs, *grads;
  void* work;
  CHECK_CUDA(cudaMalloc(&p, sizeof(float) * 60));
  CHECK_CUDA(cudaMalloc(&grads, sizeof(float) * 60));
  CHECK_CUDA(cudaMalloc(&costs, sizeof(float) * 2));
  CHECK_CUDA(cudaMalloc(&work, work_size + 1));
  CHECK_DNN(cudnnCTCLoss(handle, probs, p, labels, label_lengths, input_lengths, costs, probs, grads,
                         CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, ctc, work, work_size));
  CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT(true, "cudnnCTCLoss (host labels) is accepted");
  for (void* q : {static_cast<void*>(p), static_cast<void*>(costs), static_cast<void*>(grads), work})
    CHECK_CUDA(cudaFree(q));
  CHECK_DNN(cudnnDestroyTensorDescriptor(probs));
  CHECK_DNN(cudnnDestroyCTCLossDescriptor(ctc));
  return 0;
}

// A new LSTM descriptor (and dropout descriptor) of `hidden` units, set as rnn() sets its own.
int lstm(cudnnRNNDescriptor_t* rnn, cudnnDropoutDescriptor_t* drop, int hidden) {
  CHECK_DNN(cudnnCreateDropoutDescriptor(drop));
  CHECK_DNN(cudnnCreateRNNDescriptor(rnn));
  CHECK_DNN(cudnnSetRNNDescriptor_v8(*rnn, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
                                     CUDNN_BIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                     CUDNN_DEFAULT_MATH, kInput, hidden, hidden, kLayers, *drop,
                                     CUDNN_RNN_PADDED_IO_ENABLED));
  return 0;
}

int destroy_lstm(cudnnRNNDescriptor_t rnn, cudnnDropoutDescriptor_t drop) {
  CHECK_DNN(cudnnDestroyRNNDescriptor(rnn));
  CHECK_DNN(cudnnDestroyDropoutDescriptor(drop));
  return 0;
}

int weight_queries(cudnnHandle_t handle, int times) {
  void *w, *dw;
  CHECK_CUDA(cudaMalloc(&w, kWeights * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dw, kWeights * sizeof(float)));
  const int places[3][2] = {{0, 1}, {2, 1}, {3, 6}};  // (pseudo-layer, linear layer)
  bool agree = true;
  for (int i = 0; i < times; ++i) {
    cudnnRNNDescriptor_t rnn;
    cudnnDropoutDescriptor_t drop;
    if (lstm(&rnn, &drop, kHidden)) return 1;
    size_t size = 0;
    CHECK_DNN(cudnnGetRNNWeightSpaceSize(handle, rnn, &size));
    agree = agree && size == kWeights * sizeof(float);
    for (const auto& at : places) {
      cudnnTensorDescriptor_t m, dm;
      CHECK_DNN(cudnnCreateTensorDescriptor(&m));
      CHECK_DNN(cudnnCreateTensorDescriptor(&dm));
      void *m_addr = nullptr, *dm_addr = nullptr, *b_addr = nullptr, *db_addr = nullptr;
      CHECK_DNN(cudnnGetRNNWeightParams(handle, rnn, at[0], size, w, at[1], m, &m_addr, nullptr, &b_addr));
      CHECK_DNN(cudnnGetRNNWeightParams(handle, rnn, at[0], size, dw, at[1], dm, &dm_addr, nullptr, &db_addr));
      cudnnDataType_t type;
      int nb = 0, dims[3] = {}, strides[3] = {}, dnb = 0, ddims[3] = {};
      CHECK_DNN(cudnnGetTensorNdDescriptor(m, 3, &type, &nb, dims, strides));
      CHECK_DNN(cudnnGetTensorNdDescriptor(dm, 3, &type, &dnb, ddims, strides));
      const auto offset = [](void* p, void* base) { return static_cast<char*>(p) - static_cast<char*>(base); };
      agree = agree && nb == 3 && dnb == 3 && dims[1] == kHidden && ddims[1] == kHidden && dims[2] == ddims[2] &&
              m_addr && b_addr && offset(m_addr, w) == offset(dm_addr, dw) && offset(b_addr, w) == offset(db_addr, dw);
      CHECK_DNN(cudnnDestroyTensorDescriptor(m));
      CHECK_DNN(cudnnDestroyTensorDescriptor(dm));
    }
    if (destroy_lstm(rnn, drop)) return 1;
  }
  EXPECT(agree, "each new descriptor's weight space and matrices agree, in the weights as in their gradients");
  // Set otherwise, a descriptor has other answers (none from the cache of the first settings).
  cudnnRNNDescriptor_t rnn;
  cudnnDropoutDescriptor_t drop;
  if (lstm(&rnn, &drop, 2 * kHidden)) return 1;
  size_t size = 0;
  CHECK_DNN(cudnnGetRNNWeightSpaceSize(handle, rnn, &size));
  cudnnTensorDescriptor_t m;
  CHECK_DNN(cudnnCreateTensorDescriptor(&m));
  void* m_addr = nullptr;
  CHECK_DNN(cudnnGetRNNWeightParams(handle, rnn, 3, size, w, 6, m, &m_addr, nullptr, nullptr));
  cudnnDataType_t type;
  int nb = 0, dims[3] = {}, strides[3] = {};
  CHECK_DNN(cudnnGetTensorNdDescriptor(m, 3, &type, &nb, dims, strides));
  EXPECT(size > kWeights * sizeof(float) && nb == 3 && dims[1] == 2 * kHidden && dims[2] == 2 * kHidden,
         "a descriptor set to 16 hidden units has its own weight space and matrices");
  CHECK_DNN(cudnnDestroyTensorDescriptor(m));
  if (destroy_lstm(rnn, drop)) return 1;
  CHECK_CUDA(cudaFree(w));
  CHECK_CUDA(cudaFree(dw));
  return 0;
}

// New descriptors as PyTorch makes them for each pass: no dropout (or `p`, with `states`), an LSTM
// of kHidden units, its input of kBatch sequences of `lengths`.
struct Pass {
  cudnnDropoutDescriptor_t drop;
  cudnnRNNDescriptor_t rnn;
  cudnnRNNDataDescriptor_t x;
};

int pass(cudnnHandle_t handle, Pass* p, const int (&lengths)[kBatch], float dropout = 0, void* states = nullptr,
         size_t states_size = 0) {
  if (lstm(&p->rnn, &p->drop, kHidden)) return 1;
  CHECK_DNN(cudnnSetDropoutDescriptor(p->drop, handle, dropout, states, states_size, 1));
  CHECK_DNN(cudnnCreateRNNDataDescriptor(&p->x));
  CHECK_DNN(cudnnSetRNNDataDescriptor(p->x, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, kSeq, kBatch,
                                      kInput, lengths, nullptr));
  return 0;
}

int end_pass(const Pass& p) {
  CHECK_DNN(cudnnDestroyRNNDataDescriptor(p.x));
  return destroy_lstm(p.rnn, p.drop);
}

struct TempSizes {
  size_t work = 0, reserve = 0;
  bool operator==(const TempSizes& o) const { return work == o.work && reserve == o.reserve; }
};

int temp_sizes(cudnnHandle_t handle, const Pass& p, cudnnForwardMode_t mode, TempSizes* out) {
  CHECK_DNN(cudnnGetRNNTempSpaceSizes(handle, p.rnn, mode, p.x, &out->work, &out->reserve));
  return 0;
}

// What one question answers: a pass of its own, asked once.
int answer(cudnnHandle_t handle, const int (&lengths)[kBatch], cudnnForwardMode_t mode, float dropout, void* states,
           size_t states_size, TempSizes* out) {
  Pass p;
  if (pass(handle, &p, lengths, dropout, states, states_size) || temp_sizes(handle, p, mode, out)) return 1;
  return end_pass(p);
}

int temp_queries(cudnnHandle_t handle, int times) {
  const int lengths[kBatch] = {5, 3, 2};
  TempSizes first;
  bool agree = true;
  for (int i = 0; i < times; ++i) {
    Pass p;
    TempSizes forward, backward;
    if (pass(handle, &p, lengths) || temp_sizes(handle, p, CUDNN_FWD_MODE_TRAINING, &forward) ||
        temp_sizes(handle, p, CUDNN_FWD_MODE_TRAINING, &backward) || end_pass(p))
      return 1;
    if (i == 0) first = forward;
    agree = agree && forward == first && backward == first;
  }
  EXPECT(agree && first.work > 0 && first.reserve > 0, "each pass's descriptors get the first pass's temporary sizes");
  // Each question that differs in one thing has answers of its own (none from the cache).
  const int shorter[kBatch] = {4, 3, 2};
  TempSizes other_lengths, inference, with_dropout;
  if (answer(handle, shorter, CUDNN_FWD_MODE_TRAINING, 0, nullptr, 0, &other_lengths) ||
      answer(handle, lengths, CUDNN_FWD_MODE_INFERENCE, 0, nullptr, 0, &inference))
    return 1;
  size_t states_size = 0;
  CHECK_DNN(cudnnDropoutGetStatesSize(handle, &states_size));
  void* states = nullptr;
  CHECK_CUDA(cudaMalloc(&states, states_size));
  if (answer(handle, lengths, CUDNN_FWD_MODE_TRAINING, 0.5f, states, states_size, &with_dropout)) return 1;
  CHECK_CUDA(cudaFree(states));
  EXPECT(other_lengths.work < first.work && inference.reserve == 0 && with_dropout.reserve > first.reserve,
         "other sequence lengths, inference and dropout each have their own temporary sizes");
  return 0;
}

int dropout_queries(cudnnHandle_t handle, int times) {
  cudnnTensorDescriptor_t x;
  CHECK_DNN(cudnnCreateTensorDescriptor(&x));
  CHECK_DNN(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 5));
  for (int i = 0; i < times; ++i) {
    size_t size = 0;
    CHECK_DNN(cudnnDropoutGetReserveSpaceSize(x, &size));
  }
  CHECK_DNN(cudnnDestroyTensorDescriptor(x));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  cudnnHandle_t handle;
  CHECK_DNN(cudnnCreate(&handle));
  if (argc > 2 && !std::strcmp(argv[1], "dropout_queries")) {
    if (dropout_queries(handle, std::atoi(argv[2]))) return 1;
    CHECK_CUDA(cudaDeviceSynchronize());
    std::printf("ok: cudnn_rnn_tour dropout_queries\n");
    return 0;
  }
  if (argc > 2 && !std::strcmp(argv[1], "temp_queries")) {
    if (temp_queries(handle, std::atoi(argv[2]))) return 1;
    CHECK_CUDA(cudaDeviceSynchronize());
    std::printf("ok: cudnn_rnn_tour temp_queries\n");
    return 0;
  }
  if (argc > 2 && !std::strcmp(argv[1], "weight_queries")) {
    if (weight_queries(handle, std::atoi(argv[2]))) return 1;
    CHECK_CUDA(cudaDeviceSynchronize());
    std::printf("ok: cudnn_rnn_tour weight_queries\n");
    return 0;
  }
  if (dropout(handle) || rnn(handle) || ctc_loss(handle)) return 1;
  CHECK_DNN(cudnnDestroy(handle));
  std::printf("ok: cudnn_rnn_tour\n");
  return 0;
}
