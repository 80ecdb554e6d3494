// Modules and libraries of the driver API: a thin mapping onto the runtime's libraries
// (client/runtime/libraries.h), which the cudaLibrary* functions share. A CUmodule and a CUlibrary
// are the runtime's ModuleRecord, a CUfunction and a CUkernel its KernelRecord; statuses are the
// runtime's, as CUresults (to_cu).
#include <cuda.h>

#include <cstdint>

#include "client/driver/driver_errors.h"
#include "client/runtime/libraries.h"

using rgpu::client::KernelRecord;
using rgpu::client::ModuleRecord;
using rgpu::client::driver::to_cu;
namespace libraries = rgpu::client::libraries;

namespace {

// The driver's option enums number their values as the runtime's do.
static_assert(sizeof(CUjit_option) == sizeof(cudaJitOption) && CU_JIT_MAX_REGISTERS == int{cudaJitMaxRegisters} &&
              CU_JIT_INFO_LOG_BUFFER == int{cudaJitInfoLogBuffer} && CU_JIT_CACHE_MODE == int{cudaJitCacheMode} &&
              CU_JIT_OVERRIDE_DIRECTIVE_VALUES == int{cudaJitOverrideDirectiveValues});
static_assert(sizeof(CUlibraryOption) == sizeof(cudaLibraryOption) &&
              CU_LIBRARY_BINARY_IS_PRESERVED == int{cudaLibraryBinaryIsPreserved} &&
              CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE == int{cudaLibraryHostUniversalFunctionAndDataTable});

CUresult accept_options(const CUjit_option* jit, void** jit_values, unsigned jit_count, const CUlibraryOption* lib,
                        void** lib_values, unsigned lib_count, bool from_file) {
  return to_cu(libraries::accept_load_options(reinterpret_cast<const cudaJitOption*>(jit), jit_values, jit_count,
                                              reinterpret_cast<const cudaLibraryOption*>(lib), lib_values, lib_count,
                                              from_file));
}

ModuleRecord* record(CUmodule m) { return reinterpret_cast<ModuleRecord*>(m); }
ModuleRecord* record(CUlibrary l) { return reinterpret_cast<ModuleRecord*>(l); }

// A load (of an image or a file), answered as the handle the caller asked for: a CUmodule or a
// CUlibrary, both the module record's address.
template <typename Handle, typename Source>
CUresult load_as(cudaError_t (*load)(Source, ModuleRecord**), Source source, Handle* out) {
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  ModuleRecord* m = nullptr;
  cudaError_t st = load(source, &m);
  if (st == cudaSuccess) *out = reinterpret_cast<Handle>(m);
  return to_cu(st);
}

// The kernel `name`, as a CUfunction or a CUkernel: both the kernel record's address.
template <typename Handle>
CUresult kernel_as(ModuleRecord* m, const char* name, Handle* out) {
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  KernelRecord* k = nullptr;
  cudaError_t st = libraries::kernel(m, name, &k);
  if (st == cudaSuccess) *out = reinterpret_cast<Handle>(k);
  return to_cu(st);
}

}  // namespace

extern "C" CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  return load_as(&libraries::load, image, module);
}

extern "C" CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int numOptions,
                                       CUjit_option* options, void** optionValues) {
  if (CUresult r = accept_options(options, optionValues, numOptions, nullptr, nullptr, 0, false); r != CUDA_SUCCESS)
    return r;
  return cuModuleLoadData(module, image);
}

extern "C" CUresult cuModuleLoad(CUmodule* module, const char* fname) {
  return load_as(&libraries::load_file, fname, module);
}

extern "C" CUresult cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name) {
  return kernel_as(record(hmod), name, hfunc);
}

extern "C" CUresult cuModuleUnload(CUmodule hmod) { return to_cu(libraries::unload(record(hmod))); }

