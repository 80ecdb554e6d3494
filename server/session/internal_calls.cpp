// Internal calls: their dispatch; kCallErrorText, whose error names and descriptions come from the
// real CUDA runtime the backend loaded, so a remote program prints the same messages as a local one
// (the emulated backend has no runtime to ask; it answers with the error number); and
// kCallDeviceSnapshot, a device's properties and attributes in one reply.
#include <dlfcn.h>

#include <string>
#include <utility>
#include <vector>

#include "common/wire/internal_calls.h"
#include "gen/cudart/cudart_api.h"
#include "server/session/bulk_copy.h"
#include "server/session/internal_handlers.h"
#include "server/session/session.h"

namespace rgpu::server::handlers {

bool dispatch_internal(CallContext& ctx, uint32_t id, wire::Decoder& in, wire::Encoder& out, int32_t& status,
                       bool* known) {
  *known = true;
  switch (id) {
    case wire::kCallErrorText: return error_text(ctx, in, out, status);
    case wire::kCallCaptureCopy: return capture_copy(ctx, in, out, status);
    case wire::kCallMirrorRefresh: return mirror_refresh(ctx, in, out, status);
    case wire::kCallDeviceSnapshot: return device_snapshot(ctx, in, out, status);
    case wire::kCallStripedCopy: return striped_copy(ctx, in, out, status);
    case wire::kCallModuleGlobal: return module_global(ctx, in, out, status);
    case wire::kCallModuleUnload: return module_unload(ctx, in, out, status);
    case wire::kCallShareHost: return share_host(ctx, in, out, status);
    case wire::kCallUnshareHost: return unshare_host(ctx, in, out, status);
    case wire::kCallSharedCopy: return shared_copy(ctx, in, out, status);
    case wire::kCallMappedExpose: return mapped_expose(ctx, in, out, status);
    case wire::kCallMappedWrite: return mapped_write(ctx, in, out, status);
    case wire::kCallMappedRead: return mapped_read(ctx, in, out, status);
    case wire::kCallMappedRelease: return mapped_release(ctx, in, out, status);
    case wire::kCallLogsRead: return logs_read(ctx, in, out, status);
    case wire::kCallReuseBarrier: return reuse_barrier(ctx, in, out, status);
    case wire::kCallStreamSignal: return stream_signal(ctx, in, out, status);
    default: *known = false; return false;
  }
}

bool error_text(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  (void)ctx;
  int32_t code = in.get<int32_t>();
  if (!in.ok() || !in.at_end()) return false;
  using Fn = const char* (*)(int);
  static void* lib = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD);
  static auto name_fn = lib ? reinterpret_cast<Fn>(dlsym(lib, "cudaGetErrorName")) : nullptr;
  static auto text_fn = lib ? reinterpret_cast<Fn>(dlsym(lib, "cudaGetErrorString")) : nullptr;
  std::string name = name_fn ? name_fn(code) : "cudaError " + std::to_string(code);
  std::string text = text_fn ? text_fn(code) : "CUDA error " + std::to_string(code) + " (emulated device)";
  out.put_string(name.c_str());
  out.put_string(text.c_str());
  status = 0;
  return true;
}

bool device_snapshot(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  int32_t device = in.get<int32_t>();
  if (!in.ok() || !in.at_end()) return false;
  if (!ctx.cudart.cudaGetDeviceProperties || !ctx.cudart.cudaDeviceGetAttribute) {
    status = cudaErrorNotSupported;
    return true;
  }
  cudaDeviceProp prop{};
  status = ctx.cudart.cudaGetDeviceProperties(&prop, device);
  if (status != cudaSuccess) return true;
  // A sliced session's GPU has the memory of its slice.
  if (ctx.session.memory().enforced()) prop.totalGlobalMem = ctx.session.memory().limit();
  out.put_raw(&prop, sizeof prop);
  std::vector<std::pair<int32_t, int32_t>> attrs;
  for (int32_t a = 1; a < wire::kDeviceAttributeLimit; ++a) {
    int value = 0;
    if (ctx.cudart.cudaDeviceGetAttribute(&value, static_cast<cudaDeviceAttr>(a), device) == cudaSuccess)
      attrs.emplace_back(a, value);
  }
  out.put<uint32_t>(static_cast<uint32_t>(attrs.size()));
  for (auto [a, v] : attrs) {
    out.put<int32_t>(a);
    out.put<int32_t>(v);
  }
  return true;
}

}  // namespace rgpu::server::handlers
