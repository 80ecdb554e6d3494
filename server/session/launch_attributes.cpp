// cudaStreamSetAttribute / GetAttribute and cudaGraphKernelNodeSetAttribute / GetAttribute in the
// generated wire form (the stream's or node's id, the attribute id, the value's 64 bytes). The
// value is a union: some members hold events, which would travel as the client's ids, not the
// server's. Only the attributes CUDA applies to a stream reach a stream (access policy window,
// synchronisation policy, priority, memory sync domain and its map), and a kernel node takes every
// attribute but the two that hold events (CUDA gives those to launches only); none of these holds
// a handle. The others are refused as CUDA refuses an attribute its target does not take.
#include <cuda_runtime_api.h>

#include "codegen/support/gen_marshal.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "server/session/call_context.h"

namespace rgpu::server::handlers {
namespace {

using AttrId = std::underlying_type_t<cudaLaunchAttributeID>;

bool stream_attribute(AttrId id) {
  switch (static_cast<cudaLaunchAttributeID>(id)) {
    case cudaLaunchAttributeAccessPolicyWindow:
    case cudaLaunchAttributeSynchronizationPolicy:
    case cudaLaunchAttributePriority:
    case cudaLaunchAttributeMemSyncDomainMap:
    case cudaLaunchAttributeMemSyncDomain:
      return true;
    default:
      return false;
  }
}

bool kernel_node_attribute(AttrId id) {
  return id != cudaLaunchAttributeProgrammaticEvent && id != cudaLaunchAttributeLaunchCompletionEvent;
}

// The target of an attribute: a stream or a kernel node, the handle kind it is found by and the
// attributes it takes.
template <typename Handle>
struct Target {
  HandleKind kind;
  bool (*takes)(AttrId);
};
constexpr Target<cudaStream_t> kStream{HandleKind::kStream, &stream_attribute};
constexpr Target<cudaGraphNode_t> kKernelNode{HandleKind::kGraphNode, &kernel_node_attribute};

// Decodes what both directions share and resolves the target; false = malformed, and a status set
// (with `*handle` left alone) when the call cannot go on.
template <typename Handle>
bool decode(CallContext& ctx, wire::Decoder& in, gen::Buffer<cudaLaunchAttributeValue>& value, bool input,
            const Target<Handle>& target, Handle* handle, AttrId* id, int32_t& status) {
  const uint64_t handle_id = in.get<uint64_t>();
  *id = in.get<AttrId>();
  if (!(input ? value.read_in(in) : value.read_presence(in))) return false;
  if (!in.ok() || !in.at_end()) return false;
  if (input && !value.has_count(1)) return false;
  if (!input && !value.allocate(1)) return false;
  if (!ctx.handles.resolve(target.kind, handle_id, handle)) status = cudaErrorInvalidResourceHandle;
  else if (!target.takes(*id) || !value.get()) status = cudaErrorInvalidValue;
  return true;
}

// Set (input: the value travels in) or get (the value travels back).
template <typename Handle, typename Fn>
bool attribute(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status, const Target<Handle>& target,
               Fn fn, bool input) {
  gen::Buffer<cudaLaunchAttributeValue> value;
  Handle handle{};
  AttrId id{};
  status = cudaSuccess;
  if (!decode(ctx, in, value, input, target, &handle, &id, status)) return false;
  if (status != cudaSuccess) return true;
  if (!fn) status = cudaErrorNotSupported;
  else status = fn(handle, static_cast<cudaLaunchAttributeID>(id), value.get());
  if (status == cudaSuccess && !input) value.write(out);
  return true;
}

}  // namespace

bool cudaStreamSetAttribute(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return attribute(ctx, in, out, status, kStream, ctx.cudart.cudaStreamSetAttribute, true);
}

bool cudaStreamSetAttribute_ptsz(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return attribute(ctx, in, out, status, kStream, ctx.cudart.cudaStreamSetAttribute_ptsz, true);
}

bool cudaStreamGetAttribute(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return attribute(ctx, in, out, status, kStream, ctx.cudart.cudaStreamGetAttribute, false);
}

bool cudaStreamGetAttribute_ptsz(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return attribute(ctx, in, out, status, kStream, ctx.cudart.cudaStreamGetAttribute_ptsz, false);
}

bool cudaGraphKernelNodeSetAttribute(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return attribute(ctx, in, out, status, kKernelNode, ctx.cudart.cudaGraphKernelNodeSetAttribute, true);
}

bool cudaGraphKernelNodeGetAttribute(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return attribute(ctx, in, out, status, kKernelNode, ctx.cudart.cudaGraphKernelNodeGetAttribute, false);
}

}  // namespace rgpu::server::handlers
