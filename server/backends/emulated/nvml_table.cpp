// The emulated NVML entry points by name: the resolver given to gen::nvml::load_api. Each entry is
// checked at compile time to have exactly the type of the real function in nvml_subset.h.
#include <string_view>
#include <type_traits>

#include "server/backends/emulated/nvml.h"

namespace rgpu::server::emulated {
namespace {

struct Entry {
  const char* name;
  void* fn;
};

template <typename Real, typename Emulated>
void* checked(Emulated fn) {
  static_assert(std::is_same_v<Emulated, Real>, "an emulated function's type differs from nvml_subset.h");
  return reinterpret_cast<void*>(fn);
}

#define RGPU_EMULATED(fn) Entry{#fn, checked<decltype(&::fn)>(&emulated::fn)}

const Entry kTable[] = {
    RGPU_EMULATED(nvmlInit_v2),
    RGPU_EMULATED(nvmlSystemGetDriverVersion),
    RGPU_EMULATED(nvmlSystemGetNVMLVersion),
    RGPU_EMULATED(nvmlSystemGetCudaDriverVersion_v2),
    RGPU_EMULATED(nvmlDeviceGetHandleByPciBusId_v2),
    RGPU_EMULATED(nvmlDeviceGetName),
    RGPU_EMULATED(nvmlDeviceGetUUID),
    RGPU_EMULATED(nvmlDeviceGetPciInfo_v3),
    RGPU_EMULATED(nvmlDeviceGetCudaComputeCapability),
    RGPU_EMULATED(nvmlDeviceGetMemoryInfo),
    RGPU_EMULATED(nvmlDeviceGetMemoryInfo_v2),
    RGPU_EMULATED(nvmlDeviceGetUtilizationRates),
};

#undef RGPU_EMULATED

}  // namespace

void* resolve_nvml(const char* name, void*) {
  if (!name) return nullptr;
  for (const Entry& e : kTable) {
    if (std::string_view(name) == e.name) return e.fn;
  }
  return nullptr;
}

}  // namespace rgpu::server::emulated
