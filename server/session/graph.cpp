// Graphs on the server: host copies captured into graphs, through mirrors.
#include <algorithm>
#include <cstring>
#include <vector>

#include "codegen/support/gen_marshal.h"
#include "common/wire/codec.h"
#include "common/wire/frame.h"
#include "common/wire/graph_args.h"
#include "common/wire/graph_node_args.h"
#include "common/wire/pitched.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "server/session/call_context.h"
#include "server/session/copy_parms.h"
#include "server/session/graph_node_add.h"
#include "server/session/internal_handlers.h"
#include "server/session/memory_slice.h"
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

namespace {

// A copy node's parameters (common/wire/graph_node_args.h) as cudaMemcpy3D's, its host side on the
// mirror: a new one for a node being added, the node's own for one being set (the client keeps a
// host copy node's mirror and its size). False for malformed input; otherwise `status` says whether
// `p` is usable.
bool node_copy(CallContext& ctx, const wire::MemcpyNode& c, bool adding, cudaMemcpy3DParms* p, Session::Mirror** m,
               int32_t& status) {
  const wire::Copy3D& a = c.copy;
  bool d2d = a.kind == cudaMemcpyDeviceToDevice, h2d = a.kind == cudaMemcpyHostToDevice;
  if (!(d2d || h2d || a.kind == cudaMemcpyDeviceToHost) || d2d != (c.mirror == 0)) return false;
  if (a.width > wire::kMaxBulk || a.height > wire::kMaxBulk || a.depth > wire::kMaxBulk || a.elem == 0 ||
      a.width % a.elem != 0 || (h2d && a.src_array) || (a.kind == cudaMemcpyDeviceToHost && a.dst_array) ||
      (!a.is_3d && (a.height != 1 || a.depth != 1 || a.dst_array || a.src_array)))
    return false;
  unsigned __int128 packed = static_cast<unsigned __int128>(a.width) * a.height * a.depth;
  if (!d2d && packed > wire::kMaxBulk) return false;
  if (!d2d) {
    *m = adding ? ctx.session.new_mirror(c.mirror, static_cast<size_t>(packed)) : ctx.session.mirror(c.mirror);
    if (!adding && (!*m || (*m)->size != packed)) return false;
    if (!*m) {
      status = cudaErrorMemoryAllocation;
      return true;
    }
  }
  if (!copy_parms(ctx, a, p, status)) return true;
  if (h2d) p->srcPtr = pitched((*m)->ptr, a.width, a.width, a.height);
  if (a.kind == cudaMemcpyDeviceToHost) p->dstPtr = pitched((*m)->ptr, a.width, a.width, a.height);
  return true;
}

// Whether `node` copies into a mirror that a relay sends on (a device-to-host copy rgpu captured or
// added): the client knows the mirrors of the nodes it added, not of captured ones, whose copy must
// go on writing the mirror, or the relay would send stale bytes to the program's memory at each
// launch. Without the dependents query (the emulated backend) no node is taken for one.
bool feeds_relay(const CallContext& ctx, cudaGraphNode_t node) {
  auto dependents = ctx.cudart.cudaGraphNodeGetDependentNodes;
  size_t n = 0;
  if (!dependents || dependents(node, nullptr, nullptr, &n) != cudaSuccess || n == 0) return false;
  std::vector<cudaGraphNode_t> after(n);
  if (dependents(node, after.data(), nullptr, &n) != cudaSuccess) return false;
  after.resize(std::min(n, after.size()));
  return std::any_of(after.begin(), after.end(), [&](cudaGraphNode_t d) { return is_mirror_relay(ctx, d); });
}

// A copy node's set, in its graph or (`with_exec`: the executable graph's id first) in an
// executable graph. A 1D copy goes to the backend's 1D call, any other to the 3D call, as adding
// does (below).
bool set_copy_node(CallContext& ctx, wire::Decoder& in, bool with_exec, int32_t& status) {
  auto exec_id = with_exec ? in.get<uint64_t>() : 0;
  auto node_id = in.get<uint64_t>();
  auto c = in.get<wire::MemcpyNode>();
  if (!in.ok() || !in.at_end()) return false;
  const auto& rt = ctx.cudart;
  if (with_exec ? !rt.cudaGraphExecMemcpyNodeSetParams || !rt.cudaGraphExecMemcpyNodeSetParams1D
                : !rt.cudaGraphMemcpyNodeSetParams || !rt.cudaGraphMemcpyNodeSetParams1D) {
    status = cudaErrorNotSupported;
    return true;
  }
  cudaGraphExec_t exec{};
  cudaGraphNode_t node{};
  if ((with_exec && !ctx.handles.resolve(HandleKind::kGraphExec, exec_id, &exec)) ||
      !ctx.handles.resolve(HandleKind::kGraphNode, node_id, &node)) {
    status = cudaErrorInvalidResourceHandle;
    return true;
  }
  cudaMemcpy3DParms p{};
  Session::Mirror* m = nullptr;
  if (!node_copy(ctx, c, false, &p, &m, status)) return false;
  if (status != cudaSuccess) return true;
  if (!m && feeds_relay(ctx, node)) {
    status = cudaErrorNotSupported;
    return true;
  }
  void* dst = p.dstPtr.ptr;
  const void* src = p.srcPtr.ptr;
  if (with_exec)
    status = c.copy.is_3d ? rt.cudaGraphExecMemcpyNodeSetParams(exec, node, &p)
                          : rt.cudaGraphExecMemcpyNodeSetParams1D(exec, node, dst, src, c.copy.width, p.kind);
  else
    status = c.copy.is_3d ? rt.cudaGraphMemcpyNodeSetParams(node, &p)
                          : rt.cudaGraphMemcpyNodeSetParams1D(node, dst, src, c.copy.width, p.kind);
  return true;
}

}  // namespace

