// Graphs on the server: node enumeration, and host copies captured into graphs through mirrors.
#include <cstring>
#include <vector>

#include "common/wire/codec.h"
#include "common/wire/frame.h"
#include "common/wire/graph_args.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "server/session/call_context.h"
#include "server/session/internal_handlers.h"
#include "server/session/session.h"

namespace rgpu::server::handlers {
namespace {

using NodesFn = cudaError_t (*)(cudaGraph_t, cudaGraphNode_t*, size_t*);

void CUDART_CB send_mirror(void* data);

// rgpu's own relay nodes (the host node after a captured D2H copy) are not the program's: hidden
// from enumeration, so a graph shows the nodes the program made. Needs the backend to answer
// host node queries; without that every node shows.
bool is_relay(const CallContext& ctx, cudaGraphNode_t node) {
  const auto& rt = ctx.cudart;
  if (!rt.cudaGraphNodeGetType || !rt.cudaGraphHostNodeGetParams) return false;
  cudaGraphNodeType type{};
  if (rt.cudaGraphNodeGetType(node, &type) != cudaSuccess || type != cudaGraphNodeTypeHost) return false;
  cudaHostNodeParams params{};
  return rt.cudaGraphHostNodeGetParams(node, &params) == cudaSuccess && params.fn == &send_mirror;
}

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
  size_t total = 0;
  status = fn(graph, nullptr, &total);
  if (status != cudaSuccess) return true;
  if (total > kMaxNodes) {
    status = cudaErrorInvalidValue;
    return true;
  }
  std::vector<cudaGraphNode_t> nodes(total ? total : 1);
  status = fn(graph, nodes.data(), &total);
  if (status != cudaSuccess) return true;
  std::erase_if(nodes, [&](cudaGraphNode_t n) { return is_relay(ctx, n); });
  if (nodes.size() > total) nodes.resize(total);
  out.put<uint64_t>(nodes.size());
  if (q.want_nodes) {
    for (uint64_t i = 0; i < nodes.size() && i < q.capacity; ++i) {
      out.put<uint64_t>(ctx.handles.id_for(HandleKind::kGraphNode, nodes[i]));
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

// Host copies captured into graphs, through mirrors (common/wire/graph_args.h).
namespace rgpu::server::handlers {
namespace {

// Captured as a host node after a D2H copy into a mirror: ships the mirror's bytes to the client
// every time the graph runs.
void CUDART_CB send_mirror(void* data) {
  auto* m = static_cast<Session::Mirror*>(data);
  iovec v{m->ptr, m->size};
  (void)m->session->send(wire::FrameKind::kMirror, 0, m->id, {}, {&v, 1});
}

struct PendingRefresh {
  void* mirror;
  std::vector<uint8_t> bytes;
};

// Enqueued ahead of a graph launch: writes an H2D mirror in stream order, after any earlier
// launch on the stream has finished reading it.
void CUDART_CB write_mirror(void* data) {
  auto* r = static_cast<PendingRefresh*>(data);
  std::memcpy(r->mirror, r->bytes.data(), r->bytes.size());
  delete r;
}

}  // namespace

bool capture_copy(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  auto c = in.get<wire::CaptureCopy>();
  if (!in.ok() || !in.at_end() || c.count > wire::kMaxBulk) return false;
  bool h2d = c.kind == cudaMemcpyHostToDevice;
  if (!h2d && c.kind != cudaMemcpyDeviceToHost) return false;
  if (h2d ? ctx.bulk_in.size() != c.count : !ctx.bulk_in.empty()) return false;
  const auto& rt = ctx.cudart;
  if (!rt.cudaMemcpyAsync || !rt.cudaLaunchHostFunc) {
    status = cudaErrorNotSupported;
    return true;
  }
  cudaStream_t stream{};
  if (!ctx.handles.resolve(HandleKind::kStream, c.stream, &stream)) {
    status = cudaErrorInvalidResourceHandle;
    return true;
  }
  Session::Mirror* m = ctx.session.new_mirror(c.mirror, c.count);
  if (!m) {
    status = cudaErrorMemoryAllocation;
    return true;
  }
  auto device = reinterpret_cast<void*>(static_cast<uintptr_t>(c.device));
  if (h2d) {
    std::memcpy(m->ptr, ctx.bulk_in.data(), c.count);
    status = rt.cudaMemcpyAsync(device, m->ptr, c.count, cudaMemcpyHostToDevice, stream);
  } else {
    status = rt.cudaMemcpyAsync(m->ptr, device, c.count, cudaMemcpyDeviceToHost, stream);
    if (status == cudaSuccess) status = rt.cudaLaunchHostFunc(stream, &send_mirror, m);
  }
  return true;
}

bool mirror_refresh(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  auto r = in.get<wire::MirrorRefresh>();
  if (!in.ok() || !in.at_end()) return false;
  Session::Mirror* m = ctx.session.mirror(r.mirror);
  if (!m || ctx.bulk_in.size() != m->size) return false;
  cudaStream_t stream{};
  if (!ctx.handles.resolve(HandleKind::kStream, r.stream, &stream)) {
    status = cudaErrorInvalidResourceHandle;
    return true;
  }
  if (!ctx.cudart.cudaLaunchHostFunc) {
    status = cudaErrorNotSupported;
    return true;
  }
  auto* p = new PendingRefresh{m->ptr, std::vector<uint8_t>(ctx.bulk_in.begin(), ctx.bulk_in.end())};
  status = ctx.cudart.cudaLaunchHostFunc(stream, &write_mirror, p);
  if (status != cudaSuccess) delete p;
  return true;
}

}  // namespace rgpu::server::handlers
