// Graphs built node by node, through rgpud --emulate (the emulated device records kernels without
// running them, so what is checked is what the client sees: nodes made, refused, named and ordered,
// host functions run at each launch in dependency order). Prints one line per check; the first
// failure ends it with status 1.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "tour_checks.h"

__global__ void scale(float* data, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= f;
}

static std::vector<int> g_order;
static void CUDART_CB note(void* arg) { g_order.push_back(*static_cast<int*>(arg)); }

int main() {
  float* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, 256 * sizeof(float)));
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));

  // kernel -> host(1) -> empty -> host(2), built by hand.
  cudaGraph_t g;
  CHECK_CUDA(cudaGraphCreate(&g, 0));
  int n = 256;
  float f = 2.f;
  void* args[] = {&d, &n, &f};
  cudaKernelNodeParams kp{};
  kp.func = reinterpret_cast<void*>(scale);
  kp.gridDim = dim3(1);
  kp.blockDim = dim3(256);
  kp.kernelParams = args;
  cudaGraphNode_t kernel, host1, empty, host2;
  CHECK_CUDA(cudaGraphAddKernelNode(&kernel, g, nullptr, 0, &kp));
  int one = 1, two = 2;
  cudaHostNodeParams hp{note, &one};
  CHECK_CUDA(cudaGraphAddHostNode(&host1, g, &kernel, 1, &hp));
  CHECK_CUDA(cudaGraphAddEmptyNode(&empty, g, &host1, 1));
  hp.userData = &two;
  CHECK_CUDA(cudaGraphAddHostNode(&host2, g, &empty, 1, &hp));

  cudaKernelNodeParams bad = kp;
  bad.blockDim = dim3(4096);
  cudaGraphNode_t refused;
  EXPECT(cudaGraphAddKernelNode(&refused, g, nullptr, 0, &bad) == cudaErrorInvalidValue,
         "a kernel node with an oversized block is refused by the call that adds it");
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue, "the refusal is the thread's last error");
  bad.func = reinterpret_cast<void*>(note);
  EXPECT(cudaGraphAddKernelNode(&refused, g, nullptr, 0, &bad) == cudaErrorInvalidDeviceFunction,
         "a kernel node whose function is no kernel is refused");
  cudaGetLastError();

  size_t count = 0;
  CHECK_CUDA(cudaGraphGetNodes(g, nullptr, &count));
  EXPECT(count == 4, "the graph has the four nodes added");
  std::vector<cudaGraphNode_t> nodes(count);
  CHECK_CUDA(cudaGraphGetNodes(g, nodes.data(), &count));
  EXPECT(nodes[0] == kernel && nodes[1] == host1 && nodes[2] == empty && nodes[3] == host2,
         "cudaGraphGetNodes names each node by the handle its add returned");
  cudaGraphNodeType type;
  CHECK_CUDA(cudaGraphNodeGetType(kernel, &type));
  EXPECT(type == cudaGraphNodeTypeKernel, "a kernel node's type");
  CHECK_CUDA(cudaGraphNodeGetType(host2, &type));
  EXPECT(type == cudaGraphNodeTypeHost, "a host node's type");
  cudaHostNodeParams got{};
  CHECK_CUDA(cudaGraphHostNodeGetParams(host2, &got));
  EXPECT(got.fn == note && got.userData == &two, "a host node's parameters are the user's function and data");

  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, g, 0));
  for (int i = 0; i < 3; ++i) CHECK_CUDA(cudaGraphLaunch(exec, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  EXPECT((g_order == std::vector<int>{1, 2, 1, 2, 1, 2}), "host nodes ran in dependency order at each of 3 launches");

  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(g));
  CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_CUDA(cudaFree(d));
  std::printf("ok: graph_nodes_tour\n");
  return 0;
}
