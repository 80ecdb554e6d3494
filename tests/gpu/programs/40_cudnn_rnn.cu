// cuDNN's RNN, dropout and CTC loss through the libcudnn.so.9 shim: a one-layer LSTM forward in
// training mode against a host LSTM in double, its backward data and weights against finite
// differences of that host LSTM, dropout forward and backward (every output zero or the input
// scaled by 1/(1-p), backward applying forward's mask), and a CTC loss (host labels) that is
// finite and positive. Weights are written where cudnnGetRNNWeightParams says each matrix and bias
// lives. Only verdicts and sizes are printed.
#include <cudnn.h>

#include <cmath>
#include <vector>

#include "suite_check.h"

#define CHECK_DNN(call) check_dnn((call), #call, __LINE__)
inline void check_dnn(cudnnStatus_t status, const char* call, int line) {
  if (status != CUDNN_STATUS_SUCCESS) {
    say("FAIL: %s returned %s (line %d)\n", call, cudnnGetErrorString(status), line);
    exit(1);
  }
}

namespace {

constexpr int T = 6, N = 3, I = 5, H = 4;  // steps, batch, input, hidden

// Small values in [-0.5, 0.5], different per seed.
std::vector<float> pattern(size_t n, int seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float(int((i * 37 + size_t(seed) * 11 + i / 7) % 21) - 10) / 20.0f;
  return v;
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// Where each of the LSTM's 8 matrices (input i, f, g, o; then recurrent) and 8 biases lives in
// the weight space, in floats.
struct Layout {
  size_t matrix[8], bias[8];
};

// The host LSTM (cuDNN's equations) over x (T x N x I), zero initial states: y (T x N x H) and
// L = sum(y * g).
double host_lstm(const std::vector<double>& w, const Layout& at, const std::vector<double>& x,
                 const std::vector<double>& g, std::vector<double>* y_out) {
  std::vector<double> h(N * H, 0.0), c(N * H, 0.0), y(size_t(T) * N * H);
  double loss = 0;
  for (int t = 0; t < T; ++t) {
    std::vector<double> hn(N * H), cn(N * H);
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < H; ++k) {
        double gate[4];
        for (int q = 0; q < 4; ++q) {
          double s = w[at.bias[q] + size_t(k)] + w[at.bias[4 + q] + size_t(k)];
          for (int j = 0; j < I; ++j) s += w[at.matrix[q] + size_t(k * I + j)] * x[size_t((t * N + n) * I + j)];
          for (int j = 0; j < H; ++j) s += w[at.matrix[4 + q] + size_t(k * H + j)] * h[size_t(n * H + j)];
          gate[q] = s;
        }
        const double i = sigmoid(gate[0]), f = sigmoid(gate[1]), gg = std::tanh(gate[2]), o = sigmoid(gate[3]);
        const size_t at_nk = size_t(n * H + k);
        cn[at_nk] = f * c[at_nk] + i * gg;
        hn[at_nk] = o * std::tanh(cn[at_nk]);
        y[size_t(t) * N * H + at_nk] = hn[at_nk];
        loss += hn[at_nk] * g[size_t(t) * N * H + at_nk];
      }
    h = hn, c = cn;
  }
  if (y_out) *y_out = y;
  return loss;
}

bool near(double got, double want, double tolerance) {
  return std::fabs(got - want) <= tolerance * (1 + std::fabs(want));
}

void lstm(cudnnHandle_t handle) {
  cudnnDropoutDescriptor_t drop;
  CHECK_DNN(cudnnCreateDropoutDescriptor(&drop));
  size_t states_size = 0;
  CHECK_DNN(cudnnDropoutGetStatesSize(handle, &states_size));
  void* states;
  CHECK_CUDA(cudaMalloc(&states, states_size));
  CHECK_DNN(cudnnSetDropoutDescriptor(drop, handle, 0.0f, states, states_size, 1));
  cudnnRNNDescriptor_t rnn;
  CHECK_DNN(cudnnCreateRNNDescriptor(&rnn));
  CHECK_DNN(cudnnSetRNNDescriptor_v8(rnn, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
                                     CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                     CUDNN_FMA_MATH, I, H, H, 1, drop, CUDNN_RNN_PADDED_IO_DISABLED));
  size_t weight_bytes = 0;
  CHECK_DNN(cudnnGetRNNWeightSpaceSize(handle, rnn, &weight_bytes));
  say("lstm weight space: %zu bytes\n", weight_bytes);
  const size_t nw = weight_bytes / sizeof(float);
  std::vector<float> wf = pattern(nw, 3);
  float* w = to_device(wf);
  float* dw;
  CHECK_CUDA(cudaMalloc(&dw, weight_bytes));
  CHECK_CUDA(cudaMemset(dw, 0, weight_bytes));

  Layout at{};
  cudnnTensorDescriptor_t m, b;
  CHECK_DNN(cudnnCreateTensorDescriptor(&m));
  CHECK_DNN(cudnnCreateTensorDescriptor(&b));
  bool shapes = true;
  for (int lin = 0; lin < 8; ++lin) {
    void *ma = nullptr, *ba = nullptr;
    CHECK_DNN(cudnnGetRNNWeightParams(handle, rnn, 0, weight_bytes, w, lin, m, &ma, b, &ba));
    cudnnDataType_t type;
    int nb = 0, dims[3] = {}, strides[3] = {};
    CHECK_DNN(cudnnGetTensorNdDescriptor(m, 3, &type, &nb, dims, strides));
    shapes = shapes && nb == 3 && dims[1] == H && dims[2] == (lin < 4 ? I : H) && ma && ba;
    at.matrix[lin] = size_t(static_cast<float*>(ma) - w);
    at.bias[lin] = size_t(static_cast<float*>(ba) - w);
  }
  expect(shapes, "lstm weight matrices: 4 x 5 input, 4 x 4 recurrent, each with its bias");

  cudnnRNNDataDescriptor_t xd, yd;
  CHECK_DNN(cudnnCreateRNNDataDescriptor(&xd));
  CHECK_DNN(cudnnCreateRNNDataDescriptor(&yd));
  const int lengths[N] = {T, T, T};
  CHECK_DNN(cudnnSetRNNDataDescriptor(xd, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, T, N, I, lengths,
                                      nullptr));
  CHECK_DNN(cudnnSetRNNDataDescriptor(yd, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, T, N, H, lengths,
                                      nullptr));
  cudnnTensorDescriptor_t hd;
  CHECK_DNN(cudnnCreateTensorDescriptor(&hd));
  const int hdims[3] = {1, N, H}, hstrides[3] = {N * H, H, 1};
  CHECK_DNN(cudnnSetTensorNdDescriptor(hd, CUDNN_DATA_FLOAT, 3, hdims, hstrides));
  size_t work_size = 0, reserve_size = 0;
  CHECK_DNN(cudnnGetRNNTempSpaceSizes(handle, rnn, CUDNN_FWD_MODE_TRAINING, xd, &work_size, &reserve_size));
  void *work = nullptr, *reserve = nullptr;
  CHECK_CUDA(cudaMalloc(&work, work_size + 16));
  CHECK_CUDA(cudaMalloc(&reserve, reserve_size + 16));
  int* seq;
  CHECK_CUDA(cudaMalloc(&seq, sizeof lengths));
  CHECK_CUDA(cudaMemcpy(seq, lengths, sizeof lengths, cudaMemcpyHostToDevice));

  std::vector<float> xf = pattern(size_t(T) * N * I, 5), gf = pattern(size_t(T) * N * H, 7);
  float *x = to_device(xf), *gy = to_device(gf), *y, *dx;
  CHECK_CUDA(cudaMalloc(&y, gf.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dx, xf.size() * sizeof(float)));
  CHECK_DNN(cudnnRNNForward(handle, rnn, CUDNN_FWD_MODE_TRAINING, seq, xd, x, yd, y, hd, nullptr, nullptr, hd, nullptr,
                            nullptr, weight_bytes, w, work_size, work, reserve_size, reserve));
  CHECK_DNN(cudnnRNNBackwardData_v8(handle, rnn, seq, yd, y, gy, xd, dx, hd, nullptr, nullptr, nullptr, hd, nullptr,
                                    nullptr, nullptr, weight_bytes, w, work_size, work, reserve_size, reserve));
  CHECK_DNN(cudnnRNNBackwardWeights_v8(handle, rnn, CUDNN_WGRAD_MODE_ADD, seq, xd, x, hd, nullptr, yd, y, weight_bytes,
                                       dw, work_size, work, reserve_size, reserve));

  std::vector<double> wd(wf.begin(), wf.end()), xv(xf.begin(), xf.end()), g(gf.begin(), gf.end()), want;
  host_lstm(wd, at, xv, g, &want);
  std::vector<float> got = to_host(y, want.size());
  bool fwd = true;
  for (size_t i = 0; i < want.size(); ++i) fwd = fwd && near(got[i], want[i], 1e-4);
  expect(fwd, "lstm forward (training) matches the host LSTM");

  // Gradients of L = sum(y * g) by central differences of the host LSTM.
  const double step = 1e-4;
  auto numeric = [&](std::vector<double>& v, size_t i) {
    const double keep = v[i];
    v[i] = keep + step;
    const double up = host_lstm(wd, at, xv, g, nullptr);
    v[i] = keep - step;
    const double down = host_lstm(wd, at, xv, g, nullptr);
    v[i] = keep;
    return (up - down) / (2 * step);
  };
  std::vector<float> gx = to_host(dx, xf.size()), gw = to_host(dw, nw);
  bool bwd_data = true, bwd_weights = true;
  for (size_t i = 0; i < xv.size(); i += 7) bwd_data = bwd_data && near(gx[i], numeric(xv, i), 1e-3);
  const size_t probes[] = {at.matrix[0], at.matrix[1] + 6, at.matrix[2] + 11, at.matrix[5] + 3, at.matrix[7] + 15,
                           at.bias[2] + 1, at.bias[6] + 3};
  for (size_t i : probes) bwd_weights = bwd_weights && near(gw[i], numeric(wd, i), 1e-3);
  expect(bwd_data, "lstm backward data matches finite differences");
  expect(bwd_weights, "lstm backward weights match finite differences");

  for (void* p : {static_cast<void*>(x), static_cast<void*>(gy), static_cast<void*>(y), static_cast<void*>(dx),
                  static_cast<void*>(w), static_cast<void*>(dw), work, reserve, static_cast<void*>(seq), states})
    CHECK_CUDA(cudaFree(p));
  CHECK_DNN(cudnnDestroyTensorDescriptor(hd));
  CHECK_DNN(cudnnDestroyTensorDescriptor(m));
  CHECK_DNN(cudnnDestroyTensorDescriptor(b));
  CHECK_DNN(cudnnDestroyRNNDataDescriptor(xd));
  CHECK_DNN(cudnnDestroyRNNDataDescriptor(yd));
  CHECK_DNN(cudnnDestroyRNNDescriptor(rnn));
  CHECK_DNN(cudnnDestroyDropoutDescriptor(drop));
}

void dropout(cudnnHandle_t handle) {
  constexpr int kCount = 4096;
  constexpr float kP = 0.5f;
  size_t states_size = 0, reserve_size = 0;
  CHECK_DNN(cudnnDropoutGetStatesSize(handle, &states_size));
  void *states, *reserve;
  CHECK_CUDA(cudaMalloc(&states, states_size));
  cudnnDropoutDescriptor_t d;
  CHECK_DNN(cudnnCreateDropoutDescriptor(&d));
  CHECK_DNN(cudnnSetDropoutDescriptor(d, handle, kP, states, states_size, 1234));
  float p = 0;
  void* got_states = nullptr;
  unsigned long long seed = 0;
  CHECK_DNN(cudnnGetDropoutDescriptor(d, handle, &p, &got_states, &seed));
  expect(p == kP && got_states == states && seed == 1234, "dropout descriptor reads back");
  cudnnTensorDescriptor_t t;
  CHECK_DNN(cudnnCreateTensorDescriptor(&t));
  CHECK_DNN(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, kCount));
  CHECK_DNN(cudnnDropoutGetReserveSpaceSize(t, &reserve_size));
  CHECK_CUDA(cudaMalloc(&reserve, reserve_size));
  std::vector<float> xf(kCount), ones(kCount, 1.0f);
  for (int i = 0; i < kCount; ++i) xf[i] = 1.0f + float(i % 13);
  float *x = to_device(xf), *dy = to_device(ones), *y, *dx;
  CHECK_CUDA(cudaMalloc(&y, kCount * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dx, kCount * sizeof(float)));
  CHECK_DNN(cudnnDropoutForward(handle, d, t, x, t, y, reserve, reserve_size));
  CHECK_DNN(cudnnDropoutBackward(handle, d, t, dy, t, dx, reserve, reserve_size));
  std::vector<float> yv = to_host(y, kCount), dxv = to_host(dx, kCount);
  int dropped = 0;
  bool scaled = true, same_mask = true;
  for (int i = 0; i < kCount; ++i) {
    const bool zero = yv[i] == 0.0f;
    dropped += zero;
    scaled = scaled && (zero || near(yv[i], xf[i] / (1 - kP), 1e-6));
    same_mask = same_mask && (zero ? dxv[i] == 0.0f : near(dxv[i], 1 / (1 - kP), 1e-6));
  }
  expect(scaled, "dropout forward: each output is zero or the input / (1 - p)");
  expect(dropped > kCount / 3 && dropped < 2 * kCount / 3, "dropout forward drops about half");
  expect(same_mask, "dropout backward applies forward's mask");
  for (void* q : {static_cast<void*>(x), static_cast<void*>(dy), static_cast<void*>(y), static_cast<void*>(dx), states,
                  reserve})
    CHECK_CUDA(cudaFree(q));
  CHECK_DNN(cudnnDestroyTensorDescriptor(t));
  CHECK_DNN(cudnnDestroyDropoutDescriptor(d));
}

