// Graph nodes built by hand whose parameters cannot travel as bytes (common/wire/graph_node_args.h).
// A kernel node's kernel and arguments are translated exactly as a launch's are (kernel_args.h);
// a host node's function stays here, registered as a client callback that the server's node runs
// at each launch of the graph, in stream order, as a captured host function is (callbacks.cpp).
// These calls wait for the server, so that a bad node is refused by the call that makes it.
// The client keeps each kernel node's parameters as added or last set, arguments included, and
// answers cudaGraphKernelNodeGetParams from them.
#include <cuda_runtime_api.h>

#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "client/runtime/call.h"
#include "client/runtime/cudart_errors.h"
#include "client/runtime/graph_books.h"
#include "client/runtime/graph_host_functions.h"
#include "client/runtime/kernel_args.h"
#include "client/runtime/pipe.h"
#include "codegen/support/gen_marshal.h"
#include "common/wire/graph_node_args.h"
#include "gen/cudart/cudart_ids.h"
#include "gen/cudart/cudart_remote.h"

namespace rgpu::client {
namespace {

namespace ids = gen::cudart;

// The user's host functions by client callback id, for cudaGraphHostNodeGetParams.
class HostFunctions {
 public:
  static HostFunctions& get() {
    static HostFunctions* h = new HostFunctions();
    return *h;
  }
  void remember(uint64_t callback, cudaHostNodeParams p) {
    std::lock_guard<std::mutex> lock(mu_);
    by_callback_[callback] = p;
  }
  bool find(uint64_t callback, cudaHostNodeParams* p) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_callback_.find(callback);
    if (it == by_callback_.end()) return false;
    *p = it->second;
    return true;
  }

 private:
  std::mutex mu_;
  std::unordered_map<uint64_t, cudaHostNodeParams> by_callback_;
};

// The kernel nodes the client added or set, by node id, for cudaGraphKernelNodeGetParams: each
// argument copied as the program gave it (before pinned host pointers become GPU addresses), at its
// parameter's offset. A record never moves (node-based map) and a set refills it in place, so the
// `kernelParams` handed out stay valid as long as the node's graph.
class KernelNodes {
 public:
  static KernelNodes& get() {
    static KernelNodes* k = new KernelNodes();
    return *k;
  }
  // `graph` null: a set of a node whose graph is not known here (captured or a clone's): kept as
  // long as the process.
  void record(cudaGraphNode_t node, cudaGraph_t graph, const KernelRecord& k, const cudaKernelNodeParams& p) {
    std::lock_guard<std::mutex> lock(mu_);
    Node& n = nodes_[reinterpret_cast<uint64_t>(node)];
    if (graph) n.graph = reinterpret_cast<uint64_t>(graph);
    n.args.assign(k.args_size, 0);
    n.pointers.resize(k.params.size());
    for (size_t i = 0; i < k.params.size(); ++i) {
      n.pointers[i] = n.args.data() + k.params[i].offset;
      std::memcpy(n.pointers[i], p.kernelParams[i], k.params[i].size);
    }
    n.params = p;
    n.params.kernelParams = n.pointers.empty() ? nullptr : n.pointers.data();
  }
  bool find(cudaGraphNode_t node, cudaKernelNodeParams* p) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = nodes_.find(reinterpret_cast<uint64_t>(node));
    if (it == nodes_.end()) return false;
    *p = it->second.params;
    return true;
  }
  void forget_graph(cudaGraph_t graph) {
    std::lock_guard<std::mutex> lock(mu_);
    std::erase_if(nodes_, [&](const auto& kv) { return kv.second.graph == reinterpret_cast<uint64_t>(graph); });
  }

 private:
  struct Node {
    uint64_t graph = 0;
    cudaKernelNodeParams params{};
    std::vector<char> args;
    std::vector<void*> pointers;
  };
  std::mutex mu_;
  std::unordered_map<uint64_t, Node> nodes_;
};

// The head of an Add*Node call: the new node's id (written to *node), the graph, the dependencies.
void put_add(Call& call, cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t num_deps) {
  uint64_t id = new_handle_id();
  *node = reinterpret_cast<cudaGraphNode_t>(id);
  call.args().put<uint64_t>(id);
  call.args().put<uint64_t>(reinterpret_cast<uint64_t>(graph));
  gen::put_handles(call.args(), deps, num_deps);
  call.args().put<uint64_t>(num_deps);
}

// The target of a setter: [the executable graph,] the node.
void put_target(Call& call, cudaGraphExec_t exec, cudaGraphNode_t node) {
  if (exec) call.args().put<uint64_t>(reinterpret_cast<uint64_t>(exec));
  call.args().put<uint64_t>(reinterpret_cast<uint64_t>(node));
}

