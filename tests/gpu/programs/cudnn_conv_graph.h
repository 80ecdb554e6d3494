// A 2-D float convolution forward through cuDNN's backend (graph) API, built the way
// cudnn_frontend (and so PyTorch) builds one: backend tensors, a convolution, the forward
// operation, an operation graph, heuristics, engine configs tried in order until an execution plan
// finalizes, then one variant pack per execution (created, finalized, executed, destroyed).
// Shared by tests/gpu/programs/26_cudnn.cu and tests/integration/programs/cudnn_tour.cu.
#pragma once

#include <cudnn.h>

#include <cstdint>
#include <vector>

struct ConvShape {
  int64_t n, c, h, w;  // input
  int64_t k, r, s;     // filter: k maps of c x r x s
  int64_t pad, stride;
  int64_t out_h() const { return (h + 2 * pad - r) / stride + 1; }
  int64_t out_w() const { return (w + 2 * pad - s) / stride + 1; }
};

class ConvGraph {
 public:
  // Builds the plan; returns the first failing call's status (and leaves *failed naming it).
  cudnnStatus_t build(cudnnHandle_t handle, const ConvShape& shape, const char** failed) {
    handle_ = handle;
    const int64_t x_dims[4] = {shape.n, shape.c, shape.h, shape.w};
    const int64_t w_dims[4] = {shape.k, shape.c, shape.r, shape.s};
    const int64_t y_dims[4] = {shape.n, shape.k, shape.out_h(), shape.out_w()};
    cudnnBackendDescriptor_t x, w, y, conv, op, graph, heur;
    if (!step(tensor(x_dims, 'x', &x), "x tensor", failed) || !step(tensor(w_dims, 'w', &w), "w tensor", failed) ||
        !step(tensor(y_dims, 'y', &y), "y tensor", failed) || !step(convolution(shape, &conv), "convolution", failed) ||
        !step(forward(x, w, y, conv, &op), "forward operation", failed) ||
        !step(operation_graph(op, &graph), "operation graph", failed) ||
        !step(heuristics(graph, &heur), "heuristics", failed) || !step(plan_from(heur), "execution plan", failed))
      return status_;
    return get(plan_, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &workspace_size_);
  }

  int64_t workspace_size() const { return workspace_size_; }

  // One execution with a variant pack of its own, as PyTorch does per convolution call.
  cudnnStatus_t execute(void* x, void* w, void* y, void* workspace) {
    cudnnBackendDescriptor_t pack;
    void* pointers[3] = {x, w, y};
    const int64_t uids[3] = {'x', 'w', 'y'};
    cudnnStatus_t s = cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack);
    if (s != CUDNN_STATUS_SUCCESS) return s;
    s = set(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, pointers);
    if (s == CUDNN_STATUS_SUCCESS) s = set(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
    if (s == CUDNN_STATUS_SUCCESS) s = set(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace);
    if (s == CUDNN_STATUS_SUCCESS) s = cudnnBackendFinalize(pack);
    if (s == CUDNN_STATUS_SUCCESS) s = cudnnBackendExecute(handle_, plan_, pack);
    cudnnStatus_t d = cudnnBackendDestroyDescriptor(pack);
    return s != CUDNN_STATUS_SUCCESS ? s : d;
  }

  ~ConvGraph() {
    for (cudnnBackendDescriptor_t d : owned_) cudnnBackendDestroyDescriptor(d);
  }

 private:
  bool step(cudnnStatus_t s, const char* what, const char** failed) {
    status_ = s;
    if (s != CUDNN_STATUS_SUCCESS) *failed = what;
    return s == CUDNN_STATUS_SUCCESS;
  }

  cudnnStatus_t make(cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t* d) {
    cudnnStatus_t s = cudnnBackendCreateDescriptor(type, d);
    if (s == CUDNN_STATUS_SUCCESS) owned_.push_back(*d);
    return s;
  }

  static cudnnStatus_t set(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name,
                           cudnnBackendAttributeType_t type, int64_t count, const void* values) {
    return cudnnBackendSetAttribute(d, name, type, count, values);
  }

  static cudnnStatus_t get(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name,
                           cudnnBackendAttributeType_t type, int64_t count, void* values) {
    int64_t got = 0;
    return cudnnBackendGetAttribute(d, name, type, count, &got, values);
  }

