// CudaBackend: NVML, dlopen()ed by the session's first NVML call. Without the library every NVML
// call answers NVML_ERROR_NOT_SUPPORTED.
#include "common/config.h"
#include "common/log.h"
#include "server/backends/cuda/cuda_backend.h"

namespace rgpu::server::cuda {
namespace {

const Tunable kNvmlLibrary{"RGPU_NVML_LIBRARY", "libnvidia-ml.so.1",
                           "NVML library the cuda backend loads on a session's first NVML call "
                           "(':'-separated candidates)"};

constexpr const char* kNvmlAdvice =
    "NVML calls need libnvidia-ml.so.1 on the GPU host (it comes with the NVIDIA driver): put the folder holding "
    "it on LD_LIBRARY_PATH or name it in RGPU_NVML_LIBRARY.";

void* resolve_nvml_symbol(const char* name, void* library) {
  return static_cast<const SharedLibrary*>(library)->symbol(name);
}

}  // namespace

void CudaBackend::load_nvml() {
  std::call_once(nvml_once_, [this] {
    Result<SharedLibrary> library = SharedLibrary::open(split_candidates(kNvmlLibrary.get()), kNvmlAdvice);
    if (!library.is_ok()) {
      RGPU_LOG_ERROR("%s", library.status().to_string().c_str());
      return;
    }
    nvml_library_ = library.value();
    gen::nvml::load_api(nvml_, resolve_nvml_symbol, &nvml_library_);
    RGPU_LOG_DEBUG("NVML loaded from %s", nvml_library_.path().c_str());
  });
}

}  // namespace rgpu::server::cuda
