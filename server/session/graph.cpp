// Graph node enumeration (see common/wire/graph_args.h).
#include <vector>

#include "common/wire/codec.h"
#include "common/wire/graph_args.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "server/session/call_context.h"

namespace rgpu::server::handlers {
namespace {

using NodesFn = cudaError_t (*)(cudaGraph_t, cudaGraphNode_t*, size_t*);

// At most this many nodes are returned by one call (a peer must not size our buffers freely).
constexpr uint64_t kMaxNodes = 1 << 20;

bool graph_nodes(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status, NodesFn fn) {
  auto q = in.get<wire::GraphNodesQuery>();
  if (!in.ok() || !in.at_end() || q.capacity > kMaxNodes) return false;
  if (!fn) {
    status = cudaErrorNotSupported;
    return true;
  }
  cudaGraph_t graph{};
  if (!ctx.handles.resolve(HandleKind::kGraph, q.graph, &graph)) {
    status = cudaErrorInvalidResourceHandle;
    return true;
  }
  size_t count = q.want_nodes ? q.capacity : 0;
  std::vector<cudaGraphNode_t> nodes(count ? count : 1);
  status = fn(graph, q.want_nodes ? nodes.data() : nullptr, &count);
  if (status != cudaSuccess) return true;
  out.put<uint64_t>(count);
  if (q.want_nodes) {
    for (uint64_t i = 0; i < count && i < q.capacity; ++i) {
      auto id = reinterpret_cast<uint64_t>(nodes[i]);
      ctx.handles.bind(HandleKind::kGraphNode, id, nodes[i]);
      out.put<uint64_t>(id);
    }
  }
  return true;
}

}  // namespace

bool cudaGraphGetNodes(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return graph_nodes(ctx, in, out, status, ctx.cudart.cudaGraphGetNodes);
}

bool cudaGraphGetRootNodes(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return graph_nodes(ctx, in, out, status, ctx.cudart.cudaGraphGetRootNodes);
}

}  // namespace rgpu::server::handlers