  cudnnStatus_t tensor(const int64_t dims[4], int64_t uid, cudnnBackendDescriptor_t* d) {
    const int64_t strides[4] = {dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1};
    const cudnnDataType_t type = CUDNN_DATA_FLOAT;
    const int64_t alignment = 4;
    cudnnStatus_t s = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR, d);
    if (s == CUDNN_STATUS_SUCCESS) s = set(*d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
    if (s == CUDNN_STATUS_SUCCESS) s = set(*d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims);
    if (s == CUDNN_STATUS_SUCCESS) s = set(*d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides);
    if (s == CUDNN_STATUS_SUCCESS) s = set(*d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
    if (s == CUDNN_STATUS_SUCCESS) s = set(*d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
    return s == CUDNN_STATUS_SUCCESS ? cudnnBackendFinalize(*d) : s;
  }

  cudnnStatus_t convolution(const ConvShape& shape, cudnnBackendDescriptor_t* d) {
    const cudnnDataType_t type = CUDNN_DATA_FLOAT;
    const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    const int64_t dims = 2, pads[2] = {shape.pad, shape.pad}, strides[2] = {shape.stride, shape.stride};
    const int64_t dilations[2] = {1, 1};
    cudnnStatus_t s = make(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, d);
    if (s == CUDNN_STATUS_SUCCESS) s = set(*d, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
    if (s == CUDNN_STATUS_SUCCESS) s = set(*d, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
    if (s == CUDNN_STATUS_SUCCESS) s = set(*d, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims);
    if (s == CUDNN_STATUS_SUCCESS) s = set(*d, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dilations);
    if (s == CUDNN_STATUS_SUCCESS) s = set(*d, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, strides);
    if (s == CUDNN_STATUS_SUCCESS) s = set(*d, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pads);
    if (s == CUDNN_STATUS_SUCCESS) s = set(*d, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pads);
    return s == CUDNN_STATUS_SUCCESS ? cudnnBackendFinalize(*d) : s;
  }

  cudnnStatus_t forward(cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t w, cudnnBackendDescriptor_t y,
                        cudnnBackendDescriptor_t conv, cudnnBackendDescriptor_t* d) {
    const float alpha = 1, beta = 0;
    cudnnStatus_t s = make(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, d);
    auto link = [&](cudnnBackendAttributeName_t name, cudnnBackendDescriptor_t v) {
      if (s == CUDNN_STATUS_SUCCESS) s = set(*d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &v);
    };
    link(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, x);
    link(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, w);
    link(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, y);
    link(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, conv);
    if (s == CUDNN_STATUS_SUCCESS) s = set(*d, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha);
    if (s == CUDNN_STATUS_SUCCESS) s = set(*d, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
    return s == CUDNN_STATUS_SUCCESS ? cudnnBackendFinalize(*d) : s;
  }

  cudnnStatus_t operation_graph(cudnnBackendDescriptor_t op, cudnnBackendDescriptor_t* d) {
    cudnnStatus_t s = make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, d);
    if (s == CUDNN_STATUS_SUCCESS) s = set(*d, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op);
    if (s == CUDNN_STATUS_SUCCESS) s = set(*d, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle_);
    return s == CUDNN_STATUS_SUCCESS ? cudnnBackendFinalize(*d) : s;
  }

  cudnnStatus_t heuristics(cudnnBackendDescriptor_t graph, cudnnBackendDescriptor_t* d) {
    const cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A;
    cudnnStatus_t s = make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, d);
    if (s == CUDNN_STATUS_SUCCESS)
      s = set(*d, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
    if (s == CUDNN_STATUS_SUCCESS) s = set(*d, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
    return s == CUDNN_STATUS_SUCCESS ? cudnnBackendFinalize(*d) : s;
  }

  // The heuristics' engine configs, best first: the first one whose plan finalizes wins.
  cudnnStatus_t plan_from(cudnnBackendDescriptor_t heur) {
    int64_t count = 0;
    cudnnStatus_t s = cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                                               &count, nullptr);
    if (s != CUDNN_STATUS_SUCCESS) return s;
    if (count < 1) return CUDNN_STATUS_NOT_SUPPORTED;
    std::vector<cudnnBackendDescriptor_t> configs(static_cast<size_t>(count));
    for (auto& c : configs) {
      if ((s = make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &c)) != CUDNN_STATUS_SUCCESS) return s;
    }
    int64_t got = 0;
    s = cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got,
                                 configs.data());
    if (s != CUDNN_STATUS_SUCCESS) return s;
    for (int64_t i = 0; i < got; ++i) {
      cudnnBackendDescriptor_t plan;
      if ((s = make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan)) != CUDNN_STATUS_SUCCESS) return s;
      s = set(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle_);
      if (s == CUDNN_STATUS_SUCCESS)
        s = set(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &configs[i]);
      if (s == CUDNN_STATUS_SUCCESS) s = cudnnBackendFinalize(plan);
      if (s == CUDNN_STATUS_SUCCESS) {
        plan_ = plan;
        return s;
      }
    }
    return s;
  }

  cudnnHandle_t handle_ = nullptr;
  cudnnBackendDescriptor_t plan_ = nullptr;
  int64_t workspace_size_ = 0;
  cudnnStatus_t status_ = CUDNN_STATUS_SUCCESS;
  std::vector<cudnnBackendDescriptor_t> owned_;
};
