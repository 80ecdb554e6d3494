// nvmlDeviceGetMemoryInfo(_v2) and nvmlDeviceGetUtilizationRates: the device index (and the
// struct's version) in, the backend's NVML answer out (common/wire/nvml_args.h).
#include <algorithm>

#include "common/wire/codec.h"
#include "gen/nvml/nvml_api.h"
#include "gen/nvml/nvml_handlers.h"
#include "server/session/nvml_device.h"
#include "server/session/session.h"

namespace rgpu::server::handlers {
namespace {

// Runs `fn(device, &value)` for the device the call names and puts `value` in the reply.
template <typename T>
bool answer(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status,
            nvmlReturn_t (*fn)(nvmlDevice_t, T*), T value = {}) {
  uint32_t index = in.get<uint32_t>();
  if constexpr (requires { value.version; }) value.version = in.get<uint32_t>();
  if (!in.ok() || !in.at_end()) return false;
  if (!fn) {
    status = NVML_ERROR_NOT_SUPPORTED;
    return true;
  }
  nvmlDevice_t device = nullptr;
  status = nvml_device(ctx, index, &device);
  if (status == NVML_SUCCESS) status = fn(device, &value);
  if constexpr (requires { value.total; value.free; value.used; }) {
    // A sliced session's GPU has the memory of its slice, of which its process holds `used`.
    MemorySlice& slice = ctx.session.memory();
    if (status == NVML_SUCCESS && slice.enforced()) {
      slice.refresh();
      value.total = slice.limit();
      value.used = std::min<uint64_t>(slice.used(), value.total);
      value.free = value.total - value.used;
    }
  }
  if (status == NVML_SUCCESS) out.put_raw(&value, sizeof value);
  return true;
}

}  // namespace

bool nvmlDeviceGetMemoryInfo(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return answer(ctx, in, out, status, ctx.nvml->nvmlDeviceGetMemoryInfo);
}

bool nvmlDeviceGetMemoryInfo_v2(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return answer(ctx, in, out, status, ctx.nvml->nvmlDeviceGetMemoryInfo_v2);
}

bool nvmlDeviceGetUtilizationRates(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status) {
  return answer(ctx, in, out, status, ctx.nvml->nvmlDeviceGetUtilizationRates);
}

}  // namespace rgpu::server::handlers
