// Resolution of the driver function table.
#include "server/backends/cuda/cuda_driver_api.h"

#include <string>

namespace rgpu::server::cuda {

Status load_driver_api(const SharedLibrary& library, DriverApi& api) {
#define RGPU_DRIVER_RESOLVE(name)                                                                   \
  api.name = reinterpret_cast<decltype(api.name)>(library.symbol(#name));                           \
  if (!api.name)                                                                                    \
    return RGPU_ERROR(kUnavailable, std::string(library.path()) + " does not export " #name         \
                                        ": the NVIDIA driver is too old for CUDA 13; install driver " \
                                        "580 or newer");
  RGPU_CUDA_DRIVER_FUNCTIONS(RGPU_DRIVER_RESOLVE)
#undef RGPU_DRIVER_RESOLVE
  return Status::ok();
}

std::string describe_cu_result(const DriverApi& api, CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.cuGetErrorName) api.cuGetErrorName(result, &name);
  if (api.cuGetErrorString) api.cuGetErrorString(result, &text);
  std::string out = name ? name : "CUresult " + std::to_string(static_cast<int>(result));
  if (text) {
    out += " (";
    out += text;
    out += ")";
  }
  return out;
}

}  // namespace rgpu::server::cuda
