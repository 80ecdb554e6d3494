// cuDNN through the shim against rgpud --emulate (whose cuDNN keeps handles and descriptors as
// cuDNN does, computes cudnnAddTensor, ReLU forward, cudnnSetTensor and cudnnScaleTensor on
// floats, and records the rest): legacy descriptors answered locally, a legacy op's descriptor
// (pooling) through its client id, results of the computed calls checked against host loops,
// batch normalization and the backend (graph) API accepted, the not-supported answers. Prints
// "ok: ..." per check and "ok: cudnn_tour" last.
//
// Modes for round-trip counting (RGPU_STATS=1), each ending with one cudaDeviceSynchronize:
//   cudnn_tour bn_queries N     asks the three batch-norm size queries N times each: 3 round trips
//                               (+1 for the synchronize), whatever N (answers cached per session)
//   cudnn_tour variant_packs N  builds a convolution plan once, then N executions, each with its
//                               own variant pack: the round trips do not depend on N
//   cudnn_tour version N        reads the version N times: the server's, asked once (3 round trips)
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../../gpu/programs/cudnn_conv_graph.h"
#include "tour_checks.h"

#define CHECK_DNN(x) CHECK_STATUS(#x, x, CUDNN_STATUS_SUCCESS, cudnnGetErrorString)

