// Emulated CUDA Runtime: stream capture and graphs. A captured graph is the ordered list of the
// operations issued to the capturing streams; an executable graph replays them in that order
// (a valid serialisation of any dependency graph CUDA would have built).
#include <algorithm>

#include "server/backends/emulated/runtime.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
namespace {

constexpr unsigned long long kInstantiateFlags = cudaGraphInstantiateFlagAutoFreeOnLaunch |
                                                 cudaGraphInstantiateFlagUpload |
                                                 cudaGraphInstantiateFlagDeviceLaunch |
                                                 cudaGraphInstantiateFlagUseNodePriority;

bool valid_mode(cudaStreamCaptureMode mode) {
  return mode == cudaStreamCaptureModeGlobal || mode == cudaStreamCaptureModeThreadLocal ||
         mode == cudaStreamCaptureModeRelaxed;
}

cudaStreamCaptureMode& thread_capture_mode() {
  thread_local cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
  return mode;
}

cudaStreamCaptureStatus capture_status(const Stream* s) {
  if (!s || !s->capture) return cudaStreamCaptureStatusNone;
  return s->capture->invalidated ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive;
}

// The node of a graph the emulator made (state().mu held), or null.
GraphNode* graph_node(cudaGraphNode_t node) {
  for (const auto& [handle, graph] : state().graphs)
    for (const auto& n : graph->nodes)
      if (reinterpret_cast<const void*>(n.get()) == reinterpret_cast<const void*>(node)) return n.get();
  return nullptr;
}

}  // namespace

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
  if (!valid_mode(mode)) return cudaErrorInvalidValue;
  RuntimeState& st = state();
  std::lock_guard lock(st.mu);
  Stream* s = nullptr;
  if (cudaError_t err = st.resolve_stream(stream, &s); err != cudaSuccess) return err;
  if (!s) return cudaErrorStreamCaptureUnsupported;  // the built-in streams cannot capture
  if (s->capture) return cudaErrorIllegalState;
  auto capture = std::make_shared<Capture>();
  capture->id = st.next_capture_id++;
  capture->mode = mode;
  capture->graph = std::make_shared<Graph>();
  capture->graph->device = s->device;
  capture->origin = stream;
  s->capture = std::move(capture);
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* pGraph) {
  if (!pGraph) return cudaErrorInvalidValue;
  RuntimeState& st = state();
  std::lock_guard lock(st.mu);
  Stream* s = nullptr;
  if (cudaError_t err = st.resolve_stream(stream, &s); err != cudaSuccess) return err;
  if (!s || !s->capture) return cudaErrorIllegalState;
  std::shared_ptr<Capture> capture = s->capture;
  if (capture->origin != stream) return cudaErrorStreamCaptureUnmatched;
  for (auto& [handle, other] : st.streams)  // streams that joined the capture leave it too
    if (other->capture == capture) other->capture.reset();
  *pGraph = nullptr;
  if (capture->invalidated) return cudaErrorStreamCaptureInvalidated;
  auto graph = std::make_unique<Graph>(std::move(*capture->graph));
  *pGraph = reinterpret_cast<cudaGraph_t>(graph.get());
  st.graphs.emplace(graph.get(), std::move(graph));
  return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus* pCaptureStatus) {
  if (!pCaptureStatus) return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  Stream* s = nullptr;
  if (cudaError_t err = state().resolve_stream(stream, &s); err != cudaSuccess) return err;
  *pCaptureStatus = capture_status(s);
  return cudaSuccess;
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus* captureStatus_out,
                                     unsigned long long* id_out, cudaGraph_t* graph_out,
                                     const cudaGraphNode_t** dependencies_out,
                                     const cudaGraphEdgeData** edgeData_out, size_t* numDependencies_out) {
  if (!captureStatus_out) return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  Stream* s = nullptr;
  if (cudaError_t err = state().resolve_stream(stream, &s); err != cudaSuccess) return err;
  *captureStatus_out = capture_status(s);
  bool active = *captureStatus_out != cudaStreamCaptureStatusNone;
  if (id_out) *id_out = active ? s->capture->id : 0;
  // The capture's graph has no cudaGraph_t handle until it ends; the graph is a list, not nodes.
  if (graph_out) *graph_out = nullptr;
  if (dependencies_out) *dependencies_out = nullptr;
  if (edgeData_out) *edgeData_out = nullptr;
  if (numDependencies_out) *numDependencies_out = 0;
  return cudaSuccess;
}

cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode* mode) {
  if (!mode || !valid_mode(*mode)) return cudaErrorInvalidValue;
  std::swap(*mode, thread_capture_mode());
  return cudaSuccess;
}

cudaError_t cudaGraphCreate(cudaGraph_t* pGraph, unsigned int flags) {
  if (!pGraph || flags != 0) return cudaErrorInvalidValue;
  auto graph = std::make_unique<Graph>();
  graph->device = current_device();
  std::lock_guard lock(state().mu);
  *pGraph = reinterpret_cast<cudaGraph_t>(graph.get());
  state().graphs.emplace(graph.get(), std::move(graph));
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* pGraphExec, cudaGraph_t graph, unsigned long long flags) {
  if (!pGraphExec || (flags & ~kInstantiateFlags)) return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  auto it = state().graphs.find(graph);
  if (it == state().graphs.end()) return cudaErrorInvalidResourceHandle;
  auto exec = std::make_unique<GraphExec>();
  exec->device = it->second->device;
  for (const auto& n : it->second->nodes) {
    exec->nodes.push_back(std::make_shared<GraphNode>(*n));
    exec->nodes.back()->origin = n.get();
  }
  exec->allocations = it->second->allocations;
  *pGraphExec = reinterpret_cast<cudaGraphExec_t>(exec.get());
  state().execs.emplace(exec.get(), std::move(exec));
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* pGraphExec, cudaGraph_t graph, unsigned long long flags) {
  return emulated::cudaGraphInstantiate(pGraphExec, graph, flags);
}

// A copy of the graph's nodes (each a node of its own, as CUDA's clone makes) and allocations.
cudaError_t cudaGraphClone(cudaGraph_t* pGraphClone, cudaGraph_t originalGraph) {
  if (!pGraphClone) return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  auto it = state().graphs.find(originalGraph);
  if (it == state().graphs.end()) return cudaErrorInvalidResourceHandle;
  auto clone = std::make_unique<Graph>();
  clone->device = it->second->device;
  for (const auto& n : it->second->nodes) clone->nodes.push_back(std::make_shared<GraphNode>(*n));
  clone->allocations = it->second->allocations;
  *pGraphClone = reinterpret_cast<cudaGraph_t>(clone.get());
  state().graphs.emplace(clone.get(), std::move(clone));
  return cudaSuccess;
}

