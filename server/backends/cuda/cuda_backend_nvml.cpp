// CudaBackend: NVML, dlopen()ed by the session's first NVML call. Without the library every NVML
// call answers NVML_ERROR_NOT_SUPPORTED.
#include "common/config.h"
#include "server/backends/cuda/cuda_backend.h"

namespace rgpu::server::cuda {
namespace {

const Tunable kNvmlLibrary{"RGPU_NVML_LIBRARY", "libnvidia-ml.so.1",
                           "NVML library the cuda backend loads on a session's first NVML call "
                           "(':'-separated candidates)"};

constexpr const char* kNvmlAdvice =
    "NVML calls need libnvidia-ml.so.1 on the GPU host (it comes with the NVIDIA driver): put the folder holding "
    "it on LD_LIBRARY_PATH or name it in RGPU_NVML_LIBRARY.";

}  // namespace

void CudaBackend::load_nvml() { load_on_demand(nvml_, kNvmlLibrary, kNvmlAdvice, "NVML", gen::nvml::load_api); }

}  // namespace rgpu::server::cuda