namespace {

constexpr int N = 2, C = 3, H = 4, W = 5;

int legacy_descriptors() {
  cudnnTensorDescriptor_t t;
  CHECK_DNN(cudnnCreateTensorDescriptor(&t));
  CHECK_DNN(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, N, C, H, W));
  cudnnDataType_t type;
  int n, c, h, w, ns, cs, hs, ws;
  CHECK_DNN(cudnnGetTensor4dDescriptor(t, &type, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
  EXPECT(type == CUDNN_DATA_FLOAT && n == N && c == C && h == H && w == W, "a 4-d tensor descriptor reads back");
  EXPECT(cs == 1 && ws == C && hs == W * C && ns == H * W * C, "NHWC strides are channels-innermost");
  size_t bytes = 0;
  CHECK_DNN(cudnnGetTensorSizeInBytes(t, &bytes));
  EXPECT(bytes == sizeof(float) * N * C * H * W, "cudnnGetTensorSizeInBytes");

  cudnnTensorDescriptor_t bn;
  CHECK_DNN(cudnnCreateTensorDescriptor(&bn));
  CHECK_DNN(cudnnDeriveBNTensorDescriptor(bn, t, CUDNN_BATCHNORM_SPATIAL));
  int dims[4], strides[4], nb = 0;
  CHECK_DNN(cudnnGetTensorNdDescriptor(bn, 4, &type, &nb, dims, strides));
  EXPECT(nb == 4 && dims[0] == 1 && dims[1] == C && dims[2] == 1 && dims[3] == 1, "cudnnDeriveBNTensorDescriptor");

  cudnnFilterDescriptor_t f;
  CHECK_DNN(cudnnCreateFilterDescriptor(&f));
  const int fdims[4] = {8, C, 3, 3};
  CHECK_DNN(cudnnSetFilterNdDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, fdims));
  cudnnConvolutionDescriptor_t conv;
  CHECK_DNN(cudnnCreateConvolutionDescriptor(&conv));
  const int pads[2] = {1, 1}, cstrides[2] = {2, 2}, dil[2] = {1, 1};
  CHECK_DNN(cudnnSetConvolutionNdDescriptor(conv, 2, pads, cstrides, dil, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  CHECK_DNN(cudnnSetConvolutionGroupCount(conv, 1));
  CHECK_DNN(cudnnSetConvolutionMathType(conv, CUDNN_TENSOR_OP_MATH));
  cudnnMathType_t math;
  CHECK_DNN(cudnnGetConvolutionMathType(conv, &math));
  int out[4];
  CHECK_DNN(cudnnGetConvolutionNdForwardOutputDim(conv, t, f, 4, out));
  EXPECT(math == CUDNN_TENSOR_OP_MATH && out[0] == N && out[1] == 8 && out[2] == 2 && out[3] == 3,
         "convolution descriptor and its output dimensions");
  CHECK_DNN(cudnnDestroyConvolutionDescriptor(conv));
  CHECK_DNN(cudnnDestroyFilterDescriptor(f));
  CHECK_DNN(cudnnDestroyTensorDescriptor(bn));
  CHECK_DNN(cudnnDestroyTensorDescriptor(t));
  return 0;
}

// Bias add (broadcast over N, H, W) and ReLU, computed by the emulated backend, against host loops.
int add_and_relu(cudnnHandle_t handle) {
  const int count = N * C * H * W;
  std::vector<float> x(count), bias(C), y(count);
  for (int i = 0; i < count; ++i) x[i] = float((i * 7) % 11) - 5.0f;
  for (int i = 0; i < C; ++i) bias[i] = 0.5f * float(i) - 0.25f;
  float *dx, *dbias;
  CHECK_CUDA(cudaMalloc(&dx, count * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dbias, C * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dx, x.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dbias, bias.data(), C * sizeof(float), cudaMemcpyHostToDevice));
  cudnnTensorDescriptor_t xd, bd;
  CHECK_DNN(cudnnCreateTensorDescriptor(&xd));
  CHECK_DNN(cudnnCreateTensorDescriptor(&bd));
  CHECK_DNN(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W));
  CHECK_DNN(cudnnSetTensor4dDescriptor(bd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, C, 1, 1));
  const float one = 1, two = 2;
  CHECK_DNN(cudnnAddTensor(handle, &two, bd, dbias, &one, xd, dx));  // x += 2 bias
  cudnnActivationDescriptor_t relu;
  CHECK_DNN(cudnnCreateActivationDescriptor(&relu));
  CHECK_DNN(cudnnSetActivationDescriptor(relu, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0));
  const float zero = 0;
  CHECK_DNN(cudnnActivationForward(handle, relu, &one, xd, dx, &zero, xd, dx));  // in place
  CHECK_CUDA(cudaMemcpy(y.data(), dx, count * sizeof(float), cudaMemcpyDeviceToHost));
  bool same = true;
  for (int i = 0; i < count; ++i) {
    const int ch = (i / (H * W)) % C;
    const float want = std::fmax(x[i] + 2 * bias[ch], 0.0f);
    same = same && std::fabs(y[i] - want) < 1e-6f;
  }
  EXPECT(same, "cudnnAddTensor (broadcast bias) then ReLU forward match the host");
  CHECK_DNN(cudnnDestroyActivationDescriptor(relu));
  CHECK_DNN(cudnnDestroyTensorDescriptor(bd));
  CHECK_DNN(cudnnDestroyTensorDescriptor(xd));
  CHECK_CUDA(cudaFree(dbias));
  CHECK_CUDA(cudaFree(dx));
  return 0;
}

// The legacy ops' descriptors are client ids of the server's: a pooling descriptor set without
// waiting reads back through a round trip, and gives its output dimensions (a hand-written
// query). cudnnSetTensor and cudnnScaleTensor, computed by the emulated backend, against 2.5 * 2.
int legacy_ops(cudnnHandle_t handle) {
  cudnnPoolingDescriptor_t pool;
  CHECK_DNN(cudnnCreatePoolingDescriptor(&pool));
  CHECK_DNN(cudnnSetPooling2dDescriptor(pool, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_PROPAGATE_NAN, 3,
                                        2, 1, 0, 2, 1));
  cudnnPoolingMode_t mode;
  cudnnNanPropagation_t nan_opt;
  int wh, ww, ph, pw, sh, sw;
  CHECK_DNN(cudnnGetPooling2dDescriptor(pool, &mode, &nan_opt, &wh, &ww, &ph, &pw, &sh, &sw));
  EXPECT(mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING && nan_opt == CUDNN_PROPAGATE_NAN && wh == 3 &&
             ww == 2 && ph == 1 && pw == 0 && sh == 2 && sw == 1,
         "a pooling descriptor (a client id) reads back what was set");
  cudnnTensorDescriptor_t xd;
  CHECK_DNN(cudnnCreateTensorDescriptor(&xd));
  CHECK_DNN(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W));
  int n, c, h, w;
  CHECK_DNN(cudnnGetPooling2dForwardOutputDim(pool, xd, &n, &c, &h, &w));
  EXPECT(n == N && c == C && h == 1 + (H + 2 - 3) / 2 && w == W - 1, "cudnnGetPooling2dForwardOutputDim");
  CHECK_DNN(cudnnDestroyPoolingDescriptor(pool));
  EXPECT(cudnnGetPooling2dDescriptor(pool, &mode, &nan_opt, &wh, &ww, &ph, &pw, &sh, &sw) == CUDNN_STATUS_BAD_PARAM,
         "a destroyed pooling descriptor is refused");

  const int count = N * C * H * W;
  float* y;
  CHECK_CUDA(cudaMalloc(&y, count * sizeof(float)));
  const float value = 2.5f, two = 2;
  CHECK_DNN(cudnnSetTensor(handle, xd, y, &value));
  CHECK_DNN(cudnnScaleTensor(handle, xd, y, &two));
  std::vector<float> got(count);
  CHECK_CUDA(cudaMemcpy(got.data(), y, count * sizeof(float), cudaMemcpyDeviceToHost));
  bool all = true;
  for (float v : got) all = all && v == 5.0f;
  EXPECT(all, "cudnnSetTensor then cudnnScaleTensor");
  CHECK_CUDA(cudaFree(y));
  CHECK_DNN(cudnnDestroyTensorDescriptor(xd));

  cudnnTensorDescriptor_t scale_bias, mean_var;
  CHECK_DNN(cudnnCreateTensorDescriptor(&scale_bias));
  CHECK_DNN(cudnnCreateTensorDescriptor(&mean_var));
  CHECK_DNN(cudnnCreateTensorDescriptor(&xd));
  CHECK_DNN(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, N, C, H, W));
  CHECK_DNN(cudnnDeriveNormTensorDescriptor(scale_bias, mean_var, xd, CUDNN_NORM_PER_CHANNEL, 1));
  cudnnDataType_t type;
  int dims[4], strides[4], nb = 0;
  CHECK_DNN(cudnnGetTensorNdDescriptor(mean_var, 4, &type, &nb, dims, strides));
  EXPECT(type == CUDNN_DATA_FLOAT && nb == 4 && dims[0] == 1 && dims[1] == C && dims[2] == 1 && dims[3] == 1,
         "cudnnDeriveNormTensorDescriptor (per channel, float for half)");
  CHECK_DNN(cudnnDestroyTensorDescriptor(xd));
  CHECK_DNN(cudnnDestroyTensorDescriptor(mean_var));
  CHECK_DNN(cudnnDestroyTensorDescriptor(scale_bias));