// The executable graph takes the graph's nodes when both list nodes of the same kinds in the same
// order (the emulator keeps no edges, so that order stands for the topology CUDA compares).
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                cudaGraphExecUpdateResultInfo* resultInfo) {
  std::lock_guard lock(state().mu);
  auto e = state().execs.find(hGraphExec);
  auto g = state().graphs.find(hGraph);
  if (e == state().execs.end() || g == state().graphs.end()) return cudaErrorInvalidResourceHandle;
  GraphNodes& exec_nodes = e->second->nodes;
  const GraphNodes& nodes = g->second->nodes;
  cudaGraphExecUpdateResultInfo info{cudaGraphExecUpdateSuccess, nullptr, nullptr};
  if (nodes.size() != exec_nodes.size()) info.result = cudaGraphExecUpdateErrorTopologyChanged;
  for (size_t i = 0; info.result == cudaGraphExecUpdateSuccess && i < nodes.size(); ++i)
    if (nodes[i]->type != exec_nodes[i]->type) {
      info.result = cudaGraphExecUpdateErrorNodeTypeChanged;
      info.errorNode = reinterpret_cast<cudaGraphNode_t>(nodes[i].get());
      info.errorFromNode = reinterpret_cast<cudaGraphNode_t>(const_cast<GraphNode*>(exec_nodes[i]->origin));
    }
  if (resultInfo) *resultInfo = info;
  if (info.result != cudaGraphExecUpdateSuccess) return cudaErrorGraphExecUpdateFailure;
  for (size_t i = 0; i < nodes.size(); ++i) {
    exec_nodes[i] = std::make_shared<GraphNode>(*nodes[i]);
    exec_nodes[i]->origin = nodes[i].get();
  }
  GraphAllocations& owned = e->second->allocations;  // the old graph's stay: launched work may use them
  for (const auto& a : g->second->allocations)
    if (std::find(owned.begin(), owned.end(), a) == owned.end()) owned.push_back(a);
  return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  GraphNodes nodes;
  {
    std::lock_guard lock(state().mu);
    auto it = state().execs.find(graphExec);
    if (it == state().execs.end()) return cudaErrorInvalidResourceHandle;
    nodes = it->second->nodes;
  }
  // Launched into a capturing stream, the whole graph becomes one child-graph node.
  return state().enqueue(stream, cudaGraphNodeTypeGraph, [nodes = std::move(nodes)] {
    for (const auto& node : nodes)
      if (cudaError_t err = node->run(); err != cudaSuccess) return err;
    return cudaSuccess;
  });
}

cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream) {
  std::lock_guard lock(state().mu);
  if (!state().execs.count(graphExec)) return cudaErrorInvalidResourceHandle;
  Stream* s = nullptr;
  return state().resolve_stream(stream, &s);
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* numNodes) {
  if (!numNodes) return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  auto it = state().graphs.find(graph);
  if (it == state().graphs.end()) return cudaErrorInvalidResourceHandle;
  const GraphNodes& all = it->second->nodes;
  if (!nodes) {
    *numNodes = all.size();
    return cudaSuccess;
  }
  // As CUDA: fill up to *numNodes entries, null the rest, and report how many were filled.
  size_t filled = std::min(*numNodes, all.size());
  for (size_t i = 0; i < *numNodes; ++i)
    nodes[i] = i < filled ? reinterpret_cast<cudaGraphNode_t>(const_cast<GraphNode*>(all[i].get())) : nullptr;
  *numNodes = filled;
  return cudaSuccess;
}

cudaError_t add_graph_node(cudaGraph_t graph, const cudaGraphNode_t* deps, size_t num_deps, GraphNode added,
                           cudaGraphNode_t* node, std::shared_ptr<GraphAllocation> owned) {
  if (!node || (num_deps && !deps)) return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  auto it = state().graphs.find(graph);
  if (it == state().graphs.end()) return cudaErrorInvalidResourceHandle;
  GraphNodes& nodes = it->second->nodes;
  for (size_t i = 0; i < num_deps; ++i)
    if (std::none_of(nodes.begin(), nodes.end(), [&](const auto& n) { return n.get() == static_cast<const void*>(deps[i]); }))
      return cudaErrorInvalidValue;
  auto shared = std::make_shared<GraphNode>(std::move(added));
  *node = reinterpret_cast<cudaGraphNode_t>(shared.get());
  nodes.push_back(std::move(shared));
  if (owned) it->second->allocations.push_back(std::move(owned));
  return cudaSuccess;
}

cudaError_t set_graph_node(cudaGraphExec_t exec, cudaGraphNode_t node, cudaGraphNodeType type, Operation run) {
  std::lock_guard lock(state().mu);
  auto same = [node](const GraphNode* n) { return n == static_cast<const void*>(node); };
  if (!exec) {
    for (const auto& [handle, graph] : state().graphs)
      for (const auto& n : graph->nodes)
        if (same(n.get())) {
          if (n->type != type) return cudaErrorInvalidValue;
          n->run = std::move(run);
          return cudaSuccess;
        }
    return cudaErrorInvalidValue;
  }
  auto it = state().execs.find(exec);
  if (it == state().execs.end()) return cudaErrorInvalidResourceHandle;
  for (auto& n : it->second->nodes)
    if (same(n->origin)) {
      if (n->type != type) return cudaErrorInvalidValue;
      auto changed = std::make_shared<GraphNode>(*n);
      changed->run = std::move(run);
      n = std::move(changed);
      return cudaSuccess;
    }
  return cudaErrorInvalidValue;
}