// T = 8 steps, a batch of 2, 5 symbols (0: blank), zero logits: uniform probabilities.
void ctc_loss(cudnnHandle_t handle) {
  constexpr int kT = 8, kN = 2, kA = 5;
  cudnnCTCLossDescriptor_t ctc;
  CHECK_DNN(cudnnCreateCTCLossDescriptor(&ctc));
  CHECK_DNN(cudnnSetCTCLossDescriptorEx(ctc, CUDNN_DATA_FLOAT, CUDNN_LOSS_NORMALIZATION_SOFTMAX,
                                        CUDNN_NOT_PROPAGATE_NAN));
  cudnnTensorDescriptor_t probs;
  CHECK_DNN(cudnnCreateTensorDescriptor(&probs));
  const int dims[3] = {kT, kN, kA}, strides[3] = {kN * kA, kA, 1};
  CHECK_DNN(cudnnSetTensorNdDescriptor(probs, CUDNN_DATA_FLOAT, 3, dims, strides));
  const int labels[5] = {1, 2, 3, 4, 1}, label_lengths[kN] = {2, 3}, input_lengths[kN] = {kT, kT - 1};
  size_t work_size = 0;
  CHECK_DNN(cudnnGetCTCLossWorkspaceSize(handle, probs, probs, labels, label_lengths, input_lengths,
                                         CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, ctc, &work_size));
  float *p, *grads, *costs;
  void* work;
  CHECK_CUDA(cudaMalloc(&p, sizeof(float) * kT * kN * kA));
  CHECK_CUDA(cudaMemset(p, 0, sizeof(float) * kT * kN * kA));
  CHECK_CUDA(cudaMalloc(&grads, sizeof(float) * kT * kN * kA));
  CHECK_CUDA(cudaMalloc(&costs, sizeof(float) * kN));
  CHECK_CUDA(cudaMalloc(&work, work_size + 16));
  CHECK_DNN(cudnnCTCLoss(handle, probs, p, labels, label_lengths, input_lengths, costs, probs, grads,
                         CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, ctc, work, work_size));
  std::vector<float> c = to_host(costs, kN);
  // Each cost is -log(alignments x (1/5)^T), with fewer than 5^T alignments: positive.
  expect(std::isfinite(c[0]) && std::isfinite(c[1]) && c[0] > 0 && c[1] > 0, "ctc loss costs are finite and positive");
  for (void* q : {static_cast<void*>(p), static_cast<void*>(grads), static_cast<void*>(costs), work})
    CHECK_CUDA(cudaFree(q));
  CHECK_DNN(cudnnDestroyTensorDescriptor(probs));
  CHECK_DNN(cudnnDestroyCTCLossDescriptor(ctc));
}

}  // namespace

int main() {
  cudnnHandle_t handle;
  CHECK_DNN(cudnnCreate(&handle));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  CHECK_DNN(cudnnSetStream(handle, stream));
  lstm(handle);
  dropout(handle);
  ctc_loss(handle);
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_DNN(cudnnDestroy(handle));
  CHECK_CUDA(cudaStreamDestroy(stream));
  return finish("40_cudnn_rnn");
}