  int mark = 0;
  CHECK_DNN(cudnnSetCallback(CUDNN_SEV_ERROR_EN, &mark, nullptr));
  unsigned mask = 0;
  void* udata = nullptr;
  cudnnCallback_t fptr = nullptr;
  CHECK_DNN(cudnnGetCallback(&mask, &udata, &fptr));
  EXPECT(mask == CUDNN_SEV_ERROR_EN && udata == &mark && fptr == nullptr, "cudnnGetCallback answers what was set");
  return 0;
}

// The size queries PyTorch's batch norm asks before each training step, `times` times.
int bn_queries(cudnnHandle_t handle, int times) {
  cudnnTensorDescriptor_t xd, bd;
  CHECK_DNN(cudnnCreateTensorDescriptor(&xd));
  CHECK_DNN(cudnnCreateTensorDescriptor(&bd));
  CHECK_DNN(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W));
  CHECK_DNN(cudnnDeriveBNTensorDescriptor(bd, xd, CUDNN_BATCHNORM_SPATIAL_PERSISTENT));
  for (int i = 0; i < times; ++i) {
    size_t fwd = 1, bwd = 1, reserve = 1;
    CHECK_DNN(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
        handle, CUDNN_BATCHNORM_SPATIAL_PERSISTENT, CUDNN_BATCHNORM_OPS_BN, xd, nullptr, xd, bd, nullptr, &fwd));
    CHECK_DNN(cudnnGetBatchNormalizationBackwardExWorkspaceSize(handle, CUDNN_BATCHNORM_SPATIAL_PERSISTENT,
                                                                CUDNN_BATCHNORM_OPS_BN, xd, xd, xd, nullptr, xd, bd,
                                                                nullptr, &bwd));
    CHECK_DNN(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(handle, CUDNN_BATCHNORM_SPATIAL_PERSISTENT,
                                                                   CUDNN_BATCHNORM_OPS_BN, nullptr, xd, &reserve));
    if (fwd != 0 || bwd != 0 || reserve != 0) return std::printf("FAIL emulated sizes are 0\n"), 1;
  }
  CHECK_DNN(cudnnDestroyTensorDescriptor(bd));
  CHECK_DNN(cudnnDestroyTensorDescriptor(xd));
  return 0;
}

