// Texture and surface object creation: the resource description names arrays by the client's
// ids, which become the session's real arrays here; the object's value goes back as it is, since
// kernels receive it as a launch argument. Linear and pitched resources hold device addresses,
// which the backend checks.
#include "common/wire/codec.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_handlers.h"
#include "server/session/call_context.h"

namespace rgpu::server::handlers {
namespace {

// False (status set) when the description names an array or mipmapped array the session lacks.
bool translate_resource(CallContext& ctx, cudaResourceDesc& r, int32_t& status) {
  bool ok = true;
  if (r.resType == cudaResourceTypeArray)
    ok = ctx.handles.resolve(HandleKind::kArray, reinterpret_cast<uint64_t>(r.res.array.array), &r.res.array.array);
  else if (r.resType == cudaResourceTypeMipmappedArray)
    ok = ctx.handles.resolve(HandleKind::kMipmappedArray, reinterpret_cast<uint64_t>(r.res.mipmap.mipmap),
                             &r.res.mipmap.mipmap);
  if (!ok) status = cudaErrorInvalidResourceHandle;
  return ok;
}

}  // namespace

bool cudaCreateTextureObject(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  auto res = in.get<cudaResourceDesc>();
  auto tex = in.get<cudaTextureDesc>();
  bool has_view = in.get<uint8_t>() != 0;
  cudaResourceViewDesc view{};
  if (has_view) view = in.get<cudaResourceViewDesc>();
  if (!in.ok() || !in.at_end()) return false;
  if (!translate_resource(ctx, res, status)) return true;
  if (!ctx.cudart.cudaCreateTextureObject) return (status = cudaErrorNotSupported), true;
  cudaTextureObject_t object = 0;
  status = ctx.cudart.cudaCreateTextureObject(&object, &res, &tex, has_view ? &view : nullptr);
  if (status == cudaSuccess) out.put<uint64_t>(object);
  return true;
}

bool cudaCreateSurfaceObject(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  auto res = in.get<cudaResourceDesc>();
  if (!in.ok() || !in.at_end()) return false;
  if (!translate_resource(ctx, res, status)) return true;
  if (!ctx.cudart.cudaCreateSurfaceObject) return (status = cudaErrorNotSupported), true;
  cudaSurfaceObject_t object = 0;
  status = ctx.cudart.cudaCreateSurfaceObject(&object, &res);
  if (status == cudaSuccess) out.put<uint64_t>(object);
  return true;
}

}  // namespace rgpu::server::handlers
