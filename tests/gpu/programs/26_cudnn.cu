// cuDNN through the libcudnn.so.9 shim: a 2-D convolution forward through the backend (graph) API
// (operation graph, heuristics, engine config, execution plan, a variant pack per execution, as
// PyTorch's cuDNN v9 path does), convolution backward data and filter through the legacy API
// (algorithm heuristics, workspace sizes), batch-norm forward training and backward (Ex) and
// ReLU forward. Inputs are small multiples of 1/4, so products are exact even on TF32 tensor
// cores; every result is checked against a host loop within a tolerance, and only verdicts and
// integer checksums are printed.
#include <cudnn.h>

#include <cmath>
#include <vector>

#include "cudnn_conv_graph.h"
#include "cudnn_check.h"
#include "suite_check.h"

namespace {

const ConvShape kShape{4, 3, 12, 10, 8, 3, 3, 1, 1};  // n c h w, k r s, pad, stride
constexpr double kTolerance = 1e-3;

// Multiples of 1/4 in [-1, 1], different per seed.
std::vector<float> quarters(size_t n, int seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(int((i * 7 + i / 13 + size_t(seed) * 5) % 9) - 4) / 4.0f;
  return v;
}

// The first algorithm the heuristics say runs (they list unsupported ones too, last).
template <typename Perf>
int first_usable(const Perf* perf, int returned) {
  for (int i = 0; i < returned; ++i) {
    if (perf[i].status == CUDNN_STATUS_SUCCESS) return i;
  }
  say("FAIL: no usable algorithm among %d\n", returned);
  exit(1);
}

bool close(const std::vector<float>& got, const std::vector<double>& want, double tolerance) {
  if (got.size() != want.size()) return false;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::fabs(got[i] - want[i]) > tolerance * (1 + std::fabs(want[i]))) return false;
  }
  return true;
}

long long checksum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return std::llround(s * 16);
}

// Index helpers over NCHW tensors of the convolution.
struct Conv {
  const ConvShape& s = kShape;
  int64_t oh = s.out_h(), ow = s.out_w();
  size_t x(int64_t n, int64_t c, int64_t h, int64_t w) const { return size_t(((n * s.c + c) * s.h + h) * s.w + w); }
  size_t f(int64_t k, int64_t c, int64_t r, int64_t q) const { return size_t(((k * s.c + c) * s.r + r) * s.s + q); }
  size_t y(int64_t n, int64_t k, int64_t h, int64_t w) const { return size_t(((n * s.k + k) * oh + h) * ow + w); }
  size_t x_count() const { return size_t(s.n * s.c * s.h * s.w); }
  size_t f_count() const { return size_t(s.k * s.c * s.r * s.s); }
  size_t y_count() const { return size_t(s.n * s.k * oh * ow); }
  // Calls visit(x index, w index, y index) for every multiply of the cross-correlation.
  template <typename F>
  void each(F visit) const {
    for (int64_t n = 0; n < s.n; ++n)
      for (int64_t k = 0; k < s.k; ++k)
        for (int64_t i = 0; i < oh; ++i)
          for (int64_t j = 0; j < ow; ++j)
            for (int64_t c = 0; c < s.c; ++c)
              for (int64_t r = 0; r < s.r; ++r)
                for (int64_t q = 0; q < s.s; ++q) {
                  const int64_t h = i * s.stride - s.pad + r, w = j * s.stride - s.pad + q;
                  if (h >= 0 && h < s.h && w >= 0 && w < s.w) visit(x(n, c, h, w), f(k, c, r, q), y(n, k, i, j));
                }
  }
};

void conv_forward_graph(cudnnHandle_t handle) {
  const Conv cv;
  std::vector<float> x = quarters(cv.x_count(), 1), w = quarters(cv.f_count(), 2);
  float *dx = to_device(x), *dw = to_device(w), *dy = nullptr;
  CHECK_CUDA(cudaMalloc(&dy, cv.y_count() * sizeof(float)));
  ConvGraph graph;
  const char* failed = "";
  cudnnStatus_t s = graph.build(handle, kShape, &failed);
  if (s != CUDNN_STATUS_SUCCESS) {
    say("FAIL: building the convolution graph at %s: %s\n", failed, cudnnGetErrorString(s));
    exit(1);
  }
  void* workspace = nullptr;
  if (graph.workspace_size() > 0) CHECK_CUDA(cudaMalloc(&workspace, size_t(graph.workspace_size())));
  // Several executions, each with a fresh variant pack: the result must not change.
  for (int i = 0; i < 5; ++i) CHECK_DNN(graph.execute(dx, dw, dy, workspace));
  std::vector<double> want(cv.y_count(), 0.0);
  cv.each([&](size_t xi, size_t wi, size_t yi) { want[yi] += double(x[xi]) * double(w[wi]); });
  expect(close(to_host(dy, cv.y_count()), want, kTolerance), "conv2d forward (backend graph API) matches the host");
  say("conv2d forward checksum: %lld\n", checksum(want));
  CHECK_CUDA(cudaFree(workspace));
  CHECK_CUDA(cudaFree(dy));
  CHECK_CUDA(cudaFree(dw));
  CHECK_CUDA(cudaFree(dx));
}

