// Modules through the runtime's module path (client/runtime/modules.*): cuModuleLoadData is one
// synchronous upload that returns every kernel's parameter layout, so cuModuleGetFunction and the
// launches that follow need no further round trip. A CUmodule (and a CUlibrary) is the runtime's
// ModuleRecord, a CUfunction (and a CUkernel) its KernelRecord. Variables cannot be listed before
// the load (the image does not say which symbols the driver will answer for), so
// cuModuleGetGlobal asks the server once per name (kCallModuleGlobal); unloads are posted.
#include <cuda.h>

#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "client/driver/driver_errors.h"
#include "client/driver/module_image.h"
#include "client/runtime/call.h"
#include "client/runtime/modules.h"
#include "common/wire/internal_calls.h"

using rgpu::client::KernelRecord;
using rgpu::client::ModuleRecord;
using rgpu::client::ModuleRegistry;

namespace {

// The modules loaded through the driver API and not unloaded (a handle not in it is refused), with
// the variables already looked up in each, by name.
struct LiveModules {
  std::mutex mu;
  std::unordered_map<ModuleRecord*, std::unordered_map<std::string, std::pair<CUdeviceptr, size_t>>> modules;
};
LiveModules& live() {
  static LiveModules* l = new LiveModules();
  return *l;
}

bool is_live(ModuleRecord* m) {
  std::lock_guard<std::mutex> lock(live().mu);
  return live().modules.count(m) != 0;
}

CUresult load(const void* image, ModuleRecord** out) {
  rgpu::client::driver::GivenImage given;
  if (CUresult r = rgpu::client::driver::read_given_image(image, &given); r != CUDA_SUCCESS) return r;
  ModuleRegistry& registry = ModuleRegistry::get();
  ModuleRecord* m = registry.add_image_module(std::move(given.bytes), given.kernels);
  if (cudaError_t st = registry.ensure_loaded(m); st != cudaSuccess) {
    registry.remove_module(m);
    return rgpu::client::driver::to_cu(st);
  }
  std::lock_guard<std::mutex> lock(live().mu);
  live().modules[m];
  *out = m;
  return CUDA_SUCCESS;
}

// Its kernels are forgotten here (their handles are refused from now on) and the server unloads it
// in call order, after the work already sent.
CUresult unload(ModuleRecord* m) {
  {
    std::lock_guard<std::mutex> lock(live().mu);
    if (!live().modules.erase(m)) return CUDA_ERROR_INVALID_HANDLE;
  }
  ModuleRegistry::get().remove_module(m);
  rgpu::client::Call call(rgpu::wire::kCallModuleUnload, rgpu::client::CallClass::kAsync);
  call.args().put<uint64_t>(m->id);
  return call.post() == 0 ? CUDA_SUCCESS : CUDA_ERROR_NO_DEVICE;
}

// A variable's address and size: from this module's cache, else from the server (once per name).
CUresult global(ModuleRecord* m, const char* name, CUdeviceptr* dptr, size_t* bytes) {
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  {
    std::lock_guard<std::mutex> lock(live().mu);
    auto it = live().modules.find(m);
    if (it == live().modules.end()) return CUDA_ERROR_INVALID_HANDLE;
    if (auto known = it->second.find(name); known != it->second.end()) {
      if (dptr) *dptr = known->second.first;
      if (bytes) *bytes = known->second.second;
      return CUDA_SUCCESS;
    }
  }
  rgpu::client::Call call(rgpu::wire::kCallModuleGlobal, rgpu::client::CallClass::kSync);
  call.args().put<uint64_t>(m->id);
  call.args().put_string(name);
  int32_t st = call.invoke();
  if (st == rgpu::client::kStatusUnavailable) return CUDA_ERROR_NO_DEVICE;
  if (st != 0) return rgpu::client::driver::to_cu(static_cast<cudaError_t>(st));
  auto address = call.results().get<uint64_t>();
  auto size = call.results().get<uint64_t>();
  if (!call.results().ok()) return CUDA_ERROR_UNKNOWN;
  std::lock_guard<std::mutex> lock(live().mu);
  auto it = live().modules.find(m);
  if (it != live().modules.end()) it->second[name] = {address, size};
  if (dptr) *dptr = address;
  if (bytes) *bytes = size;
  return CUDA_SUCCESS;
}

// The kernel `name` of the module, as the handle the caller asked for (a CUfunction or a CUkernel:
// both are the kernel record's address).
template <typename Handle>
CUresult find_kernel(ModuleRecord* m, const char* name, Handle* out) {
  if (!out || !name) return CUDA_ERROR_INVALID_VALUE;
  if (!is_live(m)) return CUDA_ERROR_INVALID_HANDLE;
  for (auto& k : m->kernels) {
    if (k->name == std::string_view(name)) {
      *out = reinterpret_cast<Handle>(k.get());
      return CUDA_SUCCESS;
    }
  }
  return CUDA_ERROR_NOT_FOUND;
}

ModuleRecord* record(CUmodule m) { return reinterpret_cast<ModuleRecord*>(m); }
ModuleRecord* record(CUlibrary l) { return reinterpret_cast<ModuleRecord*>(l); }

// Loads the image, answered as the handle the caller asked for (a CUmodule or a CUlibrary: both are
// the module record's address).
template <typename Handle>
CUresult load_as(const void* image, Handle* out) {
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  ModuleRecord* m = nullptr;
  CUresult r = load(image, &m);
  if (r == CUDA_SUCCESS) *out = reinterpret_cast<Handle>(m);
  return r;
}

}  // namespace

