// cuDNN's legacy ops through the libcudnn.so.9 shim: their descriptors (pooling, LRN, op tensor,
// reduce tensor) set without waiting and read back, pooling forward and backward (max, 2x2 stride
// 2) and its output dimensions, LRN cross-channel forward and backward, op tensor (add, mul),
// reduce tensor (sum over H and W, with its workspace and indices sizes), set, scale and transform
// tensor (NCHW to NHWC), softmax backward, convolution backward bias and the fused convolution,
// bias and ReLU forward. Inputs are small multiples of 1/4 (exact on tensor cores); results are
// checked against host loops within 1e-3, and LRN, whose formula is cuDNN's own, prints integer
// checksums that must match natively and remotely. Only verdicts and integers are printed.
#include <cudnn.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "cudnn_check.h"
#include "suite_check.h"

namespace {

constexpr int N = 2, C = 3, H = 4, W = 6;
constexpr int kCount = N * C * H * W;
constexpr double kTolerance = 1e-3;

// Distinct multiples of 1/4 (no ties for max pooling), different per seed.
std::vector<float> quarters(size_t n, int seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(int((i * 37 + size_t(seed) * 11) % 97) - 48) / 4.0f;
  return v;
}

bool close(const std::vector<float>& got, const std::vector<double>& want) {
  if (got.size() != want.size()) return false;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::fabs(got[i] - want[i]) > kTolerance * (1 + std::fabs(want[i]))) return false;
  }
  return true;
}

long long checksum(const std::vector<float>& v) {
  double s = 0;
  for (size_t i = 0; i < v.size(); ++i) s += v[i] * double(i % 7 + 1);
  return std::llround(s * 1000);
}

int at(int n, int c, int h, int w) { return ((n * C + c) * H + h) * W + w; }

cudnnTensorDescriptor_t tensor(int n, int c, int h, int w, cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW) {
  cudnnTensorDescriptor_t d;
  CHECK_DNN(cudnnCreateTensorDescriptor(&d));
  CHECK_DNN(cudnnSetTensor4dDescriptor(d, format, CUDNN_DATA_FLOAT, n, c, h, w));
  return d;
}

const float kOne = 1, kZero = 0;