// The kernel of a kernel node's parameters, checked as a launch checks it.
cudaError_t node_kernel(const cudaKernelNodeParams* p, KernelRecord** k) {
  if (!p) return cudaErrorInvalidValue;
  if (p->extra) {
    report_unsupported("kernel node parameters passed through `extra`");
    return cudaErrorNotSupported;
  }
  cudaError_t st;
  *k = loaded_kernel(p->func, &st);
  if (!*k) return st;
  return !p->kernelParams && !(*k)->params.empty() ? cudaErrorInvalidValue : cudaSuccess;
}

cudaError_t put_kernel(Call& call, const KernelRecord& k, const cudaKernelNodeParams& p) {
  wire::KernelNode n{k.server_id, {p.gridDim.x, p.gridDim.y, p.gridDim.z}, {p.blockDim.x, p.blockDim.y, p.blockDim.z},
                     p.sharedMemBytes, 0};
  call.args().put(n);
  return put_kernel_args(k, p.kernelParams, call.args());
}

cudaError_t add_kernel(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t num_deps,
                       const cudaKernelNodeParams* p) {
  if (!node) return cudaErrorInvalidValue;
  KernelRecord* k = nullptr;
  if (cudaError_t st = node_kernel(p, &k); st != cudaSuccess) return st;
  Call call(ids::k_cudaGraphAddKernelNode, CallClass::kSync);
  put_add(call, node, graph, deps, num_deps);
  if (cudaError_t st = put_kernel(call, *k, *p); st != cudaSuccess) return st;
  auto st = static_cast<cudaError_t>(call.invoke());
  if (st == cudaSuccess) KernelNodes::get().record(*node, graph, *k, *p);
  return st;
}

// CUDA's rule: an executable graph's set leaves the graph's node, and what its getter answers, as
// they were.
cudaError_t set_kernel(uint32_t id, cudaGraphExec_t exec, cudaGraphNode_t node, const cudaKernelNodeParams* p) {
  KernelRecord* k = nullptr;
  if (cudaError_t st = node_kernel(p, &k); st != cudaSuccess) return st;
  Call call(id, CallClass::kSync);
  put_target(call, exec, node);
  if (cudaError_t st = put_kernel(call, *k, *p); st != cudaSuccess) return st;
  auto st = static_cast<cudaError_t>(call.invoke());
  if (st == cudaSuccess && !exec) KernelNodes::get().record(node, nullptr, *k, *p);
  return st;
}

// A kernel node's parameters as added or last set here. Stream capture makes kernel nodes on the
// server alone (the client never learns their ids until a query names them), and a clone's nodes
// are the server's copies: their parameters are not known here, and the call says so.
cudaError_t get_kernel(cudaGraphNode_t node, cudaKernelNodeParams* p) {
  if (!p) return cudaErrorInvalidValue;
  if (KernelNodes::get().find(node, p)) return cudaSuccess;
  cudaGraphNodeType type{};
  cudaError_t st = gen::cudart::remote::cudaGraphNodeGetType(node, &type);
  if (st != cudaSuccess) return st;
  if (type != cudaGraphNodeTypeKernel) return cudaErrorInvalidValue;
  report_unsupported("cudaGraphKernelNodeGetParams of a kernel node that stream capture or cudaGraphClone made");
  return cudaErrorNotSupported;
}

// A host node's function, registered as a client callback run at every launch of its graph.
cudaError_t host_callback(const cudaHostNodeParams* p, wire::HostNode* out) {
  if (!p || !p->fn) return cudaErrorInvalidValue;
  Pipe& pipe = Pipe::get();
  if (!pipe.available()) return cudaErrorNoDevice;
  out->callback = pipe.register_callback([fn = p->fn, data = p->userData] { fn(data); }, true);
  remember_host_function(out->callback, p->fn, p->userData);
  return cudaSuccess;
}

cudaError_t add_host(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t num_deps,
                     const cudaHostNodeParams* p) {
  if (!node) return cudaErrorInvalidValue;
  wire::HostNode h{};
  if (cudaError_t st = host_callback(p, &h); st != cudaSuccess) return st;
  Call call(ids::k_cudaGraphAddHostNode, CallClass::kSync);
  put_add(call, node, graph, deps, num_deps);
  call.args().put(h);
  return static_cast<cudaError_t>(call.invoke());
}

cudaError_t set_host(uint32_t id, cudaGraphExec_t exec, cudaGraphNode_t node, const cudaHostNodeParams* p) {
  wire::HostNode h{};
  if (cudaError_t st = host_callback(p, &h); st != cudaSuccess) return st;
  Call call(id, CallClass::kSync);
  put_target(call, exec, node);
  call.args().put(h);
  return static_cast<cudaError_t>(call.invoke());
}

