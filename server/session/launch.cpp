// Launch and kernel-query handlers: every launch entry point shares one wire form
// (common/wire/launch_args.h); the kernel is found by the id its module load gave it.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "common/wire/launch_args.h"
#include "gen/cudart/cudart_handlers.h"
#include "server/session/call_context.h"
#include "server/session/session.h"

namespace rgpu::server::handlers {
namespace {

// The attributes after a launch's shape: into `r`, the cooperative one as its flag and the others
// as they came, but for the events two of them hold, resolved from client ids. Kept in a buffer of
// the session thread's, reused from launch to launch (the request lives only through the call).
// False = malformed; an unknown event sets status.
bool read_attributes(CallContext& ctx, wire::Decoder& in, LaunchRequest* r, int32_t& status) {
  thread_local std::vector<cudaLaunchAttribute> attributes;
  attributes.clear();
  const auto count = in.get<uint32_t>();
  if (!in.ok() || count > in.remaining() / sizeof(wire::LaunchAttribute)) return false;
  for (uint32_t i = 0; i < count; ++i) {
    auto w = in.get<wire::LaunchAttribute>();
    cudaLaunchAttribute at{};
    at.id = static_cast<cudaLaunchAttributeID>(w.id);
    std::memcpy(&at.val, w.value, sizeof w.value);
    if (at.id == cudaLaunchAttributeIgnore) continue;
    if (at.id == cudaLaunchAttributeCooperative) {
      r->cooperative = at.val.cooperative != 0;
      continue;
    }
    // Both event-holding values start with the event.
    static_assert(offsetof(cudaLaunchAttributeValue, programmaticEvent.event) == 0 &&
                  offsetof(cudaLaunchAttributeValue, launchCompletionEvent.event) == 0);
    if (at.id == cudaLaunchAttributeProgrammaticEvent || at.id == cudaLaunchAttributeLaunchCompletionEvent) {
      uint64_t event_id = 0;
      std::memcpy(&event_id, w.value, sizeof event_id);
      if (!ctx.handles.resolve(HandleKind::kEvent, event_id, &at.val.programmaticEvent.event)) {
        status = cudaErrorInvalidResourceHandle;
        continue;
      }
    }
    attributes.push_back(at);
  }
  r->attributes = attributes;
  return in.ok();
}

// A launch's shape and stream (its arguments and attributes are read by the caller); false =
// malformed, status set when the kernel or stream is unknown.
bool read_shape(CallContext& ctx, const wire::LaunchArgs& a, LaunchRequest* r, int32_t& status) {
  const LoadedFunction* f = ctx.session.function(a.function);
  if (!f) {
    status = cudaErrorInvalidDeviceFunction;
    return true;
  }
  r->function = f->handle;
  for (int i = 0; i < 3; ++i) {
    r->grid[i] = a.grid[i];
    r->block[i] = a.block[i];
  }
  r->shared_mem = a.shared_mem;
  r->cooperative = a.cooperative != 0;
  r->params = &f->params;
  if (!ctx.handles.resolve(HandleKind::kStream, a.stream, &r->stream)) status = cudaErrorInvalidResourceHandle;
  return true;
}

bool launch(CallContext& ctx, wire::Decoder& in, int32_t& status) {
  auto a = in.get<wire::LaunchArgs>();
  LaunchRequest r;
  r.args = in.get_bytes();
  status = cudaSuccess;
  if (!in.ok() || !read_shape(ctx, a, &r, status) || !read_attributes(ctx, in, &r, status) || !in.at_end())
    return false;
  if (status == cudaSuccess) status = ctx.session.backend().launch(r);
  return true;
}

// cudaOccupancyMaxActiveClusters / MaxPotentialClusterSize: a launch's shape and attributes, no
// arguments; the answer is an int.
bool cluster_query(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status, bool potential_size) {
  auto a = in.get<wire::LaunchArgs>();
  LaunchRequest r;
  status = cudaSuccess;
  if (!in.ok() || !read_shape(ctx, a, &r, status) || !read_attributes(ctx, in, &r, status) || !in.at_end())
    return false;
  int answer = 0;
  if (status == cudaSuccess) status = ctx.session.backend().cluster_occupancy(r, potential_size, &answer);
  if (status == cudaSuccess) out.put<int32_t>(answer);
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

bool cudaOccupancyAvailableDynamicSMemPerBlock(CallContext& ctx, wire::Decoder& in, wire::Encoder& out,
                                               int32_t& status) {
  wire::FunctionQuery q;
  const LoadedFunction* f = nullptr;
  if (!query(ctx, in, &q, &f, status)) return false;
  if (!f) return true;
  size_t bytes = 0;
  status = ctx.session.backend().available_dynamic_smem(f->handle, q.a, q.b, &bytes);
  if (status == cudaSuccess) out.put<uint64_t>(bytes);
  return true;
}

bool cudaOccupancyMaxActiveClusters(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return cluster_query(ctx, in, out, status, false);
}

bool cudaOccupancyMaxPotentialClusterSize(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return cluster_query(ctx, in, out, status, true);
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
RGPU_CLIENT_ONLY_HANDLER(cudaFuncGetName)
RGPU_CLIENT_ONLY_HANDLER(cudaGetFuncBySymbol)
#undef RGPU_CLIENT_ONLY_HANDLER

}  // namespace rgpu::server::handlers
