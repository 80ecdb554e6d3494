// nvcc's registration entry points (__cudaRegisterFatBinary and friends): local bookkeeping only.
// Importing a large framework makes tens of thousands of these calls; none reaches the server.
#include <cuda_runtime_api.h>

#include "client/runtime/call.h"
#include "client/runtime/modules.h"

using rgpu::client::ModuleRecord;
using rgpu::client::ModuleRegistry;

extern "C" void** __cudaRegisterFatBinary(void* fatCubin) {
  // The handle nvcc keeps is opaque to it: we hand back the module record.
  return reinterpret_cast<void**>(ModuleRegistry::get().add_module(fatCubin));
}

extern "C" void __cudaRegisterFatBinaryEnd(void** fatCubinHandle) { (void)fatCubinHandle; }

extern "C" void __cudaUnregisterFatBinary(void** fatCubinHandle) {
  ModuleRegistry::get().remove_module(reinterpret_cast<ModuleRecord*>(fatCubinHandle));
}

extern "C" void __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun,
                                       const char* deviceName, int thread_limit, uint3* tid, uint3* bid, dim3* bDim,
                                       dim3* gDim, int* wSize) {
  (void)deviceFun;
  (void)thread_limit;
  (void)tid;
  (void)bid;
  (void)bDim;
  (void)gDim;
  (void)wSize;
  ModuleRegistry::get().add_kernel(reinterpret_cast<ModuleRecord*>(fatCubinHandle), hostFun, deviceName);
}

extern "C" void __cudaRegisterVar(void** fatCubinHandle, char* hostVar, char* deviceAddress, const char* deviceName,
                                  int ext, size_t size, int constant, int global) {
  (void)deviceAddress;
  (void)ext;
  (void)constant;
  (void)global;
  ModuleRegistry::get().add_var(reinterpret_cast<ModuleRecord*>(fatCubinHandle), hostVar, deviceName, size);
}

extern "C" void __cudaRegisterManagedVar(void** fatCubinHandle, void** hostVarPtrAddress, char* deviceAddress,
                                         const char* deviceName, int ext, size_t size, int constant, int global) {
  (void)fatCubinHandle;
  (void)hostVarPtrAddress;
  (void)deviceAddress;
  (void)deviceName;
  (void)ext;
  (void)size;
  (void)constant;
  (void)global;
  rgpu::client::report_unsupported("__cudaRegisterManagedVar (__managed__ variables)");
}

extern "C" void __cudaRegisterHostVar(void** fatCubinHandle, const char* deviceName, char* hostVar, size_t size) {
  (void)fatCubinHandle;
  (void)deviceName;
  (void)hostVar;
  (void)size;
  rgpu::client::report_unsupported("__cudaRegisterHostVar");
}

extern "C" char __cudaInitModule(void** fatCubinHandle) {
  return ModuleRegistry::get().ensure_loaded(reinterpret_cast<ModuleRecord*>(fatCubinHandle)) == cudaSuccess;
}

// Internal entry points newer toolchains may call; not supported yet, and loud about it.
extern "C" void __cudaRegisterUnifiedTable(void* table) {
  (void)table;
  rgpu::client::report_unsupported("__cudaRegisterUnifiedTable");
}

extern "C" cudaError_t __cudaGetProcAddress(const char* symbol, void** pfn, int cudaVersion, unsigned long long flags,
                                            void* symbolStatus) {
  (void)symbol;
  (void)cudaVersion;
  (void)flags;
  (void)symbolStatus;
  if (pfn) *pfn = nullptr;
  rgpu::client::report_unsupported("__cudaGetProcAddress");
  return cudaErrorNotSupported;
}
