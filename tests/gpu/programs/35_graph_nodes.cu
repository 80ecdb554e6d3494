// GPU suite: a CUDA graph built node by node (kernel, 1D copies host->device, device->device and
// device->host, memset, host, child graph, empty, event record and wait nodes), instantiated,
// launched, changed (cudaGraphExec*SetParams, cudaGraphExecUpdate) and launched again; a WHILE
// conditional node looping a kernel until a device counter reaches N; a clone found node by node.
#include <algorithm>
#include <cstring>

#include "suite_check.h"

__global__ void scale(int* data, int n, int factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}

__global__ void add_index(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += i;
}

__global__ void add_one(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

// The body of the WHILE node: one step, then the loop goes on while the counter is below `limit`.
__global__ void count_step(int* counter, int limit, cudaGraphConditionalHandle handle) {
  int c = ++*counter;
  cudaGraphSetConditional(handle, c < limit ? 1 : 0);
}

// A WHILE node's condition is read before each run of its body: set it from the counter first.
__global__ void count_start(int* counter, int limit, cudaGraphConditionalHandle handle) {
  cudaGraphSetConditional(handle, *counter < limit ? 1 : 0);
}

__device__ int table[16];

__global__ void bump_table() { table[threadIdx.x] += 100 + threadIdx.x; }

struct HostLog {
  int calls = 0;
  int last_tag = 0;
};
static void CUDART_CB host_tag1(void* p) {
  auto* log = static_cast<HostLog*>(p);
  ++log->calls;
  log->last_tag = 1;
}
static void CUDART_CB host_tag2(void* p) {
  auto* log = static_cast<HostLog*>(p);
  ++log->calls;
  log->last_tag = 2;
}

static int wrong_values(const std::vector<int>& in, const std::vector<int>& out, int factor) {
  int wrong = 0;
  for (size_t i = 0; i < in.size(); ++i)
    if (out[i] != in[i] * factor + static_cast<int>(i) + 1) ++wrong;
  return wrong;
}

int main() {
  const int n = 1 << 14;
  const size_t bytes = n * sizeof(int);
  std::vector<int> in(n), out(n, -1);
  for (int i = 0; i < n; ++i) in[i] = i % 97;
  int *a, *b;
  CHECK_CUDA(cudaMalloc(&a, bytes));
  CHECK_CUDA(cudaMalloc(&b, bytes));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t ev;
  CHECK_CUDA(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));

  // in (pageable) -> a; a *= factor; b = 0 (memset); b <- a; b += i; record ev; child { wait ev;
  // b += 1 }; then a host node and b -> out (pageable), joined by an empty node.
  cudaGraph_t graph;
  CHECK_CUDA(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t copy_in, k_scale, memset_b, copy_dd, k_index, record, child, host, copy_out, join;
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&copy_in, graph, nullptr, 0, a, in.data(), bytes, cudaMemcpyHostToDevice));
  int count = n, factor = 3;
  void* scale_args[] = {&a, &count, &factor};
  cudaKernelNodeParams kp{};
  kp.func = reinterpret_cast<void*>(scale);
  kp.gridDim = dim3(n / 256);
  kp.blockDim = dim3(256);
  kp.kernelParams = scale_args;
  CHECK_CUDA(cudaGraphAddKernelNode(&k_scale, graph, &copy_in, 1, &kp));
  cudaMemsetParams mp{};
  mp.dst = b;
  mp.value = 0;
  mp.elementSize = sizeof(int);
  mp.width = n;
  mp.height = 1;
  CHECK_CUDA(cudaGraphAddMemsetNode(&memset_b, graph, nullptr, 0, &mp));
  cudaGraphNode_t before_dd[] = {k_scale, memset_b};
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&copy_dd, graph, before_dd, 2, b, a, bytes, cudaMemcpyDeviceToDevice));
  void* index_args[] = {&b, &count};
  cudaKernelNodeParams ip = kp;
  ip.func = reinterpret_cast<void*>(add_index);
  ip.kernelParams = index_args;
  CHECK_CUDA(cudaGraphAddKernelNode(&k_index, graph, &copy_dd, 1, &ip));
  CHECK_CUDA(cudaGraphAddEventRecordNode(&record, graph, &k_index, 1, ev));

  cudaGraph_t body;
  CHECK_CUDA(cudaGraphCreate(&body, 0));
  cudaGraphNode_t wait_node, k_one;
  CHECK_CUDA(cudaGraphAddEventWaitNode(&wait_node, body, nullptr, 0, ev));
  cudaKernelNodeParams op = kp;
  op.func = reinterpret_cast<void*>(add_one);
  op.kernelParams = index_args;
  CHECK_CUDA(cudaGraphAddKernelNode(&k_one, body, &wait_node, 1, &op));
  CHECK_CUDA(cudaGraphAddChildGraphNode(&child, graph, &record, 1, body));

  HostLog log;
  cudaHostNodeParams hp{host_tag1, &log};
  CHECK_CUDA(cudaGraphAddHostNode(&host, graph, &child, 1, &hp));
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&copy_out, graph, &child, 1, out.data(), b, bytes, cudaMemcpyDeviceToHost));
  cudaGraphNode_t before_join[] = {host, copy_out};
  CHECK_CUDA(cudaGraphAddEmptyNode(&join, graph, before_join, 2));

  // The graph as the program built it.
  size_t nodes = 0, roots = 0, edges = 0, deps = 0, dependents = 0;
  CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
  CHECK_CUDA(cudaGraphGetRootNodes(graph, nullptr, &roots));
  CHECK_CUDA(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges));
  say("nodes %zu, roots %zu, edges %zu\n", nodes, roots, edges);
  std::vector<cudaGraphNode_t> all(nodes);
  CHECK_CUDA(cudaGraphGetNodes(graph, all.data(), &nodes));
  int named = 0;
  for (cudaGraphNode_t held : {copy_in, k_scale, memset_b, copy_dd, k_index, record, child, host, copy_out, join})
    named += std::count(all.begin(), all.end(), held) == 1;
  expect(named == 10, "nodes are named by the handles their adds returned");
  cudaGraphNode_t got[2] = {};
  deps = 2;
  CHECK_CUDA(cudaGraphNodeGetDependencies(copy_dd, got, nullptr, &deps));
  expect(deps == 2 && ((got[0] == k_scale && got[1] == memset_b) || (got[0] == memset_b && got[1] == k_scale)),
         "the device-to-device copy depends on the kernel and the memset");
  dependents = 2;
  CHECK_CUDA(cudaGraphNodeGetDependentNodes(child, got, nullptr, &dependents));
  expect(dependents == 2 && ((got[0] == host && got[1] == copy_out) || (got[0] == copy_out && got[1] == host)),
         "the child graph is followed by the host node and the copy out");
  std::vector<cudaGraphNode_t> from(edges), to(edges);
  CHECK_CUDA(cudaGraphGetEdges(graph, from.data(), to.data(), nullptr, &edges));
  bool edge_found = false;
  for (size_t i = 0; i < edges; ++i) edge_found |= from[i] == record && to[i] == child;
  expect(edge_found, "the edge event record -> child graph is listed");
  cudaGraphNodeType type;
  CHECK_CUDA(cudaGraphNodeGetType(k_scale, &type));
  expect(type == cudaGraphNodeTypeKernel, "kernel node type");
  CHECK_CUDA(cudaGraphNodeGetType(copy_out, &type));
  expect(type == cudaGraphNodeTypeMemcpy, "device-to-host copy node type");
  cudaEvent_t ev_got;
  CHECK_CUDA(cudaGraphEventRecordNodeGetEvent(record, &ev_got));
  expect(ev_got == ev, "the event record node's event");
  cudaGraph_t child_graph;
  CHECK_CUDA(cudaGraphChildGraphNodeGetGraph(child, &child_graph));
  size_t child_nodes = 0;
  CHECK_CUDA(cudaGraphGetNodes(child_graph, nullptr, &child_nodes));
  say("child graph nodes %zu\n", child_nodes);
  cudaHostNodeParams hp_got{};
  CHECK_CUDA(cudaGraphHostNodeGetParams(host, &hp_got));
  expect(hp_got.fn == host_tag1 && hp_got.userData == &log, "the host node's function and data");

  // Launched: each launch reads `in` as it is at launch time and writes `out`.
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int launch = 0; launch < 3; ++launch) {
    for (int i = 0; i < n; ++i) in[i] = (i % 97) + launch * 1000;
    std::fill(out.begin(), out.end(), -1);
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    say("launch %d: wrong %d, out[5] %d, host calls %d\n", launch, wrong_values(in, out, 3), out[5], log.calls);
  }

  // The executable's nodes changed in place: factor 5, the second host function.
  factor = 5;
  CHECK_CUDA(cudaGraphExecKernelNodeSetParams(exec, k_scale, &kp));
  hp.fn = host_tag2;
  CHECK_CUDA(cudaGraphExecHostNodeSetParams(exec, host, &hp));
  CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  say("exec set params: wrong %d, host tag %d\n", wrong_values(in, out, 5), log.last_tag);

  // The graph's nodes changed (factor 7, back to the first host function), then the executable
  // updated from the graph.
  factor = 7;
  CHECK_CUDA(cudaGraphKernelNodeSetParams(k_scale, &kp));
  hp.fn = host_tag1;
  CHECK_CUDA(cudaGraphHostNodeSetParams(host, &hp));
  cudaGraphExecUpdateResultInfo info{};
  CHECK_CUDA(cudaGraphExecUpdate(exec, graph, &info));
  expect(info.result == cudaGraphExecUpdateSuccess && info.errorNode == nullptr, "cudaGraphExecUpdate succeeded");
  CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  say("exec update: wrong %d, host tag %d\n", wrong_values(in, out, 7), log.last_tag);

  // A clone, found node by node, instantiated on its own.
  cudaGraph_t clone;
  CHECK_CUDA(cudaGraphClone(&clone, graph));
  cudaGraphNode_t k_scale_clone;
  CHECK_CUDA(cudaGraphNodeFindInClone(&k_scale_clone, k_scale, clone));
  expect(k_scale_clone != k_scale, "the clone's kernel node is a node of its own");
  CHECK_CUDA(cudaGraphNodeGetType(k_scale_clone, &type));
  expect(type == cudaGraphNodeTypeKernel, "the clone's node is a kernel node");
  factor = 2;
  CHECK_CUDA(cudaGraphKernelNodeSetParams(k_scale_clone, &kp));
  cudaGraphExec_t clone_exec;
  CHECK_CUDA(cudaGraphInstantiate(&clone_exec, clone, 0));
  for (int i = 0; i < n; ++i) in[i] = i % 13;
  CHECK_CUDA(cudaGraphLaunch(clone_exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  say("clone: wrong %d\n", wrong_values(in, out, 2));
  CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  say("original after the clone changed: wrong %d\n", wrong_values(in, out, 7));

  // Symbol copy nodes (host -> __device__ variable -> host) around a kernel that changes it; the
  // graph instantiated with parameters.
  cudaGraph_t sym_graph;
  CHECK_CUDA(cudaGraphCreate(&sym_graph, 0));
  int table_in[16], table_out[16];
  for (int i = 0; i < 16; ++i) table_in[i] = i * i, table_out[i] = -1;
  cudaGraphNode_t to_sym, k_bump, from_sym;
  CHECK_CUDA(cudaGraphAddMemcpyNodeToSymbol(&to_sym, sym_graph, nullptr, 0, table, table_in, sizeof table_in, 0,
                                            cudaMemcpyHostToDevice));
  cudaKernelNodeParams bp{};
  bp.func = reinterpret_cast<void*>(bump_table);
  bp.gridDim = dim3(1);
  bp.blockDim = dim3(16);
  bp.kernelParams = nullptr;
  CHECK_CUDA(cudaGraphAddKernelNode(&k_bump, sym_graph, &to_sym, 1, &bp));
  CHECK_CUDA(cudaGraphAddMemcpyNodeFromSymbol(&from_sym, sym_graph, &k_bump, 1, table_out, table, sizeof table_out, 0,
                                              cudaMemcpyDeviceToHost));
  cudaGraphInstantiateParams ip_params{};
  ip_params.uploadStream = stream;
  cudaGraphExec_t sym_exec;
  CHECK_CUDA(cudaGraphInstantiateWithParams(&sym_exec, sym_graph, &ip_params));
  expect(ip_params.result_out == cudaGraphInstantiateSuccess && ip_params.errNode_out == nullptr,
         "cudaGraphInstantiateWithParams reports success");
  CHECK_CUDA(cudaGraphLaunch(sym_exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  int sym_sum = 0;
  for (int v : table_out) sym_sum += v;
  say("symbol nodes: table_out[3] %d, sum %d\n", table_out[3], sym_sum);
  CHECK_CUDA(cudaGraphExecDestroy(sym_exec));
  CHECK_CUDA(cudaGraphDestroy(sym_graph));

  // A WHILE node: its body runs until the device counter reaches the limit.
  int* counter;
  CHECK_CUDA(cudaMalloc(&counter, sizeof(int)));
  CHECK_CUDA(cudaMemset(counter, 0, sizeof(int)));
  cudaGraph_t loop;
  CHECK_CUDA(cudaGraphCreate(&loop, 0));
  cudaGraphConditionalHandle handle;
  CHECK_CUDA(cudaGraphConditionalHandleCreate(&handle, loop, 0, 0));
  int limit = 10;
  void* start_args[] = {&counter, &limit, &handle};
  cudaKernelNodeParams sp{};
  sp.func = reinterpret_cast<void*>(count_start);
  sp.gridDim = dim3(1);
  sp.blockDim = dim3(1);
  sp.kernelParams = start_args;
  cudaGraphNode_t start, cond;
  CHECK_CUDA(cudaGraphAddKernelNode(&start, loop, nullptr, 0, &sp));
  cudaGraphNodeParams cp{};
  cp.type = cudaGraphNodeTypeConditional;
  cp.conditional.handle = handle;
  cp.conditional.type = cudaGraphCondTypeWhile;
  cp.conditional.size = 1;
  CHECK_CUDA(cudaGraphAddNode(&cond, loop, &start, nullptr, 1, &cp));
  cudaGraphNode_t step;
  cudaKernelNodeParams stepp = sp;
  stepp.func = reinterpret_cast<void*>(count_step);
  CHECK_CUDA(cudaGraphAddKernelNode(&step, cp.conditional.phGraph_out[0], nullptr, 0, &stepp));
  cudaGraphExec_t loop_exec;
  CHECK_CUDA(cudaGraphInstantiate(&loop_exec, loop, 0));
  int counted = 0;
  for (int round = 0; round < 2; ++round) {
    CHECK_CUDA(cudaGraphLaunch(loop_exec, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(&counted, counter, sizeof(int), cudaMemcpyDeviceToHost));
    // The second launch finds the counter at the limit: the body does not run.
    say("while loop, launch %d: counter %d\n", round, counted);
  }
  CHECK_CUDA(cudaMemset(counter, 0, sizeof(int)));
  limit = 4;
  CHECK_CUDA(cudaGraphExecKernelNodeSetParams(loop_exec, start, &sp));
  CHECK_CUDA(cudaGraphLaunch(loop_exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaMemcpy(&counted, counter, sizeof(int), cudaMemcpyDeviceToHost));
  // The start node now says stop at 4, the body's own kernel still at 10: it runs to 10.
  say("while loop, start limit lowered to 4: counter %d\n", counted);

  CHECK_CUDA(cudaGraphExecDestroy(loop_exec));
  CHECK_CUDA(cudaGraphDestroy(loop));
  CHECK_CUDA(cudaGraphExecDestroy(clone_exec));
  CHECK_CUDA(cudaGraphDestroy(clone));
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaGraphDestroy(body));
  CHECK_CUDA(cudaEventDestroy(ev));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(counter));
  CHECK_CUDA(cudaFree(a));
  CHECK_CUDA(cudaFree(b));
  return finish("35_graph_nodes");
}