cudaError_t get_host(cudaGraphNode_t node, cudaHostNodeParams* p) {
  if (!p) return cudaErrorInvalidValue;
  Call call(ids::k_cudaGraphHostNodeGetParams, CallClass::kSync);
  call.args().put<uint64_t>(reinterpret_cast<uint64_t>(node));
  auto st = static_cast<cudaError_t>(call.invoke());
  if (st != cudaSuccess) return st;
  uint64_t callback = call.results().get<uint64_t>();
  if (!call.results().ok()) return cudaErrorUnknown;
  if (HostFunctions::get().find(callback, p)) return cudaSuccess;
  // A stream callback (cudaStreamAddCallback) captured into the graph: no cudaHostFn_t to show.
  report_unsupported("cudaGraphHostNodeGetParams of a captured stream callback");
  return cudaErrorNotSupported;
}

// The body graphs of conditional nodes, by node: CUDA hands out an array it owns for the node's
// lifetime; these live as long as the process.
class ConditionalBodies {
 public:
  static cudaGraph_t* make(uint64_t node, size_t n) {
    static std::mutex mu;
    static auto& bodies = *new std::unordered_map<uint64_t, std::vector<cudaGraph_t>>();
    std::lock_guard<std::mutex> lock(mu);
    auto& v = bodies[node];
    v.assign(n, nullptr);
    return v.data();
  }
};

cudaError_t add_conditional(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t num_deps,
                            cudaConditionalNodeParams& p) {
  if (p.size == 0) return cudaErrorInvalidValue;
  Call call(ids::k_cudaGraphAddNode, CallClass::kSync);
  put_add(call, node, graph, deps, num_deps);
  call.args().put(wire::ConditionalNode{p.handle, p.type, p.size});
  auto st = static_cast<cudaError_t>(call.invoke());
  if (st != cudaSuccess) return st;
  cudaGraph_t* bodies = ConditionalBodies::make(reinterpret_cast<uint64_t>(*node), p.size);
  for (unsigned i = 0; i < p.size; ++i) bodies[i] = reinterpret_cast<cudaGraph_t>(call.results().get<uint64_t>());
  if (!call.results().ok()) return cudaErrorUnknown;
  p.phGraph_out = bodies;
  return cudaSuccess;
}

// cudaGraphAddNode: each kind through its own add; edge data other than the default is not supported.
cudaError_t add_node(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                     const cudaGraphEdgeData* edges, size_t num_deps, cudaGraphNodeParams* p) {
  if (!node || !p) return cudaErrorInvalidValue;
  for (size_t i = 0; edges && i < num_deps; ++i)
    if (edges[i].type != cudaGraphDependencyTypeDefault || edges[i].from_port || edges[i].to_port) {
      report_unsupported("cudaGraphAddNode with edge data");
      return cudaErrorNotSupported;
    }
  switch (p->type) {
    case cudaGraphNodeTypeKernel: {
      const cudaKernelNodeParamsV2& k = p->kernel;
      cudaKernelNodeParams v1{k.func, k.gridDim, k.blockDim, k.sharedMemBytes, k.kernelParams, k.extra};
      return add_kernel(node, graph, deps, num_deps, &v1);
    }
    case cudaGraphNodeTypeHost: {
      cudaHostNodeParams v1{p->host.fn, p->host.userData};
      return add_host(node, graph, deps, num_deps, &v1);
    }
    case cudaGraphNodeTypeConditional:
      return add_conditional(node, graph, deps, num_deps, p->conditional);
    default:
      report_unsupported("cudaGraphAddNode of this node type (kernel, host and conditional nodes are supported)");
      return cudaErrorNotSupported;
  }
}

}  // namespace

void remember_host_function(uint64_t callback, cudaHostFn_t fn, void* user_data) {
  HostFunctions::get().remember(callback, {fn, user_data});
}

void forget_kernel_nodes(cudaGraph_t graph) { KernelNodes::get().forget_graph(graph); }

}  // namespace rgpu::client

using rgpu::client::cudart_finish;
namespace ids = rgpu::gen::cudart;

extern "C" cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                              const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                              const cudaKernelNodeParams* pNodeParams) {
  return cudart_finish(rgpu::client::add_kernel(pGraphNode, graph, pDependencies, numDependencies, pNodeParams));
}
extern "C" cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const cudaKernelNodeParams* pNodeParams) {
  return cudart_finish(rgpu::client::set_kernel(ids::k_cudaGraphKernelNodeSetParams, nullptr, node, pNodeParams));
}
extern "C" cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams* pNodeParams) {
  return cudart_finish(rgpu::client::get_kernel(node, pNodeParams));
}
extern "C" cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                        const cudaKernelNodeParams* pNodeParams) {
  if (!hGraphExec) return cudart_finish(cudaErrorInvalidResourceHandle);
  return cudart_finish(
      rgpu::client::set_kernel(ids::k_cudaGraphExecKernelNodeSetParams, hGraphExec, node, pNodeParams));
}

