// Graph calls whose answers name nodes, graphs or events the backend made (common/wire/
// graph_args.h; also cudaGraphExecUpdate's and cudaGraphInstantiateWithParams's error node): each is given the client's id for it (HandleTable::id_for), and rgpu's own relay
// nodes are left out (is_mirror_relay), so a graph shows the nodes the program made.
#include <algorithm>
#include <functional>
#include <vector>

#include "common/wire/codec.h"
#include "common/wire/graph_args.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "server/session/call_context.h"
#include "server/session/internal_handlers.h"

namespace rgpu::server::handlers {
namespace {

// At most this many nodes are returned by one call (a peer must not size our buffers freely).
constexpr uint64_t kMaxNodes = 1 << 20;

// One backend query that lists nodes about `subject`: one column (`to`; `from` stays null) or two
// (a graph's edges), and edge data when `edges` is not null. Called first with null arrays for the
// count.
using Lister = std::function<cudaError_t(void* subject, cudaGraphNode_t* from, cudaGraphNode_t* to,
                                         cudaGraphEdgeData* edges, size_t* n)>;

bool list_nodes(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status, HandleKind subject_kind,
                bool available, bool two_columns, bool has_edge_data, const Lister& fn) {
  auto q = in.get<wire::GraphNodesQuery>();
  if (!in.ok() || !in.at_end() || q.capacity > kMaxNodes) return false;
  if (!available) {
    status = cudaErrorNotSupported;
    return true;
  }
  void* subject = nullptr;
  if (!ctx.handles.resolve(subject_kind, q.subject, &subject)) {
    status = cudaErrorInvalidResourceHandle;
    return true;
  }
  size_t total = 0;
  status = fn(subject, nullptr, nullptr, nullptr, &total);
  if (status != cudaSuccess) return true;
  if (total > kMaxNodes) {
    status = cudaErrorInvalidValue;
    return true;
  }
  size_t rows = std::max<size_t>(total, 1);
  std::vector<cudaGraphNode_t> to(rows), from(two_columns ? rows : 0);
  std::vector<cudaGraphEdgeData> edges(has_edge_data ? rows : 0);
  status = fn(subject, two_columns ? from.data() : nullptr, to.data(), has_edge_data ? edges.data() : nullptr, &total);
  if (status != cudaSuccess) return true;
  std::vector<size_t> kept;
  for (size_t i = 0; i < std::min(total, rows); ++i)
    if (!is_mirror_relay(ctx, to[i]) && !(two_columns && is_mirror_relay(ctx, from[i]))) kept.push_back(i);
  out.put<uint64_t>(kept.size());
  size_t n = std::min<size_t>(kept.size(), q.capacity);
  if (q.want_nodes) {
    if (two_columns)
      for (size_t i = 0; i < n; ++i) out.put<uint64_t>(ctx.handles.id_for(HandleKind::kGraphNode, from[kept[i]]));
    for (size_t i = 0; i < n; ++i) out.put<uint64_t>(ctx.handles.id_for(HandleKind::kGraphNode, to[kept[i]]));
  }
  if (q.want_edge_data && has_edge_data)
    for (size_t i = 0; i < n; ++i) out.put(edges[kept[i]]);
  return true;
}

// A query answered by one handle (in: u64 node id, u64 graph id; out: u64 handle id).
template <typename H, typename Fn>
bool one_handle(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status, bool available,
                HandleKind answer_kind, Fn&& fn) {
  auto node_id = in.get<uint64_t>();
  auto graph_id = in.get<uint64_t>();
  if (!in.ok() || !in.at_end()) return false;
  if (!available) {
    status = cudaErrorNotSupported;
    return true;
  }
  cudaGraphNode_t node{};
  cudaGraph_t graph{};
  if (!ctx.handles.resolve(HandleKind::kGraphNode, node_id, &node) ||
      !ctx.handles.resolve(HandleKind::kGraph, graph_id, &graph)) {
    status = cudaErrorInvalidResourceHandle;
    return true;
  }
  H answer{};
  status = fn(node, graph, &answer);
  if (status == cudaSuccess) out.put<uint64_t>(ctx.handles.id_for(answer_kind, answer));
  return true;
}

}  // namespace

bool cudaGraphGetNodes(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  auto fn = ctx.cudart.cudaGraphGetNodes;
  return list_nodes(ctx, in, out, status, HandleKind::kGraph, fn, false, false,
                    [fn](void* g, cudaGraphNode_t*, cudaGraphNode_t* to, cudaGraphEdgeData*, size_t* n) {
                      return fn(static_cast<cudaGraph_t>(g), to, n);
                    });
}

bool cudaGraphGetRootNodes(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  auto fn = ctx.cudart.cudaGraphGetRootNodes;
  return list_nodes(ctx, in, out, status, HandleKind::kGraph, fn, false, false,
                    [fn](void* g, cudaGraphNode_t*, cudaGraphNode_t* to, cudaGraphEdgeData*, size_t* n) {
                      return fn(static_cast<cudaGraph_t>(g), to, n);
                    });
}

bool cudaGraphGetEdges(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  auto fn = ctx.cudart.cudaGraphGetEdges;
  return list_nodes(ctx, in, out, status, HandleKind::kGraph, fn, true, true,
                    [fn](void* g, cudaGraphNode_t* from, cudaGraphNode_t* to, cudaGraphEdgeData* e, size_t* n) {
                      return fn(static_cast<cudaGraph_t>(g), to ? from : nullptr, to, to ? e : nullptr, n);
                    });
}

bool cudaGraphNodeGetDependencies(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  auto fn = ctx.cudart.cudaGraphNodeGetDependencies;
  return list_nodes(ctx, in, out, status, HandleKind::kGraphNode, fn, false, true,
                    [fn](void* node, cudaGraphNode_t*, cudaGraphNode_t* to, cudaGraphEdgeData* e, size_t* n) {
                      return fn(static_cast<cudaGraphNode_t>(node), to, e, n);
                    });
}

bool cudaGraphNodeGetDependentNodes(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  auto fn = ctx.cudart.cudaGraphNodeGetDependentNodes;
  return list_nodes(ctx, in, out, status, HandleKind::kGraphNode, fn, false, true,
                    [fn](void* node, cudaGraphNode_t*, cudaGraphNode_t* to, cudaGraphEdgeData* e, size_t* n) {
                      return fn(static_cast<cudaGraphNode_t>(node), to, e, n);
                    });
}

bool cudaGraphNodeFindInClone(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  auto fn = ctx.cudart.cudaGraphNodeFindInClone;
  return one_handle<cudaGraphNode_t>(ctx, in, out, status, fn, HandleKind::kGraphNode,
                                     [fn](cudaGraphNode_t node, cudaGraph_t clone, cudaGraphNode_t* found) {
                                       return fn(found, node, clone);
                                     });
}

bool cudaGraphChildGraphNodeGetGraph(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  auto fn = ctx.cudart.cudaGraphChildGraphNodeGetGraph;
  return one_handle<cudaGraph_t>(ctx, in, out, status, fn, HandleKind::kGraph,
                                 [fn](cudaGraphNode_t node, cudaGraph_t, cudaGraph_t* g) { return fn(node, g); });
}

bool cudaGraphEventRecordNodeGetEvent(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  auto fn = ctx.cudart.cudaGraphEventRecordNodeGetEvent;
  return one_handle<cudaEvent_t>(ctx, in, out, status, fn, HandleKind::kEvent,
                                 [fn](cudaGraphNode_t node, cudaGraph_t, cudaEvent_t* e) { return fn(node, e); });
}

bool cudaGraphEventWaitNodeGetEvent(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  auto fn = ctx.cudart.cudaGraphEventWaitNodeGetEvent;
  return one_handle<cudaEvent_t>(ctx, in, out, status, fn, HandleKind::kEvent,
                                 [fn](cudaGraphNode_t node, cudaGraph_t, cudaEvent_t* e) { return fn(node, e); });
}

// in: u64 executable graph id, u64 graph id; out (whatever the status): i32 result, u64 error node
// id, u64 error-from node id.
bool cudaGraphExecUpdate(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  auto exec_id = in.get<uint64_t>();
  auto graph_id = in.get<uint64_t>();
  if (!in.ok() || !in.at_end()) return false;
  if (!ctx.cudart.cudaGraphExecUpdate) {
    status = cudaErrorNotSupported;
    return true;
  }
  cudaGraphExec_t exec{};
  cudaGraph_t graph{};
  if (!ctx.handles.resolve(HandleKind::kGraphExec, exec_id, &exec) || !ctx.handles.resolve(HandleKind::kGraph, graph_id, &graph)) {
    status = cudaErrorInvalidResourceHandle;
    return true;
  }
  cudaGraphExecUpdateResultInfo info{};
  status = ctx.cudart.cudaGraphExecUpdate(exec, graph, &info);
  out.put<int32_t>(info.result);
  out.put<uint64_t>(ctx.handles.id_for(HandleKind::kGraphNode, info.errorNode));
  out.put<uint64_t>(ctx.handles.id_for(HandleKind::kGraphNode, info.errorFromNode));
  return true;
}

// in: u64 new executable graph id, u64 graph id, u64 flags, u64 upload stream id; out (whatever the
// status): i32 result, u64 error node id.
bool cudaGraphInstantiateWithParams(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  auto exec_id = in.get<uint64_t>();
  auto graph_id = in.get<uint64_t>();
  auto flags = in.get<uint64_t>();
  auto stream_id = in.get<uint64_t>();
  if (!in.ok() || !in.at_end() || HandleTable::is_builtin(exec_id)) return false;
  if (!ctx.cudart.cudaGraphInstantiateWithParams) {
    status = cudaErrorNotSupported;
    return true;
  }
  cudaGraphInstantiateParams p{};
  p.flags = flags;
  cudaGraph_t graph{};
  if (!ctx.handles.resolve(HandleKind::kGraph, graph_id, &graph) ||
      !ctx.handles.resolve(HandleKind::kStream, stream_id, &p.uploadStream)) {
    status = cudaErrorInvalidResourceHandle;
    return true;
  }
  cudaGraphExec_t exec{};
  status = ctx.cudart.cudaGraphInstantiateWithParams(&exec, graph, &p);
  if (status == cudaSuccess) ctx.handles.bind(HandleKind::kGraphExec, exec_id, exec);
  out.put<int32_t>(p.result_out);
  out.put<uint64_t>(ctx.handles.id_for(HandleKind::kGraphNode, p.errNode_out));
  return true;
}

}  // namespace rgpu::server::handlers