int batch_norm(cudnnHandle_t handle) {
  if (bn_queries(handle, 2)) return 1;
  EXPECT(true, "batch-norm size queries");
  const int count = N * C * H * W;
  float *x, *y, *p;
  CHECK_CUDA(cudaMalloc(&x, count * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&y, count * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&p, 8 * C * sizeof(float)));
  cudnnTensorDescriptor_t xd, bd;
  CHECK_DNN(cudnnCreateTensorDescriptor(&xd));
  CHECK_DNN(cudnnCreateTensorDescriptor(&bd));
  CHECK_DNN(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W));
  CHECK_DNN(cudnnDeriveBNTensorDescriptor(bd, xd, CUDNN_BATCHNORM_SPATIAL));
  const float one = 1, zero = 0;
  CHECK_DNN(cudnnBatchNormalizationForwardTrainingEx(
      handle, CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN, &one, &zero, xd, x, nullptr, nullptr, xd, y, bd, p,
      p + C, 0.1, p + 2 * C, p + 3 * C, 1e-5, p + 4 * C, p + 5 * C, nullptr, nullptr, 0, nullptr, 0));
  CHECK_DNN(cudnnBatchNormalizationBackwardEx(handle, CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN, &one, &zero,
                                              &one, &zero, xd, x, nullptr, nullptr, xd, y, nullptr, nullptr, xd, x, bd,
                                              p, p + C, p + 6 * C, p + 7 * C, 1e-5, p + 4 * C, p + 5 * C, nullptr,
                                              nullptr, 0, nullptr, 0));
  CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT(true, "batch-norm forward training and backward (Ex) accepted");
  CHECK_DNN(cudnnDestroyTensorDescriptor(bd));
  CHECK_DNN(cudnnDestroyTensorDescriptor(xd));
  CHECK_CUDA(cudaFree(p));
  CHECK_CUDA(cudaFree(y));
  CHECK_CUDA(cudaFree(x));
  return 0;
}

// A plan built once and `times` executions, each with its own variant pack.
int variant_packs(cudnnHandle_t handle, int times) {
  const ConvShape shape{N, C, 8, 8, 4, 3, 3, 1, 1};
  float *x, *w, *y;
  CHECK_CUDA(cudaMalloc(&x, sizeof(float) * N * C * 8 * 8));
  CHECK_CUDA(cudaMalloc(&w, sizeof(float) * 4 * C * 3 * 3));
  CHECK_CUDA(cudaMalloc(&y, sizeof(float) * N * 4 * shape.out_h() * shape.out_w()));
  ConvGraph graph;
  const char* failed = "";
  cudnnStatus_t s = graph.build(handle, shape, &failed);
  if (s != CUDNN_STATUS_SUCCESS) return std::printf("FAIL building the graph at %s: %s\n", failed, cudnnGetErrorString(s)), 1;
  if (graph.workspace_size() != 0) return std::printf("FAIL emulated plans need no workspace\n"), 1;
  for (int i = 0; i < times; ++i) CHECK_DNN(graph.execute(x, w, y, nullptr));
  return 0;
}

int backend_api(cudnnHandle_t handle) {
  if (variant_packs(handle, 3)) return 1;
  CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT(true, "backend graph: tensors, convolution, operation graph, heuristics, plan, variant packs, execute");
  cudnnBackendDescriptor_t d;
  CHECK_DNN(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &d));
  int64_t dims[3] = {1, 2, 3}, got[3] = {}, count = 0;
  CHECK_DNN(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 3, dims));
  const int64_t strides[3] = {6, 3, 1}, uid = 7, alignment = 4;
  const cudnnDataType_t type = CUDNN_DATA_FLOAT;
  CHECK_DNN(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 3, strides));
  CHECK_DNN(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
  CHECK_DNN(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment));
  CHECK_DNN(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type));
  CHECK_DNN(cudnnBackendFinalize(d));
  CHECK_DNN(cudnnBackendGetAttribute(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 3, &count, got));
  EXPECT(count == 3 && got[0] == 1 && got[1] == 2 && got[2] == 3, "a finalized backend tensor reads back");
  // 31: inside the enum's range (its values need 5 bits), but no type of this cuDNN.
  EXPECT(cudnnBackendSetAttribute(d, CUDNN_ATTR_TENSOR_DIMENSIONS, static_cast<cudnnBackendAttributeType_t>(31), 1,
                                  dims) == CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE,
         "an unknown attribute type is refused on the client");
  // A by-value tensor (a scalar in host memory, as attention's scale is): the variant pack's
  // pointer for its unique id is a host address, whose value travels with the pack.
  cudnnBackendDescriptor_t scalar, pack;
  const int64_t one_dims[1] = {1}, by_value_uid = 's';
  const bool by_value = true;
  CHECK_DNN(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &scalar));
  CHECK_DNN(cudnnBackendSetAttribute(scalar, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 1, one_dims));
  CHECK_DNN(cudnnBackendSetAttribute(scalar, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 1, one_dims));
  CHECK_DNN(cudnnBackendSetAttribute(scalar, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &by_value_uid));
  CHECK_DNN(cudnnBackendSetAttribute(scalar, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type));
  CHECK_DNN(cudnnBackendSetAttribute(scalar, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &by_value));
  CHECK_DNN(cudnnBackendFinalize(scalar));
  float* device_data;
  CHECK_CUDA(cudaMalloc(&device_data, 64));
  const float scale = 0.125f;
  void* pointers[2] = {device_data, const_cast<float*>(&scale)};
  const int64_t uids[2] = {'x', by_value_uid};
  CHECK_DNN(cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack));
  CHECK_DNN(cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 2, pointers));
  CHECK_DNN(cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 2, uids));
  CHECK_DNN(cudnnBackendFinalize(pack));
  void* read_back[2] = {};
  CHECK_DNN(cudnnBackendGetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 2, &count,
                                     read_back));
  EXPECT(count == 2 && read_back[0] == device_data && read_back[1] != nullptr && read_back[1] != &scale,
         "a by-value tensor's host value travels with the variant pack (the server points at its copy)");
  CHECK_DNN(cudnnBackendDestroyDescriptor(pack));
  CHECK_DNN(cudnnBackendDestroyDescriptor(scalar));
  CHECK_CUDA(cudaFree(device_data));
  CHECK_DNN(cudnnBackendDestroyDescriptor(d));
  EXPECT(cudnnBackendFinalize(d) == CUDNN_STATUS_BAD_PARAM, "a destroyed backend descriptor is refused");
  return 0;
}