extern "C" cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                            const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                            const cudaHostNodeParams* pNodeParams) {
  return cudart_finish(rgpu::client::add_host(pGraphNode, graph, pDependencies, numDependencies, pNodeParams));
}
extern "C" cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const cudaHostNodeParams* pNodeParams) {
  return cudart_finish(rgpu::client::set_host(ids::k_cudaGraphHostNodeSetParams, nullptr, node, pNodeParams));
}
extern "C" cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                      const cudaHostNodeParams* pNodeParams) {
  if (!hGraphExec) return cudart_finish(cudaErrorInvalidResourceHandle);
  return cudart_finish(rgpu::client::set_host(ids::k_cudaGraphExecHostNodeSetParams, hGraphExec, node, pNodeParams));
}
extern "C" cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, cudaHostNodeParams* pNodeParams) {
  return cudart_finish(rgpu::client::get_host(node, pNodeParams));
}
extern "C" cudaError_t cudaGraphAddNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                        const cudaGraphNode_t* pDependencies, const cudaGraphEdgeData* dependencyData,
                                        size_t numDependencies, cudaGraphNodeParams* nodeParams) {
  return cudart_finish(
      rgpu::client::add_node(pGraphNode, graph, pDependencies, dependencyData, numDependencies, nodeParams));
}

namespace {
// cudaGraphNodeSetParams / cudaGraphExecNodeSetParams (exec null: the graph's node): each kind
// through its own typed setter, which checks the node is of that kind. The kinds CUDA lets no
// setter change in place (memory, conditional, empty) and the external-semaphore nodes rgpu does
// not make are refused loudly.
cudaError_t set_node(cudaGraphExec_t exec, cudaGraphNode_t node, cudaGraphNodeParams* p) {
  if (!p) return cudaErrorInvalidValue;
  switch (p->type) {
    case cudaGraphNodeTypeKernel: {
      const cudaKernelNodeParamsV2& k = p->kernel;
      cudaKernelNodeParams v1{k.func, k.gridDim, k.blockDim, k.sharedMemBytes, k.kernelParams, k.extra};
      return exec ? cudaGraphExecKernelNodeSetParams(exec, node, &v1) : cudaGraphKernelNodeSetParams(node, &v1);
    }
    case cudaGraphNodeTypeHost: {
      cudaHostNodeParams v1{p->host.fn, p->host.userData};
      return exec ? cudaGraphExecHostNodeSetParams(exec, node, &v1) : cudaGraphHostNodeSetParams(node, &v1);
    }
    case cudaGraphNodeTypeMemcpy:
      return exec ? cudaGraphExecMemcpyNodeSetParams(exec, node, &p->memcpy.copyParams)
                  : cudaGraphMemcpyNodeSetParams(node, &p->memcpy.copyParams);
    case cudaGraphNodeTypeMemset: {
      const cudaMemsetParamsV2& m = p->memset;
      cudaMemsetParams v1{m.dst, m.pitch, m.value, m.elementSize, m.width, m.height};
      return exec ? cudaGraphExecMemsetNodeSetParams(exec, node, &v1) : cudaGraphMemsetNodeSetParams(node, &v1);
    }
    case cudaGraphNodeTypeEventRecord:
      return exec ? cudaGraphExecEventRecordNodeSetEvent(exec, node, p->eventRecord.event)
                  : cudaGraphEventRecordNodeSetEvent(node, p->eventRecord.event);
    case cudaGraphNodeTypeWaitEvent:
      return exec ? cudaGraphExecEventWaitNodeSetEvent(exec, node, p->eventWait.event)
                  : cudaGraphEventWaitNodeSetEvent(node, p->eventWait.event);
    case cudaGraphNodeTypeGraph:
      if (exec) return cudaGraphExecChildGraphNodeSetParams(exec, node, p->graph.graph);
      break;
    default:
      break;
  }
  rgpu::client::report_unsupported("cudaGraph[Exec]NodeSetParams of this node type (kernel, host, copy, memset, event and, in an "
                     "executable graph, child graph nodes are supported)");
  return cudaErrorNotSupported;
}
}  // namespace

extern "C" cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, cudaGraphNodeParams* nodeParams) {
  return cudart_finish(set_node(nullptr, node, nodeParams));
}
extern "C" cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t graphExec, cudaGraphNode_t node,
                                                  cudaGraphNodeParams* nodeParams) {
  if (!graphExec) return cudart_finish(cudaErrorInvalidResourceHandle);
  return cudart_finish(set_node(graphExec, node, nodeParams));
}
