// Graph nodes built by hand whose parameters cannot travel as bytes (common/wire/graph_node_args.h):
// kernel nodes, whose kernel is found by the id its module load gave it and whose arguments arrive
// packed as for a launch, and host nodes, whose function runs in the client as a captured host
// function does (callbacks.cpp). Nodes of the other kinds are generated forwarders.
#include <cuda_runtime_api.h>

#include <span>
#include <vector>

#include "codegen/support/gen_marshal.h"
#include "common/wire/graph_node_args.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "server/session/call_context.h"
#include "server/session/graph_node_add.h"
#include "server/session/host_callbacks.h"
#include "server/session/session.h"

namespace rgpu::server::handlers {
namespace {

// A switch node's bodies at most (a peer must not size our replies freely).
constexpr uint32_t kMaxBodies = 1 << 16;


// A kernel node's parameters, decoded into the launch request the backend takes (no stream).
// False = malformed; an unknown kernel sets status.
bool read_kernel(CallContext& ctx, wire::Decoder& in, LaunchRequest* r, int32_t& status) {
  auto k = in.get<wire::KernelNode>();
  r->args = in.get_bytes();
  if (!in.ok() || !in.at_end()) return false;
  const LoadedFunction* f = ctx.session.function(k.function);
  if (!f) {
    status = cudaErrorInvalidDeviceFunction;
    return true;
  }
  r->function = f->handle;
  for (int i = 0; i < 3; ++i) {
    r->grid[i] = k.grid[i];
    r->block[i] = k.block[i];
  }
  r->shared_mem = k.shared_mem;
  r->params = &f->params;
  return true;
}

// [u64 executable graph id,] u64 node id: the target of a setter.
bool resolve_target(CallContext& ctx, wire::Decoder& in, bool exec, cudaGraphExec_t* e, cudaGraphNode_t* node,
                    int32_t& status, bool* known) {
  uint64_t exec_id = exec ? in.get<uint64_t>() : 0;
  uint64_t node_id = in.get<uint64_t>();
  if (!in.ok()) return false;
  *known = (!exec || ctx.handles.resolve(HandleKind::kGraphExec, exec_id, e)) &&
           ctx.handles.resolve(HandleKind::kGraphNode, node_id, node);
  if (!*known) status = cudaErrorInvalidResourceHandle;
  return true;
}

bool set_kernel(CallContext& ctx, wire::Decoder& in, int32_t& status, bool exec) {
  cudaGraphExec_t e{};
  cudaGraphNode_t node{};
  bool known = false;
  if (!resolve_target(ctx, in, exec, &e, &node, status, &known)) return false;
  LaunchRequest r;
  if (!read_kernel(ctx, in, &r, status)) return false;
  if (known && r.function) status = ctx.session.backend().set_kernel_node(e, node, r);
  return true;
}

// The host function that stands for the client's callback, and its data.
cudaHostNodeParams client_host_fn(CallContext& ctx, uint64_t callback) {
  return {&run_each_launch, ctx.session.keep_host_callback(callback)};
}

bool set_host(CallContext& ctx, wire::Decoder& in, int32_t& status, bool exec) {
  cudaGraphExec_t e{};
  cudaGraphNode_t node{};
  bool known = false;
  if (!resolve_target(ctx, in, exec, &e, &node, status, &known)) return false;
  auto h = in.get<wire::HostNode>();
  if (!in.ok() || !in.at_end()) return false;
  if (!known) return true;
  const auto& rt = ctx.cudart;
  if (exec ? !rt.cudaGraphExecHostNodeSetParams : !rt.cudaGraphHostNodeSetParams) {
    status = cudaErrorNotSupported;
    return true;
  }
  cudaHostNodeParams p = client_host_fn(ctx, h.callback);
  status = exec ? rt.cudaGraphExecHostNodeSetParams(e, node, &p) : rt.cudaGraphHostNodeSetParams(node, &p);
  return true;
}

}  // namespace

bool cudaGraphAddKernelNode(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  NodeAdd a;
  LaunchRequest r;
  if (!read_add(in, &a) || !read_kernel(ctx, in, &r, status)) return false;
  if (!r.function || !resolve_add(ctx, &a, status)) return true;
  void* node = nullptr;
  std::span<void* const> deps(reinterpret_cast<void* const*>(a.deps.data()), a.deps.size());
  status = ctx.session.backend().add_kernel_node(a.graph, deps, r, &node);
  bind_added(ctx, a, static_cast<cudaGraphNode_t>(node), status);
  return true;
}

bool cudaGraphKernelNodeSetParams(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  return set_kernel(ctx, in, status, false);
}

bool cudaGraphExecKernelNodeSetParams(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  return set_kernel(ctx, in, status, true);
}

bool cudaGraphAddHostNode(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  NodeAdd a;
  if (!read_add(in, &a)) return false;
  auto h = in.get<wire::HostNode>();
  if (!in.ok() || !in.at_end()) return false;
  if (!resolve_add(ctx, &a, status)) return true;
  if (!ctx.cudart.cudaGraphAddHostNode) {
    status = cudaErrorNotSupported;
    return true;
  }
  cudaHostNodeParams p = client_host_fn(ctx, h.callback);
  cudaGraphNode_t node{};
  status = ctx.cudart.cudaGraphAddHostNode(&node, a.graph, a.deps.data(), a.deps.size(), &p);
  bind_added(ctx, a, node, status);
  return true;
}

bool cudaGraphHostNodeSetParams(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  return set_host(ctx, in, status, false);
}

bool cudaGraphExecHostNodeSetParams(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  return set_host(ctx, in, status, true);
}

// Of cudaGraphAddNode's kinds, the client sends here only what it cannot express through another
// add (a conditional node); the others it adds through theirs (client/runtime/graph_nodes.cpp).
bool cudaGraphAddNode(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  NodeAdd a;
  if (!read_add(in, &a)) return false;
  auto c = in.get<wire::ConditionalNode>();
  if (!in.ok() || !in.at_end() || c.size == 0 || c.size > kMaxBodies) return false;
  if (!resolve_add(ctx, &a, status)) return true;
  if (!ctx.cudart.cudaGraphAddNode) {
    status = cudaErrorNotSupported;
    return true;
  }
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = c.handle;
  p.conditional.type = static_cast<cudaGraphConditionalNodeType>(c.type);
  p.conditional.size = c.size;
  cudaGraphNode_t node{};
  status = ctx.cudart.cudaGraphAddNode(&node, a.graph, a.deps.data(), nullptr, a.deps.size(), &p);
  if (status != cudaSuccess) return true;
  bind_added(ctx, a, node, status);
  for (uint32_t i = 0; i < c.size; ++i) out.put<uint64_t>(ctx.handles.id_for(HandleKind::kGraph, p.conditional.phGraph_out[i]));
  return true;
}

// in: u64 node id; out: u64 the client's callback id (the client holds the function and its data).
bool cudaGraphHostNodeGetParams(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  auto node_id = in.get<uint64_t>();
  if (!in.ok() || !in.at_end()) return false;
  cudaGraphNode_t node{};
  if (!ctx.handles.resolve(HandleKind::kGraphNode, node_id, &node)) {
    status = cudaErrorInvalidResourceHandle;
    return true;
  }
  if (!ctx.cudart.cudaGraphHostNodeGetParams) {
    status = cudaErrorNotSupported;
    return true;
  }
  cudaHostNodeParams p{};
  status = ctx.cudart.cudaGraphHostNodeGetParams(node, &p);
  if (status != cudaSuccess) return true;
  // Every host node the client can name runs a client callback (rgpu's relays are hidden from it).
  if (p.fn != &run_each_launch) {
    status = cudaErrorInvalidValue;
    return true;
  }
  out.put<uint64_t>(static_cast<Session::HostCallback*>(p.userData)->id);
  return true;
}

}  // namespace rgpu::server::handlers