struct LegacyConv {
  cudnnTensorDescriptor_t x, y;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
  LegacyConv() {
    const Conv cv;
    CHECK_DNN(cudnnCreateTensorDescriptor(&x));
    CHECK_DNN(cudnnCreateTensorDescriptor(&y));
    CHECK_DNN(cudnnCreateFilterDescriptor(&w));
    CHECK_DNN(cudnnCreateConvolutionDescriptor(&conv));
    const ConvShape& s = kShape;
    CHECK_DNN(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, int(s.n), int(s.c), int(s.h), int(s.w)));
    CHECK_DNN(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, int(s.n), int(s.k), int(cv.oh),
                                         int(cv.ow)));
    CHECK_DNN(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, int(s.k), int(s.c), int(s.r), int(s.s)));
    CHECK_DNN(cudnnSetConvolution2dDescriptor(conv, int(s.pad), int(s.pad), int(s.stride), int(s.stride), 1, 1,
                                              CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CHECK_DNN(cudnnSetConvolutionMathType(conv, CUDNN_FMA_MATH));  // plain FP32
  }
  ~LegacyConv() {
    cudnnDestroyConvolutionDescriptor(conv);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyTensorDescriptor(x);
  }
};

void conv_backward_legacy(cudnnHandle_t handle) {
  const Conv cv;
  const LegacyConv d;
  std::vector<float> x = quarters(cv.x_count(), 3), w = quarters(cv.f_count(), 4), dy = quarters(cv.y_count(), 5);
  float *px = to_device(x), *pw = to_device(w), *pdy = to_device(dy), *pdx = nullptr, *pdw = nullptr;
  CHECK_CUDA(cudaMalloc(&pdx, cv.x_count() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&pdw, cv.f_count() * sizeof(float)));
  const float one = 1, zero = 0;

  cudnnConvolutionBwdDataAlgoPerf_t data_perf[8];
  int returned = 0;
  CHECK_DNN(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, d.w, d.y, d.conv, d.x, 8, &returned, data_perf));
  expect(returned > 0, "backward-data heuristics offer an algorithm");
  const cudnnConvolutionBwdDataAlgo_t data_algo = data_perf[first_usable(data_perf, returned)].algo;
  size_t data_bytes = 0;
  CHECK_DNN(cudnnGetConvolutionBackwardDataWorkspaceSize(handle, d.w, d.y, d.conv, d.x, data_algo, &data_bytes));
  void* data_ws = nullptr;
  if (data_bytes) CHECK_CUDA(cudaMalloc(&data_ws, data_bytes));
  CHECK_DNN(cudnnConvolutionBackwardData(handle, &one, d.w, pw, d.y, pdy, d.conv, data_algo, data_ws, data_bytes, &zero,
                                         d.x, pdx));

  cudnnConvolutionBwdFilterAlgoPerf_t filter_perf[8];
  CHECK_DNN(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, d.x, d.y, d.conv, d.w, 8, &returned, filter_perf));
  expect(returned > 0, "backward-filter heuristics offer an algorithm");
  const cudnnConvolutionBwdFilterAlgo_t filter_algo = filter_perf[first_usable(filter_perf, returned)].algo;
  size_t filter_bytes = 0;
  CHECK_DNN(cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, d.x, d.y, d.conv, d.w, filter_algo, &filter_bytes));
  void* filter_ws = nullptr;
  if (filter_bytes) CHECK_CUDA(cudaMalloc(&filter_ws, filter_bytes));
  CHECK_DNN(cudnnConvolutionBackwardFilter(handle, &one, d.x, px, d.y, pdy, d.conv, filter_algo, filter_ws, filter_bytes,
                                           &zero, d.w, pdw));

  std::vector<double> want_dx(cv.x_count(), 0.0), want_dw(cv.f_count(), 0.0);
  cv.each([&](size_t xi, size_t wi, size_t yi) {
    want_dx[xi] += double(dy[yi]) * double(w[wi]);
    want_dw[wi] += double(dy[yi]) * double(x[xi]);
  });
  expect(close(to_host(pdx, cv.x_count()), want_dx, kTolerance), "conv2d backward data (legacy API) matches the host");
  expect(close(to_host(pdw, cv.f_count()), want_dw, kTolerance), "conv2d backward filter (legacy API) matches the host");
  say("conv2d backward checksums: %lld %lld\n", checksum(want_dx), checksum(want_dw));
  for (void* p : {data_ws, filter_ws, static_cast<void*>(pdw), static_cast<void*>(pdx), static_cast<void*>(pdy),
                  static_cast<void*>(pw), static_cast<void*>(px)})
    CHECK_CUDA(cudaFree(p));
}