extern "C" CUresult cuModuleGetGlobal_v2(CUdeviceptr* dptr, size_t* bytes, CUmodule hmod, const char* name) {
  uint64_t address = 0;
  cudaError_t st = libraries::global(record(hmod), name, &address, bytes);
  if (st == cudaSuccess && dptr) *dptr = address;
  return to_cu(st);
}

extern "C" CUresult cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option* jitOptions,
                                      void** jitOptionsValues, unsigned int numJitOptions,
                                      CUlibraryOption* libraryOptions, void** libraryOptionValues,
                                      unsigned int numLibraryOptions) {
  if (CUresult r = accept_options(jitOptions, jitOptionsValues, numJitOptions, libraryOptions, libraryOptionValues,
                                  numLibraryOptions, false);
      r != CUDA_SUCCESS)
    return r;
  return load_as(&libraries::load, code, library);
}

extern "C" CUresult cuLibraryLoadFromFile(CUlibrary* library, const char* fileName, CUjit_option* jitOptions,
                                          void** jitOptionsValues, unsigned int numJitOptions,
                                          CUlibraryOption* libraryOptions, void** libraryOptionValues,
                                          unsigned int numLibraryOptions) {
  if (CUresult r = accept_options(jitOptions, jitOptionsValues, numJitOptions, libraryOptions, libraryOptionValues,
                                  numLibraryOptions, true);
      r != CUDA_SUCCESS)
    return r;
  return load_as(&libraries::load_file, fileName, library);
}

extern "C" CUresult cuLibraryUnload(CUlibrary library) { return to_cu(libraries::unload(record(library))); }

extern "C" CUresult cuLibraryGetKernel(CUkernel* pKernel, CUlibrary library, const char* name) {
  return kernel_as(record(library), name, pKernel);
}

extern "C" CUresult cuLibraryGetKernelCount(unsigned int* count, CUlibrary lib) {
  return to_cu(libraries::kernel_count(record(lib), count));
}

extern "C" CUresult cuLibraryEnumerateKernels(CUkernel* kernels, unsigned int numKernels, CUlibrary lib) {
  if (!kernels && numKernels) return CUDA_ERROR_INVALID_VALUE;
  return to_cu(libraries::kernels(record(lib), {reinterpret_cast<KernelRecord**>(kernels), numKernels}));
}

extern "C" CUresult cuLibraryGetGlobal(CUdeviceptr* dptr, size_t* bytes, CUlibrary library, const char* name) {
  return cuModuleGetGlobal_v2(dptr, bytes, reinterpret_cast<CUmodule>(library), name);
}

// A library is one module here (one context per device, and a module loads on one device).
extern "C" CUresult cuLibraryGetModule(CUmodule* pMod, CUlibrary library) {
  if (!pMod) return CUDA_ERROR_INVALID_VALUE;
  if (!libraries::is_loaded(record(library))) return CUDA_ERROR_INVALID_HANDLE;
  *pMod = reinterpret_cast<CUmodule>(library);
  return CUDA_SUCCESS;
}

extern "C" CUresult cuKernelGetLibrary(CUlibrary* pLib, CUkernel kernel) {
  ModuleRecord* m = nullptr;
  cudaError_t st = libraries::library_of(kernel, pLib ? &m : nullptr);
  if (st == cudaSuccess) *pLib = reinterpret_cast<CUlibrary>(m);
  return to_cu(st);
}

// One loaded module serves every context here (primary contexts of one session), so a CUkernel
// is its own CUfunction.
extern "C" CUresult cuKernelGetFunction(CUfunction* pFunc, CUkernel kernel) {
  if (!pFunc) return CUDA_ERROR_INVALID_VALUE;
  if (!rgpu::client::ModuleRegistry::get().kernel(kernel)) return CUDA_ERROR_INVALID_HANDLE;
  *pFunc = reinterpret_cast<CUfunction>(kernel);
  return CUDA_SUCCESS;
}

extern "C" CUresult cuKernelGetName(const char** name, CUkernel hfunc) {
  return cuFuncGetName(name, reinterpret_cast<CUfunction>(hfunc));
}