void pooling(cudnnHandle_t handle, cudnnTensorDescriptor_t xd, const std::vector<float>& x, float* dx_in) {
  cudnnPoolingDescriptor_t pool;
  CHECK_DNN(cudnnCreatePoolingDescriptor(&pool));
  CHECK_DNN(cudnnSetPooling2dDescriptor(pool, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
  cudnnPoolingMode_t mode;
  cudnnNanPropagation_t nan_opt;
  int wh, ww, ph, pw, sh, sw;
  CHECK_DNN(cudnnGetPooling2dDescriptor(pool, &mode, &nan_opt, &wh, &ww, &ph, &pw, &sh, &sw));
  expect(mode == CUDNN_POOLING_MAX && nan_opt == CUDNN_NOT_PROPAGATE_NAN && wh == 2 && ww == 2 && ph == 0 &&
             pw == 0 && sh == 2 && sw == 2,
         "pooling descriptor reads back");
  int n, c, h, w;
  CHECK_DNN(cudnnGetPooling2dForwardOutputDim(pool, xd, &n, &c, &h, &w));
  expect(n == N && c == C && h == H / 2 && w == W / 2, "pooling output dimensions");
  const int out = N * C * (H / 2) * (W / 2);
  cudnnTensorDescriptor_t yd = tensor(N, C, H / 2, W / 2);
  float *y, *dy;
  CHECK_CUDA(cudaMalloc(&y, out * sizeof(float)));
  std::vector<float> dy_host = quarters(out, 3);
  dy = to_device(dy_host);
  CHECK_DNN(cudnnPoolingForward(handle, pool, &kOne, xd, dx_in, &kZero, yd, y));
  float* dx;
  CHECK_CUDA(cudaMalloc(&dx, kCount * sizeof(float)));
  CHECK_DNN(cudnnPoolingBackward(handle, pool, &kOne, yd, y, yd, dy, xd, dx_in, &kZero, xd, dx));
  std::vector<double> want_y(out), want_dx(kCount, 0.0);
  for (int in = 0; in < N; ++in)
    for (int ic = 0; ic < C; ++ic)
      for (int oh = 0; oh < H / 2; ++oh)
        for (int ow = 0; ow < W / 2; ++ow) {
          int best = at(in, ic, 2 * oh, 2 * ow);
          for (int r = 0; r < 2; ++r)
            for (int s = 0; s < 2; ++s) {
              const int i = at(in, ic, 2 * oh + r, 2 * ow + s);
              if (x[i] > x[best]) best = i;
            }
          const int o = ((in * C + ic) * (H / 2) + oh) * (W / 2) + ow;
          want_y[o] = x[best];
          want_dx[best] += dy_host[o];
        }
  expect(close(to_host(y, out), want_y), "max pooling forward matches the host");
  expect(close(to_host(dx, kCount), want_dx), "max pooling backward matches the host");
  CHECK_DNN(cudnnDestroyPoolingDescriptor(pool));
  CHECK_DNN(cudnnDestroyTensorDescriptor(yd));
  CHECK_CUDA(cudaFree(dx));
  CHECK_CUDA(cudaFree(y));
}

void lrn(cudnnHandle_t handle, cudnnTensorDescriptor_t xd, float* x) {
  cudnnLRNDescriptor_t norm;
  CHECK_DNN(cudnnCreateLRNDescriptor(&norm));
  CHECK_DNN(cudnnSetLRNDescriptor(norm, 3, 1e-2, 0.75, 2.0));
  unsigned n = 0;
  double alpha = 0, beta = 0, k = 0;
  CHECK_DNN(cudnnGetLRNDescriptor(norm, &n, &alpha, &beta, &k));
  expect(n == 3 && alpha == 1e-2 && beta == 0.75 && k == 2.0, "LRN descriptor reads back");
  float *y, *dx;
  CHECK_CUDA(cudaMalloc(&y, kCount * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dx, kCount * sizeof(float)));
  float* dy = to_device(quarters(kCount, 5));
  CHECK_DNN(cudnnLRNCrossChannelForward(handle, norm, CUDNN_LRN_CROSS_CHANNEL_DIM1, &kOne, xd, x, &kZero, xd, y));
  CHECK_DNN(cudnnLRNCrossChannelBackward(handle, norm, CUDNN_LRN_CROSS_CHANNEL_DIM1, &kOne, xd, y, xd, dy, xd, x,
                                         &kZero, xd, dx));
  say("LRN forward checksum: %lld\n", checksum(to_host(y, kCount)));
  say("LRN backward checksum: %lld\n", checksum(to_host(dx, kCount)));
  CHECK_DNN(cudnnDestroyLRNDescriptor(norm));
  CHECK_CUDA(cudaFree(dy));
  CHECK_CUDA(cudaFree(dx));
  CHECK_CUDA(cudaFree(y));
}

void op_tensor(cudnnHandle_t handle, cudnnTensorDescriptor_t xd, const std::vector<float>& a, float* da) {
  const std::vector<float> b = quarters(kCount, 7);
  float* db = to_device(b);
  float* dc;
  CHECK_CUDA(cudaMalloc(&dc, kCount * sizeof(float)));
  cudnnOpTensorDescriptor_t op;
  CHECK_DNN(cudnnCreateOpTensorDescriptor(&op));
  const float two = 2, half = 0.5f;
  for (cudnnOpTensorOp_t kind : {CUDNN_OP_TENSOR_ADD, CUDNN_OP_TENSOR_MUL}) {
    CHECK_DNN(cudnnSetOpTensorDescriptor(op, kind, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
    cudnnOpTensorOp_t got;
    cudnnDataType_t type;
    cudnnNanPropagation_t nan_opt;
    CHECK_DNN(cudnnGetOpTensorDescriptor(op, &got, &type, &nan_opt));
    CHECK_DNN(cudnnOpTensor(handle, op, &two, xd, da, &half, xd, db, &kZero, xd, dc));
    std::vector<double> want(kCount);
    for (int i = 0; i < kCount; ++i)
      want[i] = kind == CUDNN_OP_TENSOR_ADD ? 2.0 * a[i] + 0.5 * b[i] : (2.0 * a[i]) * (0.5 * b[i]);
    expect(got == kind && type == CUDNN_DATA_FLOAT && close(to_host(dc, kCount), want),
           kind == CUDNN_OP_TENSOR_ADD ? "op tensor add matches the host" : "op tensor mul matches the host");
  }
  CHECK_DNN(cudnnDestroyOpTensorDescriptor(op));
  CHECK_CUDA(cudaFree(dc));
  CHECK_CUDA(cudaFree(db));
}

void reduce(cudnnHandle_t handle, cudnnTensorDescriptor_t xd, const std::vector<float>& x, float* dx) {
  cudnnReduceTensorDescriptor_t r;
  CHECK_DNN(cudnnCreateReduceTensorDescriptor(&r));
  CHECK_DNN(cudnnSetReduceTensorDescriptor(r, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                                           CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES));
  cudnnReduceTensorOp_t op;
  cudnnDataType_t type;
  cudnnNanPropagation_t nan_opt;
  cudnnReduceTensorIndices_t indices;
  cudnnIndicesType_t indices_type;
  CHECK_DNN(cudnnGetReduceTensorDescriptor(r, &op, &type, &nan_opt, &indices, &indices_type));
  expect(op == CUDNN_REDUCE_TENSOR_ADD && indices == CUDNN_REDUCE_TENSOR_NO_INDICES, "reduce descriptor reads back");
  cudnnTensorDescriptor_t cd = tensor(N, C, 1, 1);
  size_t workspace_size = 0, indices_size = 1;
  CHECK_DNN(cudnnGetReductionWorkspaceSize(handle, r, xd, cd, &workspace_size));
  CHECK_DNN(cudnnGetReductionIndicesSize(handle, r, xd, cd, &indices_size));
  void* workspace = nullptr;
  if (workspace_size) CHECK_CUDA(cudaMalloc(&workspace, workspace_size));
  float* c;
  CHECK_CUDA(cudaMalloc(&c, N * C * sizeof(float)));
  CHECK_DNN(cudnnReduceTensor(handle, r, nullptr, 0, workspace, workspace_size, &kOne, xd, dx, &kZero, cd, c));
  std::vector<double> want(N * C, 0.0);
  for (int i = 0; i < kCount; ++i) want[i / (H * W)] += x[i];
  expect(indices_size == 0 && close(to_host(c, N * C), want), "reduce tensor (sum over H, W) matches the host");
  CHECK_DNN(cudnnDestroyReduceTensorDescriptor(r));
  CHECK_DNN(cudnnDestroyTensorDescriptor(cd));
  CHECK_CUDA(cudaFree(c));
  if (workspace) CHECK_CUDA(cudaFree(workspace));
}

void set_scale_transform(cudnnHandle_t handle, cudnnTensorDescriptor_t xd, const std::vector<float>& x, float* dx) {
  float* y;
  CHECK_CUDA(cudaMalloc(&y, kCount * sizeof(float)));
  const float value = 1.25f, scale = -2;
  CHECK_DNN(cudnnSetTensor(handle, xd, y, &value));
  CHECK_DNN(cudnnScaleTensor(handle, xd, y, &scale));
  expect(close(to_host(y, kCount), std::vector<double>(kCount, -2.5)), "set tensor then scale tensor");
  cudnnTensorDescriptor_t nhwc = tensor(N, C, H, W, CUDNN_TENSOR_NHWC);
  CHECK_DNN(cudnnTransformTensor(handle, &kOne, xd, dx, &kZero, nhwc, y));
  std::vector<double> want(kCount);
  for (int n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c)
      for (int h = 0; h < H; ++h)
        for (int w = 0; w < W; ++w) want[((n * H + h) * W + w) * C + c] = x[at(n, c, h, w)];
  expect(close(to_host(y, kCount), want), "transform tensor NCHW to NHWC");
  CHECK_DNN(cudnnDestroyTensorDescriptor(nhwc));
  CHECK_CUDA(cudaFree(y));
}

// Softmax over channels, then its backward: dx = y (dy - sum_c dy y).
void softmax_backward(cudnnHandle_t handle, cudnnTensorDescriptor_t xd, float* dx_in) {
  float *y, *dx;
  CHECK_CUDA(cudaMalloc(&y, kCount * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dx, kCount * sizeof(float)));
  const std::vector<float> dy_host = quarters(kCount, 9);
  float* dy = to_device(dy_host);
  CHECK_DNN(cudnnSoftmaxForward(handle, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &kOne, xd, dx_in, &kZero,
                                xd, y));
  CHECK_DNN(cudnnSoftmaxBackward(handle, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &kOne, xd, y, xd, dy,
                                 &kZero, xd, dx));
  const std::vector<float> yh = to_host(y, kCount);
  std::vector<double> want(kCount);
  for (int n = 0; n < N; ++n)
    for (int h = 0; h < H; ++h)
      for (int w = 0; w < W; ++w) {
        double dot = 0;
        for (int c = 0; c < C; ++c) dot += double(dy_host[at(n, c, h, w)]) * yh[at(n, c, h, w)];
        for (int c = 0; c < C; ++c) want[at(n, c, h, w)] = yh[at(n, c, h, w)] * (dy_host[at(n, c, h, w)] - dot);
      }
  expect(close(to_host(dx, kCount), want), "softmax backward matches the host");
  CHECK_CUDA(cudaFree(dy));
  CHECK_CUDA(cudaFree(dx));
  CHECK_CUDA(cudaFree(y));
}

// A 3x3 convolution (pad 1) of x with K filters: its bias gradient, and the fused
// convolution + bias + ReLU forward.
void convolution_bias(cudnnHandle_t handle, cudnnTensorDescriptor_t xd, const std::vector<float>& x, float* dx) {
  constexpr int K = 4;
  const std::vector<float> wh = quarters(K * C * 9, 11), bias_h = quarters(K, 13), dy_h = quarters(N * K * H * W, 15);
  float *w = to_device(wh), *bias = to_device(bias_h), *dy = to_device(dy_h), *y, *db;
  CHECK_CUDA(cudaMalloc(&y, N * K * H * W * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&db, K * sizeof(float)));
  cudnnTensorDescriptor_t yd = tensor(N, K, H, W), bd = tensor(1, K, 1, 1);
  CHECK_DNN(cudnnConvolutionBackwardBias(handle, &kOne, yd, dy, &kZero, bd, db));
  std::vector<double> want_db(K, 0.0);
  for (int i = 0; i < N * K * H * W; ++i) want_db[(i / (H * W)) % K] += dy_h[i];
  expect(close(to_host(db, K), want_db), "convolution backward bias matches the host");

  cudnnFilterDescriptor_t wd;
  CHECK_DNN(cudnnCreateFilterDescriptor(&wd));
  CHECK_DNN(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, 3, 3));
  cudnnConvolutionDescriptor_t conv;
  CHECK_DNN(cudnnCreateConvolutionDescriptor(&conv));
  CHECK_DNN(cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  cudnnActivationDescriptor_t relu;
  CHECK_DNN(cudnnCreateActivationDescriptor(&relu));
  CHECK_DNN(cudnnSetActivationDescriptor(relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
  const cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
  size_t workspace_size = 0;
  CHECK_DNN(cudnnGetConvolutionForwardWorkspaceSize(handle, xd, wd, conv, yd, algo, &workspace_size));
  void* workspace = nullptr;
  if (workspace_size) CHECK_CUDA(cudaMalloc(&workspace, workspace_size));
  // alpha2 = 0: z (here y itself) does not count.
  CHECK_DNN(cudnnConvolutionBiasActivationForward(handle, &kOne, xd, dx, wd, w, conv, algo, workspace, workspace_size,
                                                  &kZero, yd, y, bd, bias, relu, yd, y));
  std::vector<double> want(N * K * H * W);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k)
      for (int h = 0; h < H; ++h)
        for (int ww = 0; ww < W; ++ww) {
          double s = bias_h[k];
          for (int c = 0; c < C; ++c)
            for (int r = 0; r < 3; ++r)
              for (int q = 0; q < 3; ++q) {
                const int ih = h + r - 1, iw = ww + q - 1;
                if (ih >= 0 && ih < H && iw >= 0 && iw < W) s += double(wh[((k * C + c) * 3 + r) * 3 + q]) * x[at(n, c, ih, iw)];
              }
          want[((n * K + k) * H + h) * W + ww] = std::max(s, 0.0);
        }
  expect(close(to_host(y, N * K * H * W), want), "convolution + bias + ReLU forward matches the host");
  if (workspace) CHECK_CUDA(cudaFree(workspace));
  CHECK_DNN(cudnnDestroyActivationDescriptor(relu));
  CHECK_DNN(cudnnDestroyConvolutionDescriptor(conv));
  CHECK_DNN(cudnnDestroyFilterDescriptor(wd));
  CHECK_DNN(cudnnDestroyTensorDescriptor(bd));
  CHECK_DNN(cudnnDestroyTensorDescriptor(yd));
  for (float* p : {w, bias, dy, y, db}) CHECK_CUDA(cudaFree(p));
}

}  // namespace

int main() {
  // The handle works in the legacy default stream, so the copies back (cudaMemcpy) follow its work.
  cudnnHandle_t handle;
  CHECK_DNN(cudnnCreate(&handle));
  const std::vector<float> x = quarters(kCount, 1);
  float* dx = to_device(x);
  cudnnTensorDescriptor_t xd = tensor(N, C, H, W);
  pooling(handle, xd, x, dx);
  lrn(handle, xd, dx);
  op_tensor(handle, xd, x, dx);
  reduce(handle, xd, x, dx);
  set_scale_transform(handle, xd, x, dx);
  softmax_backward(handle, xd, dx);
  convolution_bias(handle, xd, x, dx);
  CHECK_DNN(cudnnDestroyTensorDescriptor(xd));
  CHECK_CUDA(cudaFree(dx));
  CHECK_DNN(cudnnDestroy(handle));
  return finish("38_cudnn_ops");
}