void batch_norm(cudnnHandle_t handle) {
  const int n = 4, c = 3, h = 5, w = 6, count = n * c * h * w, per = n * h * w;
  const double eps = 1e-5;
  const cudnnBatchNormMode_t mode = CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
  std::vector<float> x = quarters(count, 6), dy = quarters(count, 7), scale = {1.0f, 0.5f, -2.0f},
                     bias = {0.25f, -1.0f, 0.0f}, zeros(c, 0.0f), ones(c, 1.0f);
  float *px = to_device(x), *pdy = to_device(dy), *pscale = to_device(scale), *pbias = to_device(bias);
  float *pmean = to_device(zeros), *pvar = to_device(ones), *psave_mean = to_device(zeros), *psave_inv = to_device(zeros);
  float *pdscale = to_device(zeros), *pdbias = to_device(zeros), *py = nullptr, *pdx = nullptr;
  CHECK_CUDA(cudaMalloc(&py, count * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&pdx, count * sizeof(float)));
  cudnnTensorDescriptor_t xd, bd;
  CHECK_DNN(cudnnCreateTensorDescriptor(&xd));
  CHECK_DNN(cudnnCreateTensorDescriptor(&bd));
  CHECK_DNN(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w));
  CHECK_DNN(cudnnDeriveBNTensorDescriptor(bd, xd, mode));
  size_t fwd_bytes = 0, bwd_bytes = 0, reserve_bytes = 0;
  CHECK_DNN(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(handle, mode, CUDNN_BATCHNORM_OPS_BN, xd, nullptr,
                                                                     xd, bd, nullptr, &fwd_bytes));
  CHECK_DNN(cudnnGetBatchNormalizationBackwardExWorkspaceSize(handle, mode, CUDNN_BATCHNORM_OPS_BN, xd, xd, xd, nullptr,
                                                              xd, bd, nullptr, &bwd_bytes));
  CHECK_DNN(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(handle, mode, CUDNN_BATCHNORM_OPS_BN, nullptr, xd,
                                                                 &reserve_bytes));
  void *fwd_ws = nullptr, *bwd_ws = nullptr, *reserve = nullptr;
  if (fwd_bytes) CHECK_CUDA(cudaMalloc(&fwd_ws, fwd_bytes));
  if (bwd_bytes) CHECK_CUDA(cudaMalloc(&bwd_ws, bwd_bytes));
  if (reserve_bytes) CHECK_CUDA(cudaMalloc(&reserve, reserve_bytes));
  const float one = 1, zero = 0;
  CHECK_DNN(cudnnBatchNormalizationForwardTrainingEx(handle, mode, CUDNN_BATCHNORM_OPS_BN, &one, &zero, xd, px, nullptr,
                                                     nullptr, xd, py, bd, pscale, pbias, 1.0, pmean, pvar, eps,
                                                     psave_mean, psave_inv, nullptr, fwd_ws, fwd_bytes, reserve,
                                                     reserve_bytes));
  CHECK_DNN(cudnnBatchNormalizationBackwardEx(handle, mode, CUDNN_BATCHNORM_OPS_BN, &one, &zero, &one, &zero, xd, px,
                                              nullptr, nullptr, xd, pdy, nullptr, nullptr, xd, pdx, bd, pscale, pbias,
                                              pdscale, pdbias, eps, psave_mean, psave_inv, nullptr, bwd_ws, bwd_bytes,
                                              reserve, reserve_bytes));
  // Host reference: per-channel batch statistics, normalization, and its gradients.
  std::vector<double> want_y(count), want_dx(count), want_dscale(c), want_dbias(c), mean(c), var(c);
  auto at = [&](int in, int ic, int i) { return size_t((in * c + ic) * h * w + i); };
  for (int ic = 0; ic < c; ++ic) {
    double s = 0, s2 = 0;
    for (int in = 0; in < n; ++in)
      for (int i = 0; i < h * w; ++i) s += x[at(in, ic, i)];
    mean[ic] = s / per;
    for (int in = 0; in < n; ++in)
      for (int i = 0; i < h * w; ++i) s2 += (x[at(in, ic, i)] - mean[ic]) * (x[at(in, ic, i)] - mean[ic]);
    var[ic] = s2 / per;
    const double inv = 1 / std::sqrt(var[ic] + eps);
    double sum_dy = 0, sum_dy_xhat = 0;
    for (int in = 0; in < n; ++in)
      for (int i = 0; i < h * w; ++i) {
        const size_t k = at(in, ic, i);
        const double xhat = (x[k] - mean[ic]) * inv;
        want_y[k] = xhat * scale[ic] + bias[ic];
        sum_dy += dy[k];
        sum_dy_xhat += dy[k] * xhat;
      }
    want_dbias[ic] = sum_dy;
    want_dscale[ic] = sum_dy_xhat;
    for (int in = 0; in < n; ++in)
      for (int i = 0; i < h * w; ++i) {
        const size_t k = at(in, ic, i);
        const double xhat = (x[k] - mean[ic]) * inv;
        want_dx[k] = scale[ic] * inv * (dy[k] - sum_dy / per - xhat * sum_dy_xhat / per);
      }
  }
  expect(close(to_host(py, count), want_y, kTolerance), "batch-norm forward training (Ex) matches the host");
  expect(close(to_host(psave_mean, c), mean, kTolerance), "batch-norm saved mean matches the host");
  expect(close(to_host(pdx, count), want_dx, 1e-2), "batch-norm backward (Ex) dx matches the host");
  expect(close(to_host(pdscale, c), want_dscale, kTolerance) && close(to_host(pdbias, c), want_dbias, kTolerance),
         "batch-norm backward (Ex) dscale and dbias match the host");
  CHECK_DNN(cudnnDestroyTensorDescriptor(bd));
  CHECK_DNN(cudnnDestroyTensorDescriptor(xd));
  for (void* p : {fwd_ws, bwd_ws, reserve, static_cast<void*>(px), static_cast<void*>(pdy), static_cast<void*>(pscale),
                  static_cast<void*>(pbias), static_cast<void*>(pmean), static_cast<void*>(pvar),
                  static_cast<void*>(psave_mean), static_cast<void*>(psave_inv), static_cast<void*>(pdscale),
                  static_cast<void*>(pdbias), static_cast<void*>(py), static_cast<void*>(pdx)})
    CHECK_CUDA(cudaFree(p));
}

