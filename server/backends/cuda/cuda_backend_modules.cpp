// CudaBackend: loading a module into the worker's context and reading what the client needs of
// it (kernel handles with parameter layouts, variable addresses and sizes).
#include <string>

#include "common/log.h"
#include "server/backends/cuda/cu_to_cuda_error.h"
#include "server/backends/cuda/cuda_backend.h"
#include "server/backends/cuda/module_image.h"

namespace rgpu::server::cuda {

int32_t CudaBackend::load_module(std::span<const uint8_t> image, const std::vector<std::string>& functions,
                                 const std::vector<std::string>& variables, LoadedModule* out) {
  if (!ready_) return cudaErrorInitializationError;
  if (!out) return cudaErrorInvalidValue;
  std::vector<uint8_t> storage;
  PreparedImage prepared;
  if (cudaError_t e = prepare_module_image(image, storage, &prepared); e != cudaSuccess) {
    RGPU_LOG_WARN("cuda backend: refusing a module image of %zu bytes: it is truncated or inconsistent",
                  image.size());
    return e;
  }
  if (!make_context_current()) return cudaErrorDeviceUninitialized;
  CUmodule module = nullptr;
  if (CUresult r = driver_.cuModuleLoadData(&module, prepared.data); r != CUDA_SUCCESS) {
    RGPU_LOG_WARN("cuda backend: cuModuleLoadData (%zu bytes) failed: %s", image.size(),
                  describe_cu_result(driver_, r).c_str());
    return cu_to_cuda_error(r);
  }
  LoadedModule loaded;
  loaded.handle = module;
  if (int32_t e = resolve_module_symbols(module, functions, variables, &loaded); e != cudaSuccess) {
    driver_.cuModuleUnload(module);
    return e;
  }
  *out = std::move(loaded);
  return cudaSuccess;
}

int32_t CudaBackend::resolve_module_symbols(CUmodule module, const std::vector<std::string>& functions,
                                            const std::vector<std::string>& variables, LoadedModule* out) {
  out->functions.reserve(functions.size());
  for (const std::string& name : functions) {
    LoadedFunction loaded;
    loaded.name = name;
    CUfunction function = nullptr;
    if (CUresult r = driver_.cuModuleGetFunction(&function, module, name.c_str()); r != CUDA_SUCCESS) {
      RGPU_LOG_WARN("cuda backend: kernel %s not in the module: %s", name.c_str(),
                    describe_cu_result(driver_, r).c_str());
      return cu_function_lookup_error(r);
    }
    loaded.handle = function;
    if (cudaError_t e = read_param_layout(function, &loaded.params); e != cudaSuccess) {
      RGPU_LOG_WARN("cuda backend: reading the parameters of kernel %s failed", name.c_str());
      return e;
    }
    out->functions.push_back(std::move(loaded));
  }
  out->variables.reserve(variables.size());
  for (const std::string& name : variables) {
    LoadedVariable loaded;
    loaded.name = name;
    CUdeviceptr address = 0;
    size_t size = 0;
    if (CUresult r = driver_.cuModuleGetGlobal_v2(&address, &size, module, name.c_str()); r != CUDA_SUCCESS) {
      RGPU_LOG_WARN("cuda backend: variable %s not in the module: %s", name.c_str(),
                    describe_cu_result(driver_, r).c_str());
      return cu_to_cuda_error(r);
    }
    loaded.address = address;
    loaded.size = size;
    out->variables.push_back(std::move(loaded));
  }
  return cudaSuccess;
}

cudaError_t CudaBackend::read_param_layout(CUfunction function, std::vector<KernelParam>* params) {
  // cuFuncGetParamInfo answers CUDA_ERROR_INVALID_VALUE for the first index past the last
  // parameter; the device-side layout never exceeds 32,764 bytes, so neither does a count.
  constexpr size_t kMaxParams = 32764;
  for (size_t index = 0; index < kMaxParams; ++index) {
    size_t offset = 0, size = 0;
    CUresult r = driver_.cuFuncGetParamInfo(function, index, &offset, &size);
    if (r == CUDA_ERROR_INVALID_VALUE) return cudaSuccess;
    if (r != CUDA_SUCCESS) return cu_to_cuda_error(r);
    params->push_back(KernelParam{static_cast<uint32_t>(offset), static_cast<uint32_t>(size)});
  }
  return cudaErrorInvalidValue;
}

int32_t CudaBackend::module_global(void* module, const std::string& name, uint64_t* address, uint64_t* size) {
  if (!ready_) return cudaErrorInitializationError;
  if (!module) return cudaErrorInvalidResourceHandle;
  if (!make_context_current()) return cudaErrorDeviceUninitialized;
  CUdeviceptr dptr = 0;
  size_t bytes = 0;
  if (CUresult r = driver_.cuModuleGetGlobal_v2(&dptr, &bytes, static_cast<CUmodule>(module), name.c_str());
      r != CUDA_SUCCESS)
    return cu_to_cuda_error(r);
  *address = dptr;
  *size = bytes;
  return cudaSuccess;
}

int32_t CudaBackend::unload_module(void* module) {
  if (!ready_) return cudaErrorInitializationError;
  if (!module) return cudaErrorInvalidResourceHandle;
  if (!make_context_current()) return cudaErrorDeviceUninitialized;
  return cu_to_cuda_error(driver_.cuModuleUnload(static_cast<CUmodule>(module)));
}

}  // namespace rgpu::server::cuda
