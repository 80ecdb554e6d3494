// cudaStreamSetAttribute / GetAttribute in the generated wire form (stream id, attribute id, the
// value's 64 bytes). The value is a union: some members hold events, which would travel as the
// client's ids, not the server's. Only the attributes CUDA applies to a stream reach the backend
// (access policy window, synchronisation policy, priority, memory sync domain and its map), none
// of which holds a handle; the others are refused as CUDA refuses a kernel-only attribute on a
// stream.
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

// Decodes what both directions share and resolves the stream; false = malformed, and a status set
// (with `*stream` left alone) when the call cannot go on.
bool decode(CallContext& ctx, wire::Decoder& in, gen::Buffer<cudaLaunchAttributeValue>& value, bool input,
            cudaStream_t* stream, AttrId* id, int32_t& status) {
  const uint64_t stream_id = in.get<uint64_t>();
  *id = in.get<AttrId>();
  if (!(input ? value.read_in(in) : value.read_presence(in))) return false;
  if (!in.ok() || !in.at_end()) return false;
  if (input && !value.has_count(1)) return false;
  if (!input && !value.allocate(1)) return false;
  if (!ctx.handles.resolve(HandleKind::kStream, stream_id, stream)) status = cudaErrorInvalidResourceHandle;
  else if (!stream_attribute(*id) || !value.get()) status = cudaErrorInvalidValue;
  return true;
}

// Set (input: the value travels in) or get (the value travels back).
template <typename Fn>
bool attribute(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status, Fn fn, bool input) {
  gen::Buffer<cudaLaunchAttributeValue> value;
  cudaStream_t stream{};
  AttrId id{};
  status = cudaSuccess;
  if (!decode(ctx, in, value, input, &stream, &id, status)) return false;
  if (status != cudaSuccess) return true;
  if (!fn) status = cudaErrorNotSupported;
  else status = fn(stream, static_cast<cudaLaunchAttributeID>(id), value.get());
  if (status == cudaSuccess && !input) value.write(out);
  return true;
}

}  // namespace

bool cudaStreamSetAttribute(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return attribute(ctx, in, out, status, ctx.cudart.cudaStreamSetAttribute, true);
}

bool cudaStreamSetAttribute_ptsz(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return attribute(ctx, in, out, status, ctx.cudart.cudaStreamSetAttribute_ptsz, true);
}

bool cudaStreamGetAttribute(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return attribute(ctx, in, out, status, ctx.cudart.cudaStreamGetAttribute, false);
}

bool cudaStreamGetAttribute_ptsz(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return attribute(ctx, in, out, status, ctx.cudart.cudaStreamGetAttribute_ptsz, false);
}

}  // namespace rgpu::server::handlers
