// Graph queries whose answers name nodes, graphs or events the server's backend made (common/wire/
// graph_args.h): the server gives each its client id (the one the client chose, for what the client
// made), so a node the program added compares equal to the one a query returns.
#include <cuda_runtime_api.h>

#include "client/runtime/call.h"
#include "client/runtime/cudart_errors.h"
#include "common/wire/graph_args.h"
#include "gen/cudart/cudart_ids.h"

namespace rgpu::client {
namespace {

namespace ids = gen::cudart;

template <typename H>
uint64_t id_of(H h) {
  return reinterpret_cast<uint64_t>(h);
}

// A query that lists nodes: `to` is the one column (a graph's nodes, a node's dependencies), `from`
// the first of two (a graph's edges); null arrays ask for the count only.
cudaError_t list_nodes(uint32_t id, uint64_t subject, cudaGraphNode_t* from, cudaGraphNode_t* to,
                       cudaGraphEdgeData* edges, size_t* n) {
  if (!n) return cudaErrorInvalidValue;
  Call call(id, CallClass::kSync);
  call.args().put(wire::GraphNodesQuery{subject, *n, to ? 1u : 0u, edges ? 1u : 0u});
  auto st = static_cast<cudaError_t>(call.invoke());
  if (st != cudaSuccess) return st;
  auto& r = call.results();
  uint64_t count = r.get<uint64_t>();
  uint64_t filled = count < *n ? count : *n;
  if (to) {
    if (from)
      for (uint64_t i = 0; i < filled; ++i) from[i] = reinterpret_cast<cudaGraphNode_t>(r.get<uint64_t>());
    for (uint64_t i = 0; i < filled; ++i) to[i] = reinterpret_cast<cudaGraphNode_t>(r.get<uint64_t>());
  }
  if (edges)
    for (uint64_t i = 0; i < filled; ++i) edges[i] = r.get<cudaGraphEdgeData>();
  if (!r.ok()) return cudaErrorUnknown;
  *n = count;
  return cudaSuccess;
}

// A query answered by one handle the server names.
template <typename H>
cudaError_t one_handle(uint32_t id, cudaGraphNode_t node, cudaGraph_t graph, H* out) {
  if (!out) return cudaErrorInvalidValue;
  Call call(id, CallClass::kSync);
  call.args().put<uint64_t>(id_of(node));
  call.args().put<uint64_t>(id_of(graph));
  auto st = static_cast<cudaError_t>(call.invoke());
  if (st != cudaSuccess) return st;
  uint64_t answer = call.results().get<uint64_t>();
  if (!call.results().ok()) return cudaErrorUnknown;
  *out = reinterpret_cast<H>(answer);
  return cudaSuccess;
}

}  // namespace
}  // namespace rgpu::client

using rgpu::client::cudart_finish;
using rgpu::client::id_of;
using rgpu::client::list_nodes;
using rgpu::client::one_handle;
namespace ids = rgpu::gen::cudart;

extern "C" cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* numNodes) {
  return cudart_finish(list_nodes(ids::k_cudaGraphGetNodes, id_of(graph), nullptr, nodes, nullptr, numNodes));
}
extern "C" cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t* pRootNodes, size_t* pNumRootNodes) {
  return cudart_finish(
      list_nodes(ids::k_cudaGraphGetRootNodes, id_of(graph), nullptr, pRootNodes, nullptr, pNumRootNodes));
}
extern "C" cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to,
                                         cudaGraphEdgeData* edgeData, size_t* numEdges) {
  if ((from == nullptr) != (to == nullptr) || (edgeData && !from)) return cudart_finish(cudaErrorInvalidValue);
  return cudart_finish(list_nodes(ids::k_cudaGraphGetEdges, id_of(graph), from, to, edgeData, numEdges));
}
extern "C" cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t* pDependencies,
                                                    cudaGraphEdgeData* edgeData, size_t* pNumDependencies) {
  if (edgeData && !pDependencies) return cudart_finish(cudaErrorInvalidValue);
  return cudart_finish(list_nodes(ids::k_cudaGraphNodeGetDependencies, id_of(node), nullptr, pDependencies, edgeData,
                                  pNumDependencies));
}
extern "C" cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t* pDependentNodes,
                                                      cudaGraphEdgeData* edgeData, size_t* pNumDependentNodes) {
  if (edgeData && !pDependentNodes) return cudart_finish(cudaErrorInvalidValue);
  return cudart_finish(list_nodes(ids::k_cudaGraphNodeGetDependentNodes, id_of(node), nullptr, pDependentNodes,
                                  edgeData, pNumDependentNodes));
}
extern "C" cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t* pNode, cudaGraphNode_t originalNode,
                                                cudaGraph_t clonedGraph) {
  return cudart_finish(one_handle(ids::k_cudaGraphNodeFindInClone, originalNode, clonedGraph, pNode));
}
extern "C" cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t* pGraph) {
  return cudart_finish(one_handle(ids::k_cudaGraphChildGraphNodeGetGraph, node, nullptr, pGraph));
}
extern "C" cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event_out) {
  return cudart_finish(one_handle(ids::k_cudaGraphEventRecordNodeGetEvent, node, nullptr, event_out));
}
extern "C" cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event_out) {
  return cudart_finish(one_handle(ids::k_cudaGraphEventWaitNodeGetEvent, node, nullptr, event_out));
}