// cudaGraphAddMemcpyNode, and the 1D and symbol copy nodes the client makes through it: wire head
// as graph_nodes.cpp's adds. A D2H node is followed by its mirror's relay.
bool cudaGraphAddMemcpyNode(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  NodeAdd a;
  if (!read_add(in, &a)) return false;
  auto c = in.get<wire::MemcpyNode>();
  if (!in.ok() || !in.at_end()) return false;
  const auto& rt = ctx.cudart;
  if (!rt.cudaGraphAddMemcpyNode || !rt.cudaGraphAddMemcpyNode1D || !rt.cudaGraphAddHostNode) {
    status = cudaErrorNotSupported;
    return true;
  }
  if (!resolve_add(ctx, &a, status)) return true;
  cudaMemcpy3DParms p{};
  Session::Mirror* m = nullptr;
  if (!node_copy(ctx, c, true, &p, &m, status)) return false;
  if (status != cudaSuccess) return true;
  cudaGraphNode_t node{};
  status = c.copy.is_3d ? rt.cudaGraphAddMemcpyNode(&node, a.graph, a.deps.data(), a.deps.size(), &p)
                        : rt.cudaGraphAddMemcpyNode1D(&node, a.graph, a.deps.data(), a.deps.size(), p.dstPtr.ptr,
                                                      p.srcPtr.ptr, c.copy.width, p.kind);
  if (status != cudaSuccess) return true;
  if (c.copy.kind == cudaMemcpyDeviceToHost) {
    // The relay follows the copy; the program's dependents of the copy node do not wait for it (the
    // bytes reach the user's buffer before a synchronisation that waits for the graph returns).
    cudaHostNodeParams relay{&send_mirror, m};
    cudaGraphNode_t relay_node{};
    status = rt.cudaGraphAddHostNode(&relay_node, a.graph, &node, 1, &relay);
    if (status != cudaSuccess) return true;
  }
  bind_added(ctx, a, node, status);
  return true;
}

// cudaGraphAddMemAllocNode (common/wire/graph_node_args.h): the node's bytes are checked against
// the session's slice when it is added, as a cudaMallocAsync is (in a stream-ordered pool's
// pieces, which the graph's memory pool grows in too); the device's later reading counts the
// memory once a launch has it.
bool cudaGraphAddMemAllocNode(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  NodeAdd add;
  if (!read_add(in, &add)) return false;
  auto a = in.get<wire::MemAllocNode>();
  std::span<const uint8_t> descs = in.get_bytes();
  if (!in.ok() || !in.at_end() || descs.size() % sizeof(cudaMemAccessDesc) != 0) return false;
  const auto& rt = ctx.cudart;
  if (!rt.cudaGraphAddMemAllocNode) {
    status = cudaErrorNotSupported;
    return true;
  }
  if (!resolve_add(ctx, &add, status)) return true;
  if (!ctx.session.memory().admit(a.bytesize, MemorySlice::kPoolPiece)) {
    status = cudaErrorMemoryAllocation;
    return true;
  }
  std::vector<cudaMemAccessDesc> access(descs.size() / sizeof(cudaMemAccessDesc));
  if (!access.empty()) std::memcpy(access.data(), descs.data(), descs.size());
  cudaMemAllocNodeParams p{};
  p.poolProps.allocType = static_cast<cudaMemAllocationType>(a.alloc_type);
  p.poolProps.handleTypes = static_cast<cudaMemAllocationHandleType>(a.handle_types);
  p.poolProps.location = cudaMemLocation{static_cast<cudaMemLocationType>(a.location_type), a.location_id};
  p.poolProps.maxSize = a.max_size;
  p.poolProps.usage = static_cast<unsigned short>(a.usage);
  p.accessDescs = access.data();
  p.accessDescCount = access.size();
  p.bytesize = a.bytesize;
  cudaGraphNode_t node{};
  status = rt.cudaGraphAddMemAllocNode(&node, add.graph, add.deps.data(), add.deps.size(), &p);
  if (status != cudaSuccess) return true;
  bind_added(ctx, add, node, status);
  out.put<uint64_t>(reinterpret_cast<uintptr_t>(p.dptr));
  return true;
}

bool cudaGraphMemcpyNodeSetParams(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  return set_copy_node(ctx, in, false, status);
}

bool cudaGraphExecMemcpyNodeSetParams(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  return set_copy_node(ctx, in, true, status);
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
