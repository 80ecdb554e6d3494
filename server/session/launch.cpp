// Launch and kernel-query handlers: every launch entry point shares one wire form
// (common/wire/launch_args.h); the kernel is found by the id its module load gave it.
#include <cuda_runtime_api.h>

#include "common/wire/launch_args.h"
#include "gen/cudart/cudart_handlers.h"
#include "server/session/call_context.h"
#include "server/session/session.h"

namespace rgpu::server::handlers {
namespace {

bool launch(CallContext& ctx, wire::Decoder& in, int32_t& status) {
  auto a = in.get<wire::LaunchArgs>();
  auto args = in.get_bytes();
  if (!in.ok() || !in.at_end()) return false;
  const LoadedFunction* f = ctx.session.function(a.function);
  if (!f) {
    status = cudaErrorInvalidDeviceFunction;
    return true;
  }
  LaunchRequest r;
  r.function = f->handle;
  for (int i = 0; i < 3; ++i) {
    r.grid[i] = a.grid[i];
    r.block[i] = a.block[i];
  }
  r.shared_mem = a.shared_mem;
  r.cooperative = a.cooperative != 0;
  r.args = args;
  r.params = &f->params;
  if (!ctx.handles.resolve(HandleKind::kStream, a.stream, &r.stream)) {
    status = cudaErrorInvalidResourceHandle;
    return true;
  }
  status = ctx.session.backend().launch(r);
  return true;
}

// Decodes a FunctionQuery and finds its kernel; false = malformed.
bool query(CallContext& ctx, wire::Decoder& in, wire::FunctionQuery* q, const LoadedFunction** f, int32_t& status) {
  *q = in.get<wire::FunctionQuery>();
  if (!in.ok() || !in.at_end()) return false;
  *f = ctx.session.function(q->function);
  if (!*f) status = cudaErrorInvalidDeviceFunction;
  return true;
}

// A kernel's preference that CUDA checks but the GPU need not follow: the kernel must be loaded and
// the value one of [lo, hi].
bool kernel_preference(CallContext& ctx, wire::Decoder& in, int lo, int hi, int32_t& status) {
  wire::FunctionQuery q;
  const LoadedFunction* f = nullptr;
  if (!query(ctx, in, &q, &f, status)) return false;
  if (f) status = q.a >= lo && q.a <= hi ? 0 : cudaErrorInvalidValue;
  return true;
}

}  // namespace

#define RGPU_LAUNCH_HANDLER(name)                                                               \
  bool name(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {      \
    (void)out;                                                                               \
    return launch(ctx, in, status);                                                           \
  }
RGPU_LAUNCH_HANDLER(cudaLaunchKernel)
RGPU_LAUNCH_HANDLER(cudaLaunchKernel_ptsz)
RGPU_LAUNCH_HANDLER(cudaLaunchKernelExC)
RGPU_LAUNCH_HANDLER(cudaLaunchKernelExC_ptsz)
RGPU_LAUNCH_HANDLER(cudaLaunchCooperativeKernel)
RGPU_LAUNCH_HANDLER(cudaLaunchCooperativeKernel_ptsz)
#undef RGPU_LAUNCH_HANDLER

bool cudaFuncGetAttributes(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  wire::FunctionQuery q;
  const LoadedFunction* f = nullptr;
  if (!query(ctx, in, &q, &f, status)) return false;
  if (!f) return true;
  cudaFuncAttributes attrs{};
  status = ctx.session.backend().function_attributes(f->handle, &attrs);
  if (status == cudaSuccess) out.put(attrs);
  return true;
}

bool cudaFuncSetAttribute(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  wire::FunctionQuery q;
  const LoadedFunction* f = nullptr;
  if (!query(ctx, in, &q, &f, status)) return false;
  if (f) status = ctx.session.backend().set_function_attribute(f->handle, q.a, q.b);
  return true;
}

// Hopper's L1/shared split follows the carveout attribute, not this preference.
bool cudaFuncSetCacheConfig(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  return kernel_preference(ctx, in, cudaFuncCachePreferNone, cudaFuncCachePreferEqual, status);
}

// Shared memory bank size has been fixed since Volta; CUDA keeps the call as a checked no-op.
bool cudaFuncSetSharedMemConfig(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)out;
  return kernel_preference(ctx, in, cudaSharedMemBankSizeDefault, cudaSharedMemBankSizeEightByte, status);
}

bool cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                            int32_t& status) {
  wire::FunctionQuery q;
  const LoadedFunction* f = nullptr;
  if (!query(ctx, in, &q, &f, status)) return false;
  if (!f) return true;
  int blocks = 0;
  status = ctx.session.backend().occupancy_max_active_blocks(f->handle, q.a, q.c, q.flags, &blocks);
  if (status == cudaSuccess) out.put<int32_t>(blocks);
  return true;
}

bool cudaOccupancyMaxActiveBlocksPerMultiprocessor(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                                   int32_t& status) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(ctx, in, out, status);
}

// Answered on the client; a peer that sends them anyway gets "not supported".
#define RGPU_CLIENT_ONLY_HANDLER(name)                                                          \
  bool name(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {      \
    (void)ctx;                                                                               \
    (void)in;                                                                                \
    (void)out;                                                                               \
    status = cudaErrorNotSupported;                                                          \
    return true;                                                                             \
  }
RGPU_CLIENT_ONLY_HANDLER(cudaOccupancyAvailableDynamicSMemPerBlock)
RGPU_CLIENT_ONLY_HANDLER(cudaFuncGetName)
RGPU_CLIENT_ONLY_HANDLER(cudaGetFuncBySymbol)
#undef RGPU_CLIENT_ONLY_HANDLER

}  // namespace rgpu::server::handlers
