// nvmlDeviceGetMemoryInfo(_v2) and nvmlDeviceGetUtilizationRates: the device index (and the
// struct's version) in, the backend's NVML answer out (common/wire/nvml_args.h).
#include "common/wire/codec.h"
#include "gen/nvml/nvml_api.h"
#include "gen/nvml/nvml_handlers.h"
#include "server/session/nvml_device.h"

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
