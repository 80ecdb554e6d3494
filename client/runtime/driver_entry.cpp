// cudaGetDriverEntryPoint(ByVersion): the driver API's entry points are those of rgpu's own
// libcuda.so.1 shim, which lives beside this library (client/driver): it is found by path from
// this library's own location, so a real libcuda.so.1 elsewhere on the search path (or one the
// program pinned) is never asked. Its cuGetProcAddress_v2 answers; no traffic.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <string>

#include "client/runtime/call.h"
#include "client/runtime/cudart_errors.h"
#include "gen/cudart/cudart_decls.h"

namespace rgpu::client {
namespace {

using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

// The driver shim's cuGetProcAddress_v2 (loaded if the program has not loaded it yet), or null.
GetProcAddress driver_get_proc_address() {
  static GetProcAddress fn = [] () -> GetProcAddress {
    Dl_info self{};
    if (!dladdr(reinterpret_cast<void*>(&driver_get_proc_address), &self) || !self.dli_fname) return nullptr;
    std::string path = self.dli_fname;
    path = path.substr(0, path.rfind('/') + 1) + "libcuda.so.1";
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (!lib) lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    return lib ? reinterpret_cast<GetProcAddress>(dlsym(lib, "cuGetProcAddress_v2")) : nullptr;
  }();
  return fn;
}

cudaError_t entry_point(const char* symbol, void** funcPtr, int version, unsigned long long flags, bool per_thread_build,
                        cudaDriverEntryPointQueryResult* status) {
  if (!symbol || !funcPtr) return cudart_finish(cudaErrorInvalidValue);
  *funcPtr = nullptr;
  GetProcAddress get = driver_get_proc_address();
  if (!get) {
    report_unsupported("cudaGetDriverEntryPoint without rgpu's libcuda.so.1 beside libcudart.so.13");
    return cudart_finish(cudaErrorNotSupported);
  }
  // cudaEnableDefault follows how the caller was compiled: the _ptsz entry points are called by
  // code built for the per-thread default stream. The other flags are the driver's own values.
  cuuint64_t cu_flags = flags;
  if (flags == cudaEnableDefault && per_thread_build) cu_flags = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
  CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  CUresult r = get(symbol, funcPtr, version, cu_flags, &found);
  if (r != CUDA_SUCCESS) return cudart_finish(cudaErrorInvalidValue);
  // A symbol that is not found is an answer (funcPtr null), not an error, as CUDA reports it.
  if (status) *status = static_cast<cudaDriverEntryPointQueryResult>(found);
  return cudaSuccess;
}

}  // namespace
}  // namespace rgpu::client

static_assert(static_cast<int>(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT) ==
              static_cast<int>(cudaDriverEntryPointVersionNotSufficent));

extern "C" cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** funcPtr, unsigned long long flags,
                                               cudaDriverEntryPointQueryResult* driverStatus) {
  return rgpu::client::entry_point(symbol, funcPtr, CUDART_VERSION, flags, false, driverStatus);
}

extern "C" cudaError_t cudaGetDriverEntryPoint_ptsz(const char* symbol, void** funcPtr, unsigned long long flags,
                                                    cudaDriverEntryPointQueryResult* driverStatus) {
  return rgpu::client::entry_point(symbol, funcPtr, CUDART_VERSION, flags, true, driverStatus);
}

extern "C" cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** funcPtr, unsigned int cudaVersion,
                                                        unsigned long long flags,
                                                        cudaDriverEntryPointQueryResult* driverStatus) {
  return rgpu::client::entry_point(symbol, funcPtr, static_cast<int>(cudaVersion), flags, false, driverStatus);
}

extern "C" cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char* symbol, void** funcPtr,
                                                             unsigned int cudaVersion, unsigned long long flags,
                                                             cudaDriverEntryPointQueryResult* driverStatus) {
  return rgpu::client::entry_point(symbol, funcPtr, static_cast<int>(cudaVersion), flags, true, driverStatus);
}
