// cuFFT's multi-GPU descriptors for the client's mirrors (client/cufft/xt_descriptors.cpp): the
// library's descriptor is bound to the id the client chose (its mirror's address), and what the
// caller reads of it (the GPUs, their buffers' addresses and sizes) goes back in the reply.
#include <cufftXt.h>

#include <atomic>

#include "codegen/support/gen_marshal.h"
#include "common/wire/codec.h"
#include "gen/cufft/cufft_api.h"
#include "gen/cufft/cufft_handlers.h"
#include "server/session/call_context.h"

namespace rgpu::server::handlers {
namespace {

// False (and said once in the log) when the backend lacks the function, as the generated dispatch does.
template <typename Fn>
bool available(Fn fn, const char* name, int32_t& status) {
  if (fn) return true;
  static std::atomic<bool> logged{false};
  gen::report_not_available(logged, name);
  status = CUFFT_NOT_SUPPORTED;
  return false;
}

}  // namespace

bool cufftXtMalloc(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  const uint64_t plan_id = in.get<uint64_t>();
  const int32_t format = in.get<int32_t>();
  const uint64_t id = in.get<uint64_t>();
  if (!in.ok() || !in.at_end() || HandleTable::is_builtin(id)) return false;
  cufftHandle plan{};
  if (!ctx.handles.resolve(HandleKind::kCufft, plan_id, &plan)) {
    status = CUFFT_INVALID_PLAN;
    return true;
  }
  if (!available(ctx.cufft.cufftXtMalloc, "cufftXtMalloc", status)) return true;
  cudaLibXtDesc* desc = nullptr;
  status = ctx.cufft.cufftXtMalloc(plan, &desc, static_cast<cufftXtSubFormat>(format));
  if (status != CUFFT_SUCCESS) return true;
  const cudaXtDesc* xt = desc ? desc->descriptor : nullptr;
  if (!xt || xt->nGPUs < 1 || xt->nGPUs > MAX_CUDA_DESCRIPTOR_GPUS) {  // not what the client can mirror
    if (desc && ctx.cufft.cufftXtFree) ctx.cufft.cufftXtFree(desc);
    status = CUFFT_INTERNAL_ERROR;
    return true;
  }
  ctx.handles.bind_handle(HandleKind::kCufftDescriptor, id, desc);
  out.put<int32_t>(desc->version);
  out.put<int32_t>(desc->library);
  out.put<int32_t>(desc->subFormat);
  out.put<int32_t>(xt->version);
  out.put<int32_t>(xt->nGPUs);
  for (int i = 0; i < xt->nGPUs; ++i) {
    out.put<int32_t>(xt->GPUs[i]);
    out.put<uint64_t>(reinterpret_cast<uintptr_t>(xt->data[i]));
    out.put<uint64_t>(xt->size[i]);
  }
  return true;
}

bool cufftXtFree(CallContext& ctx, wire::Decoder& in, wire::Encoder&, int32_t& status) {
  const uint64_t id = in.get<uint64_t>();
  if (!in.ok() || !in.at_end()) return false;
  cudaLibXtDesc* desc = nullptr;
  if (id == 0 || !ctx.handles.resolve(HandleKind::kCufftDescriptor, id, &desc)) {
    status = CUFFT_INVALID_PLAN;  // the spec's answer for an unknown handle, as the generated dispatch gives it
    return true;
  }
  if (!available(ctx.cufft.cufftXtFree, "cufftXtFree", status)) return true;
  status = ctx.cufft.cufftXtFree(desc);
  if (status == CUFFT_SUCCESS) ctx.handles.unbind(HandleKind::kCufftDescriptor, id);
  return true;
}

}  // namespace rgpu::server::handlers
