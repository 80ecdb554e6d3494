// Graph node enumeration: the server reports node ids (see common/wire/graph_args.h).
#include <cuda_runtime_api.h>

#include "client/runtime/call.h"
#include "client/runtime/cudart_errors.h"
#include "common/wire/graph_args.h"
#include "gen/cudart/cudart_ids.h"

namespace {

cudaError_t graph_nodes(uint32_t id, cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* numNodes) {
  if (!numNodes) return rgpu::client::cudart_finish(cudaErrorInvalidValue);
  rgpu::client::Call call(id, rgpu::client::CallClass::kSync);
  rgpu::wire::GraphNodesQuery q{reinterpret_cast<uint64_t>(graph), *numNodes, nodes ? 1u : 0u, 0};
  call.args().put(q);
  auto st = static_cast<cudaError_t>(call.invoke());
  if (st != cudaSuccess) return rgpu::client::cudart_finish(st);
  auto& r = call.results();
  uint64_t count = r.get<uint64_t>();
  if (nodes) {
    uint64_t n = count < *numNodes ? count : *numNodes;
    for (uint64_t i = 0; i < n; ++i) nodes[i] = reinterpret_cast<cudaGraphNode_t>(r.get<uint64_t>());
  }
  if (!r.ok()) return rgpu::client::cudart_finish(cudaErrorUnknown);
  *numNodes = count;
  return cudaSuccess;
}

}  // namespace

extern "C" cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* numNodes) {
  return graph_nodes(rgpu::gen::cudart::k_cudaGraphGetNodes, graph, nodes, numNodes);
}

extern "C" cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t* pRootNodes, size_t* pNumRootNodes) {
  return graph_nodes(rgpu::gen::cudart::k_cudaGraphGetRootNodes, graph, pRootNodes, pNumRootNodes);
}