extern "C" CUresult cuModuleLoadData(CUmodule* module, const void* image) { return load_as(image, module); }

// JIT options do not apply: the server's driver compiles PTX with its defaults. Log outputs are
// answered empty, so callers that print them print nothing.
extern "C" CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int numOptions,
                                       CUjit_option* options, void** optionValues) {
  for (unsigned i = 0; options && optionValues && i < numOptions; ++i) {
    switch (options[i]) {
      case CU_JIT_INFO_LOG_BUFFER:
      case CU_JIT_ERROR_LOG_BUFFER:
        if (optionValues[i]) *static_cast<char*>(optionValues[i]) = '\0';
        break;
      case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
      case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
        optionValues[i] = nullptr;  // bytes written: none
        break;
      default:
        break;
    }
  }
  return cuModuleLoadData(module, image);
}

// The file is read here, on the client (it names a path of the program's host).
extern "C" CUresult cuModuleLoad(CUmodule* module, const char* fname) {
  if (!module || !fname) return CUDA_ERROR_INVALID_VALUE;
  std::ifstream in(fname, std::ios::binary);
  if (!in) return CUDA_ERROR_FILE_NOT_FOUND;
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  bytes.push_back('\0');  // PTX text ends at its NUL; binary images carry their own length
  return cuModuleLoadData(module, bytes.data());
}

extern "C" CUresult cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name) {
  return find_kernel(record(hmod), name, hfunc);
}

extern "C" CUresult cuModuleUnload(CUmodule hmod) { return unload(record(hmod)); }

extern "C" CUresult cuModuleGetGlobal_v2(CUdeviceptr* dptr, size_t* bytes, CUmodule hmod, const char* name) {
  return global(record(hmod), name, dptr, bytes);
}

extern "C" CUresult cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option* jitOptions,
                                      void** jitOptionsValues, unsigned int numJitOptions,
                                      CUlibraryOption* libraryOptions, void** libraryOptionValues,
                                      unsigned int numLibraryOptions) {
  (void)jitOptions, (void)jitOptionsValues, (void)numJitOptions;
  (void)libraryOptions, (void)libraryOptionValues, (void)numLibraryOptions;
  return load_as(code, library);
}

extern "C" CUresult cuLibraryGetKernel(CUkernel* pKernel, CUlibrary library, const char* name) {
  return find_kernel(record(library), name, pKernel);
}

extern "C" CUresult cuLibraryUnload(CUlibrary library) { return unload(record(library)); }

// One loaded module serves every context here (primary contexts of one session), so a CUkernel
// is its own CUfunction.
extern "C" CUresult cuKernelGetFunction(CUfunction* pFunc, CUkernel kernel) {
  if (!pFunc) return CUDA_ERROR_INVALID_VALUE;
  if (!ModuleRegistry::get().kernel(kernel)) return CUDA_ERROR_INVALID_HANDLE;
  *pFunc = reinterpret_cast<CUfunction>(kernel);
  return CUDA_SUCCESS;
}