int tour() {
  int major = 0, minor = 0;
  CHECK_DNN(cudnnGetProperty(MAJOR_VERSION, &major));
  CHECK_DNN(cudnnGetProperty(MINOR_VERSION, &minor));
  EXPECT(major == 9 && cudnnGetVersion() / 100 == size_t(major * 100 + minor),
         "cudnnGetVersion and cudnnGetProperty give the server's cuDNN 9");
  cudnnHandle_t handle;
  CHECK_DNN(cudnnCreate(&handle));
  cudaStream_t stream, got;
  CHECK_CUDA(cudaStreamCreate(&stream));
  CHECK_DNN(cudnnSetStream(handle, stream));
  CHECK_DNN(cudnnGetStream(handle, &got));
  EXPECT(got == stream, "cudnnGetStream answers the stream set");
  if (legacy_descriptors() || add_and_relu(handle) || legacy_ops(handle) || batch_norm(handle) ||
      backend_api(handle))
    return 1;
  EXPECT(cudnnGetFoldedConvBackwardDataDescriptors(handle, nullptr, nullptr, nullptr, nullptr, CUDNN_TENSOR_NCHW,
                                                   nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                                   nullptr) == CUDNN_STATUS_NOT_SUPPORTED,
         "an unforwarded function says so");
  // The emulated backend has no legacy backward-data convolution: the async call fails there.
  EXPECT(cudnnConvolutionBackwardData(handle, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                      CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, nullptr, 0, nullptr, nullptr,
                                      nullptr) == CUDNN_STATUS_SUCCESS,
         "an async call is sent without waiting");
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_DNN(cudnnDestroy(handle));
  CHECK_CUDA(cudaStreamDestroy(stream));
  std::printf("ok: cudnn_tour\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int times = argc > 2 ? std::atoi(argv[2]) : 1;
  if (argc > 1 && !std::strcmp(argv[1], "version")) {
    size_t v = 0;
    for (int i = 0; i < times; ++i) v |= cudnnGetVersion();
    CHECK_CUDA(cudaDeviceSynchronize());
    if (v / 10000 != 9) return std::printf("FAIL version %zu\n", v), 1;
    std::printf("ok: cudnn_tour version\n");
    return 0;
  }
  if (argc > 1 && (!std::strcmp(argv[1], "bn_queries") || !std::strcmp(argv[1], "variant_packs"))) {
    cudnnHandle_t handle;
    CHECK_DNN(cudnnCreate(&handle));
    const bool bn = !std::strcmp(argv[1], "bn_queries");
    if (bn ? bn_queries(handle, times) : variant_packs(handle, times)) return 1;
    CHECK_CUDA(cudaDeviceSynchronize());
    std::printf("ok: cudnn_tour %s\n", argv[1]);
    return 0;
  }
  return tour();
}
