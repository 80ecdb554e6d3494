// Graphs on the server: host copies captured into graphs, through mirrors.
#include <cstring>
#include <vector>

#include "codegen/support/gen_marshal.h"
#include "common/wire/codec.h"
#include "common/wire/frame.h"
#include "common/wire/graph_args.h"
#include "common/wire/graph_node_args.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "server/session/call_context.h"
#include "server/session/internal_handlers.h"
#include "server/session/session.h"

namespace rgpu::server::handlers {
namespace {
void CUDART_CB send_mirror(void* data);
}  // namespace

bool is_mirror_relay(const CallContext& ctx, cudaGraphNode_t node) {
  const auto& rt = ctx.cudart;
  if (!rt.cudaGraphNodeGetType || !rt.cudaGraphHostNodeGetParams) return false;
  cudaGraphNodeType type{};
  if (rt.cudaGraphNodeGetType(node, &type) != cudaSuccess || type != cudaGraphNodeTypeHost) return false;
  cudaHostNodeParams params{};
  return rt.cudaGraphHostNodeGetParams(node, &params) == cudaSuccess && params.fn == &send_mirror;
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

// cudaGraphAddMemcpyNode1D (common/wire/graph_node_args.h): wire head as graph_nodes.cpp's adds.
bool cudaGraphAddMemcpyNode1D(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  auto node_id = in.get<uint64_t>();
  auto graph_id = in.get<uint64_t>();
  gen::HandleIds dep_ids;
  if (!dep_ids.read(in)) return false;
  auto num_deps = in.get<uint64_t>();
  auto c = in.get<wire::MemcpyNode>();
  if (!in.ok() || !in.at_end() || !dep_ids.has_count(num_deps) || HandleTable::is_builtin(node_id)) return false;
  bool d2d = c.kind == cudaMemcpyDeviceToDevice, h2d = c.kind == cudaMemcpyHostToDevice;
  if (!(d2d || h2d || c.kind == cudaMemcpyDeviceToHost) || d2d != (c.mirror == 0) || c.count > wire::kMaxBulk)
    return false;
  const auto& rt = ctx.cudart;
  if (!rt.cudaGraphAddMemcpyNode1D || !rt.cudaGraphAddHostNode) {
    status = cudaErrorNotSupported;
    return true;
  }
  cudaGraph_t graph{};
  std::vector<cudaGraphNode_t> deps;
  if (!ctx.handles.resolve(HandleKind::kGraph, graph_id, &graph) || !dep_ids.resolve(ctx.handles, HandleKind::kGraphNode, &deps)) {
    status = cudaErrorInvalidResourceHandle;
    return true;
  }
  deps.resize(dep_ids.present() ? num_deps : 0);
  Session::Mirror* m = nullptr;
  if (!d2d && !(m = ctx.session.new_mirror(c.mirror, c.count))) {
    status = cudaErrorMemoryAllocation;
    return true;
  }
  auto dst = d2d || h2d ? reinterpret_cast<void*>(static_cast<uintptr_t>(c.dst)) : m->ptr;
  auto src = d2d || !h2d ? reinterpret_cast<const void*>(static_cast<uintptr_t>(c.src)) : m->ptr;
  cudaGraphNode_t node{};
  status = rt.cudaGraphAddMemcpyNode1D(&node, graph, deps.data(), deps.size(), dst, src, c.count,
                                       static_cast<cudaMemcpyKind>(c.kind));
  if (status != cudaSuccess) return true;
  if (!d2d && !h2d) {
    // The relay follows the copy; the program's dependents of the copy node do not wait for it (the
    // bytes reach the user's buffer before a synchronisation that waits for the graph returns).
    cudaHostNodeParams relay{&send_mirror, m};
    cudaGraphNode_t relay_node{};
    status = rt.cudaGraphAddHostNode(&relay_node, graph, &node, 1, &relay);
    if (status != cudaSuccess) return true;
  }
  if (node_id) ctx.handles.bind(HandleKind::kGraphNode, node_id, node);
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
