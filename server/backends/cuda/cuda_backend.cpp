// CudaBackend: library loading, context start, devices and memory. Modules and kernels live in
// cuda_backend_modules.cpp and cuda_backend_kernels.cpp.
#include "server/backends/cuda/cuda_backend.h"

#include <string>

#include "common/config.h"
#include "common/log.h"
#include "gen/cudart/cudart_api.h"
#include "server/backends/cuda/cu_to_cuda_error.h"

namespace rgpu::server::cuda {
namespace {

const Tunable kDriverLibrary{"RGPU_CUDA_DRIVER_LIBRARY", "libcuda.so.1",
                             "NVIDIA driver library the cuda backend loads (':'-separated candidates)"};
const Tunable kRuntimeLibrary{"RGPU_CUDART_LIBRARY", "libcudart.so.13:/usr/local/cuda/lib64/libcudart.so.13",
                              "CUDA 13 runtime library the cuda backend loads (':'-separated candidates)"};

constexpr const char* kDriverAdvice =
    "The cuda backend needs the NVIDIA driver (580 or newer for CUDA 13): install it, or put the folder "
    "holding libcuda.so.1 on LD_LIBRARY_PATH or name it in RGPU_CUDA_DRIVER_LIBRARY (never the toolkit's "
    "lib64/stubs folder: its libcuda only fails). On a host without a GPU, run rgpud --emulate (RGPU_BACKEND=emulated).";
constexpr const char* kRuntimeAdvice =
    "The cuda backend needs the CUDA 13 runtime: install the CUDA 13 toolkit (or its cudart package), or put "
    "the folder holding libcudart.so.13 on LD_LIBRARY_PATH or name it in RGPU_CUDART_LIBRARY.";

void* resolve_runtime_symbol(const char* name, void* library) {
  return static_cast<const SharedLibrary*>(library)->symbol(name);
}

}  // namespace

CudaBackend::CudaBackend() = default;
CudaBackend::~CudaBackend() = default;

Status CudaBackend::prepare() {
  if (prepared_) return Status::ok();
  RGPU_TRY(load_driver());
  RGPU_TRY(load_runtime());
  prepared_ = true;
  return Status::ok();
}

Status CudaBackend::init() {
  if (ready_) return Status::ok();
  RGPU_TRY(prepare());
  RGPU_TRY(start_context());
  ready_ = true;
  return Status::ok();
}

Status CudaBackend::load_driver() {
  RGPU_ASSIGN_OR_RETURN(driver_library_, SharedLibrary::open(split_candidates(kDriverLibrary.get()), kDriverAdvice));
  RGPU_TRY(load_driver_api(driver_library_, driver_));
  if (CUresult r = driver_.cuInit(0); r != CUDA_SUCCESS) {
    std::string hint = r == CUDA_ERROR_STUB_LIBRARY ? " (" + driver_library_.path() +
                                                           " is the toolkit's stub, not a driver: take the stubs "
                                                           "folder off the library path)"
                                                     : "";
    return RGPU_ERROR(kUnavailable, "cuInit failed: " + describe_cu_result(driver_, r) + hint);
  }
  int version = 0;
  if (driver_.cuDriverGetVersion(&version) == CUDA_SUCCESS && version < kMinimumDriverVersion)
    return RGPU_ERROR(kUnavailable, "the NVIDIA driver supports CUDA " + std::to_string(version / 1000) + "." +
                                        std::to_string(version % 1000 / 10) +
                                        "; the cuda backend needs CUDA 13.0: install driver 580 or newer");
  return Status::ok();
}

Status CudaBackend::load_runtime() {
  RGPU_ASSIGN_OR_RETURN(runtime_library_,
                        SharedLibrary::open(split_candidates(kRuntimeLibrary.get()), kRuntimeAdvice));
  runtime_.cudaSetDevice = reinterpret_cast<decltype(runtime_.cudaSetDevice)>(runtime_library_.symbol("cudaSetDevice"));
  runtime_.cudaFree = reinterpret_cast<decltype(runtime_.cudaFree)>(runtime_library_.symbol("cudaFree"));
  runtime_.cudaGetErrorString =
      reinterpret_cast<decltype(runtime_.cudaGetErrorString)>(runtime_library_.symbol("cudaGetErrorString"));
  if (!runtime_.cudaSetDevice || !runtime_.cudaFree || !runtime_.cudaGetErrorString)
    return RGPU_ERROR(kUnavailable, runtime_library_.path() + " lacks cudaSetDevice/cudaFree/cudaGetErrorString: "
                                                              "it is not a CUDA runtime library");
  cudart_ = std::make_unique<gen::cudart::Api>();
  gen::cudart::load_api(*cudart_, resolve_runtime_symbol, &runtime_library_);
  return Status::ok();
}

Status CudaBackend::start_context() {
  // cudaSetDevice + cudaFree(0) create and bind device 0's primary context the way the runtime
  // itself does, so the generated dispatchers (runtime calls) and our driver calls share it.
  if (cudaError_t e = runtime_.cudaSetDevice(0); e != cudaSuccess)
    return RGPU_ERROR(kUnavailable, std::string("cudaSetDevice(0) failed: ") + runtime_.cudaGetErrorString(e));
  if (cudaError_t e = runtime_.cudaFree(nullptr); e != cudaSuccess)
    return RGPU_ERROR(kUnavailable, std::string("creating the CUDA context failed: ") + runtime_.cudaGetErrorString(e));
  if (CUresult r = driver_.cuCtxGetCurrent(&context_); r != CUDA_SUCCESS || !context_)
    return RGPU_ERROR(kInternal, "no CUDA context is current after cudaFree(0): " + describe_cu_result(driver_, r));

  CUdevice device = 0;
  if (CUresult r = driver_.cuDeviceGet(&device, 0); r != CUDA_SUCCESS)
    return RGPU_ERROR(kUnavailable, "cuDeviceGet(0) failed: " + describe_cu_result(driver_, r));
  constexpr CUdevice_attribute kBlock[3] = {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
                                            CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z};
  constexpr CUdevice_attribute kGrid[3] = {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                                           CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
  for (int i = 0; i < 3; ++i) {
    int value = 0;
    if (driver_.cuDeviceGetAttribute(&value, kBlock[i], device) == CUDA_SUCCESS && value > 0)
      limits_.max_block[i] = static_cast<uint32_t>(value);
    if (driver_.cuDeviceGetAttribute(&value, kGrid[i], device) == CUDA_SUCCESS && value > 0)
      limits_.max_grid[i] = static_cast<uint32_t>(value);
  }

  size_t free_bytes = 0, total_bytes = 0;
  if (driver_.cuMemGetInfo_v2(&free_bytes, &total_bytes) == CUDA_SUCCESS) free_at_start_ = free_bytes;
  char name[256] = {};
  driver_.cuDeviceGetName(name, sizeof name - 1, device);
  RGPU_LOG_INFO("cuda backend: %s on %s (sm_%u), %zu MiB free of %zu MiB", driver_library_.path().c_str(), name,
                arch(0), free_bytes >> 20, total_bytes >> 20);
  return Status::ok();
}

bool CudaBackend::make_context_current() {
  CUcontext current = nullptr;
  if (driver_.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current) return true;
  return driver_.cuCtxSetCurrent(context_) == CUDA_SUCCESS;
}

const gen::cudart::Api& CudaBackend::cudart() const {
  // The session calls this only after init() succeeded; before, the table is all null entries.
  static const gen::cudart::Api kEmpty{};
  return cudart_ ? *cudart_ : kEmpty;
}

std::vector<DeviceSummary> CudaBackend::devices() {
  std::vector<DeviceSummary> out;
  int count = 0;
  if (!ready_ || driver_.cuDeviceGetCount(&count) != CUDA_SUCCESS) return out;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    CUdevice device = 0;
    if (driver_.cuDeviceGet(&device, ordinal) != CUDA_SUCCESS) continue;
    DeviceSummary summary;
    char name[256] = {};
    if (driver_.cuDeviceGetName(name, sizeof name - 1, device) == CUDA_SUCCESS) summary.name = name;
    size_t total = 0;
    if (driver_.cuDeviceTotalMem_v2(&total, device) == CUDA_SUCCESS) summary.total_memory = total;
    driver_.cuDeviceGetAttribute(&summary.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
    driver_.cuDeviceGetAttribute(&summary.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
    out.push_back(std::move(summary));
  }
  return out;
}

uint32_t CudaBackend::arch(int device_ordinal) {
  CUdevice device = 0;
  int major = 0, minor = 0;
  if (!driver_.cuDeviceGet || driver_.cuDeviceGet(&device, device_ordinal) != CUDA_SUCCESS ||
      driver_.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) != CUDA_SUCCESS ||
      driver_.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) != CUDA_SUCCESS)
    return 0;
  return static_cast<uint32_t>(major * 10 + minor);
}

uint64_t CudaBackend::memory_in_use() {
  if (!ready_) return 0;
  if (std::optional<uint64_t> bytes = process_memory_from_nvml()) return *bytes;
  // Without NVML: the drop of the device's free memory since init() (other processes' use counts too).
  if (!make_context_current()) return 0;
  size_t free_bytes = 0, total_bytes = 0;
  if (driver_.cuMemGetInfo_v2(&free_bytes, &total_bytes) != CUDA_SUCCESS) return 0;
  return free_at_start_ > free_bytes ? free_at_start_ - free_bytes : 0;
}

}  // namespace rgpu::server::cuda

namespace rgpu::server {
std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<cuda::CudaBackend>(); }
}  // namespace rgpu::server