// A child graph node's operation: the child graph copied, as CUDA clones it into the node (later
// changes to the child graph do not reach the node); its allocations live as long as the copy.
cudaError_t child_graph_run(cudaGraph_t child, Operation* run) {
  GraphNodes body;
  GraphAllocations owned;
  {
    std::lock_guard lock(state().mu);
    auto it = state().graphs.find(child);
    if (it == state().graphs.end()) return cudaErrorInvalidValue;
    for (const auto& n : it->second->nodes) body.push_back(std::make_shared<GraphNode>(*n));
    owned = it->second->allocations;
  }
  *run = [body = std::move(body), owned = std::move(owned)] {
    for (const auto& node : body)
      if (cudaError_t err = node->run(); err != cudaSuccess) return err;
    return cudaSuccess;
  };
  return cudaSuccess;
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                       const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                       cudaGraph_t childGraph) {
  Operation run;
  if (cudaError_t err = child_graph_run(childGraph, &run); err != cudaSuccess) return err;
  return add_graph_node(graph, pDependencies, numDependencies, {cudaGraphNodeTypeGraph, std::move(run)}, pGraphNode);
}

cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                 cudaGraph_t childGraph) {
  if (!hGraphExec) return cudaErrorInvalidResourceHandle;
  Operation run;
  if (cudaError_t err = child_graph_run(childGraph, &run); err != cudaSuccess) return err;
  return set_graph_node(hGraphExec, node, cudaGraphNodeTypeGraph, std::move(run));
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                  size_t numDependencies) {
  return add_graph_node(graph, pDependencies, numDependencies, {cudaGraphNodeTypeEmpty, [] { return cudaSuccess; }},
                        pGraphNode);
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                 size_t numDependencies, const cudaHostNodeParams* pNodeParams) {
  if (!pNodeParams || !pNodeParams->fn) return cudaErrorInvalidValue;
  const cudaHostNodeParams p = *pNodeParams;
  Operation run = [p] {
    p.fn(p.userData);
    return cudaSuccess;
  };
  return add_graph_node(graph, pDependencies, numDependencies, {cudaGraphNodeTypeHost, std::move(run), p}, pGraphNode);
}

cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, cudaHostNodeParams* pNodeParams) {
  if (!pNodeParams) return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  GraphNode* n = graph_node(node);
  // Host functions captured from a stream are operations without parameters of their own.
  if (!n || n->type != cudaGraphNodeTypeHost || !n->host.fn) return cudaErrorInvalidValue;
  *pNodeParams = n->host;
  return cudaSuccess;
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType* pType) {
  if (!pType) return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  GraphNode* n = graph_node(node);
  if (!n) return cudaErrorInvalidValue;
  *pType = n->type;
  return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t hNode, cudaLaunchAttributeID attr,
                                            const cudaLaunchAttributeValue* value) {
  if (!value) return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  GraphNode* n = graph_node(hNode);
  if (!n || n->type != cudaGraphNodeTypeKernel) return cudaErrorInvalidValue;
  n->attributes[attr] = *value;
  return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t hNode, cudaLaunchAttributeID attr,
                                            cudaLaunchAttributeValue* value_out) {
  if (!value_out) return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  GraphNode* n = graph_node(hNode);
  if (!n || n->type != cudaGraphNodeTypeKernel) return cudaErrorInvalidValue;
  auto it = n->attributes.find(attr);
  *value_out = it == n->attributes.end() ? cudaLaunchAttributeValue{} : it->second;
  return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  std::lock_guard lock(state().mu);
  return state().graphs.erase(graph) ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  std::lock_guard lock(state().mu);
  return state().execs.erase(graphExec) ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

}  // namespace rgpu::server::emulated