void relu(cudnnHandle_t handle) {
  const int count = 2 * 3 * 4 * 5;
  std::vector<float> x = quarters(count, 8);
  float *px = to_device(x), *py = nullptr;
  CHECK_CUDA(cudaMalloc(&py, count * sizeof(float)));
  cudnnTensorDescriptor_t d;
  cudnnActivationDescriptor_t act;
  CHECK_DNN(cudnnCreateTensorDescriptor(&d));
  CHECK_DNN(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 5));
  CHECK_DNN(cudnnCreateActivationDescriptor(&act));
  CHECK_DNN(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0));
  const float one = 1, zero = 0;
  CHECK_DNN(cudnnActivationForward(handle, act, &one, d, px, &zero, d, py));
  std::vector<double> want(count);
  for (int i = 0; i < count; ++i) want[i] = std::fmax(x[i], 0.0f);
  expect(close(to_host(py, count), want, 0), "ReLU forward matches the host");
  CHECK_DNN(cudnnDestroyActivationDescriptor(act));
  CHECK_DNN(cudnnDestroyTensorDescriptor(d));
  CHECK_CUDA(cudaFree(py));
  CHECK_CUDA(cudaFree(px));
}

}  // namespace

int main() {
  say("cuDNN major version: %d\n", int(cudnnGetVersion() / 10000));
  cudnnHandle_t handle;
  CHECK_DNN(cudnnCreate(&handle));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  CHECK_DNN(cudnnSetStream(handle, stream));
  conv_forward_graph(handle);
  conv_backward_legacy(handle);
  batch_norm(handle);
  relu(handle);
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_DNN(cudnnDestroy(handle));
  CHECK_CUDA(cudaStreamDestroy(stream));
  return finish("26_cudnn");
}
