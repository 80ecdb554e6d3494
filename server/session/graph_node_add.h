// The head every hand-written Add*Node call shares (common/wire/graph_node_args.h: the new node's
// client id, the graph, the dependencies), decoded and resolved once for graph_nodes.cpp's and
// graph.cpp's adds.
#pragma once

#include <cuda_runtime_api.h>

#include <vector>

#include "codegen/support/gen_marshal.h"
#include "common/wire/codec.h"
#include "server/session/call_context.h"

namespace rgpu::server::handlers {

// The head of an Add*Node call, decoded; its handles are resolved by resolve_add.
struct NodeAdd {
  uint64_t node_id = 0;
  uint64_t graph_id = 0;
  gen::HandleIds dep_ids;
  uint64_t num_deps = 0;
  cudaGraph_t graph{};
  std::vector<cudaGraphNode_t> deps;
};

inline bool read_add(wire::Decoder& in, NodeAdd* a) {
  a->node_id = in.get<uint64_t>();
  a->graph_id = in.get<uint64_t>();
  if (!a->dep_ids.read(in)) return false;
  a->num_deps = in.get<uint64_t>();
  return in.ok() && a->dep_ids.has_count(a->num_deps) && !HandleTable::is_builtin(a->node_id);
}

// False with status set when the graph or a dependency is unknown.
inline bool resolve_add(CallContext& ctx, NodeAdd* a, int32_t& status) {
  if (!ctx.handles.resolve(HandleKind::kGraph, a->graph_id, &a->graph) ||
      !a->dep_ids.resolve(ctx.handles, HandleKind::kGraphNode, &a->deps)) {
    status = cudaErrorInvalidResourceHandle;
    return false;
  }
  a->deps.resize(a->dep_ids.present() ? a->num_deps : 0);
  return true;
}

inline void bind_added(CallContext& ctx, const NodeAdd& a, cudaGraphNode_t node, int32_t status) {
  if (status == cudaSuccess && a.node_id) ctx.handles.bind(HandleKind::kGraphNode, a.node_id, node);
}

}  // namespace rgpu::server::handlers
