// Libraries loaded from an image (see libraries.h).
#include "client/runtime/libraries.h"

#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "client/runtime/call.h"
#include "client/runtime/cudart_errors.h"
#include "client/runtime/module_image.h"
#include "common/wire/internal_calls.h"

namespace rgpu::client::libraries {
namespace {

// The libraries loaded and not unloaded (a handle not in it is refused), with the variables
// already looked up in each, by name.
struct Loaded {
  std::mutex mu;
  std::unordered_map<ModuleRecord*, std::unordered_map<std::string, std::pair<uint64_t, size_t>>> globals;
};
Loaded& loaded() {
  static Loaded* l = new Loaded();  // static destructors may still unload
  return *l;
}

// Refused loudly: the load would not be the one the program asked for.
cudaError_t refuse(const std::string& what) {
  report_unsupported((what + " at a module or library load").c_str());
  return cudaErrorNotSupported;
}

}  // namespace

cudaError_t accept_load_options(const cudaJitOption* jit_options, void** jit_values, unsigned jit_count,
                                const cudaLibraryOption* library_options, void** library_values,
                                unsigned library_count, bool from_file) {
  (void)library_values;  // no option accepted here takes a value
  if ((jit_count && (!jit_options || !jit_values)) || (library_count && !library_options)) return cudaErrorInvalidValue;
  for (unsigned i = 0; i < jit_count; ++i) {
    switch (jit_options[i]) {
      // Logs: answered empty (the server's driver compiles PTX; its log stays there).
      case cudaJitInfoLogBuffer:
      case cudaJitErrorLogBuffer:
        if (jit_values[i]) *static_cast<char*>(jit_values[i]) = '\0';
        break;
      case cudaJitInfoLogBufferSizeBytes:
      case cudaJitErrorLogBufferSizeBytes:
      case cudaJitWallTime:
        jit_values[i] = nullptr;  // out: no bytes logged, 0 ms (a float of zero bits)
        break;
      // Ignored: they change how the server's driver compiles or what it logs, not what the kernels
      // do nor the limits a launch is checked against.
      case cudaJitOptimizationLevel:
      case cudaJitFallbackStrategy:
      case cudaJitGenerateDebugInfo:
      case cudaJitLogVerbose:
      case cudaJitGenerateLineInfo:
      case cudaJitCacheMode:
      case cudaJitPositionIndependentCode:
        break;
      // Register and thread limits (cudaJitMaxRegisters, cudaJitThreadsPerBlock, cudaJitMinCtaPerSm,
      // cudaJitMaxThreadsPerBlock, cudaJitOverrideDirectiveValues) decide which launches succeed,
      // and the driver's own numbers (a target, ...) may not fit the server's GPU.
      default:
        return refuse("the JIT option " + std::to_string(jit_options[i]));
    }
  }
  for (unsigned i = 0; i < library_count; ++i) {
    switch (library_options[i]) {
      // A memory hint: the image is copied here anyway.
      case cudaLibraryBinaryIsPreserved:
        if (from_file) return cudaErrorInvalidValue;
        break;
      // Host tables (cudaLibraryHostUniversalFunctionAndDataTable) live in this process, out of the
      // server driver's reach.
      default:
        return refuse("the library option " + std::to_string(library_options[i]));
    }
  }
  return cudaSuccess;
}

bool is_loaded(ModuleRecord* library) {
  std::lock_guard<std::mutex> lock(loaded().mu);
  return loaded().globals.count(library) != 0;
}

cudaError_t load(const void* image, ModuleRecord** out) {
  if (!out) return cudaErrorInvalidValue;
  GivenImage given;
  if (cudaError_t st = read_given_image(image, &given); st != cudaSuccess) return st;
  ModuleRegistry& registry = ModuleRegistry::get();
  ModuleRecord* m = registry.add_image_module(std::move(given.bytes), given.kernels);
  if (cudaError_t st = registry.ensure_loaded(m); st != cudaSuccess) {
    registry.remove_module(m);
    return st;
  }
  std::lock_guard<std::mutex> lock(loaded().mu);
  loaded().globals[m];
  *out = m;
  return cudaSuccess;
}

cudaError_t load_file(const char* path, ModuleRecord** out) {
  if (!out || !path) return cudaErrorInvalidValue;
  std::ifstream in(path, std::ios::binary);
  if (!in) return cudaErrorFileNotFound;
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  bytes.push_back('\0');  // PTX text ends at its NUL; binary images carry their own length
  return load(bytes.data(), out);
}

cudaError_t unload(ModuleRecord* library) {
  {
    std::lock_guard<std::mutex> lock(loaded().mu);
    if (!loaded().globals.erase(library)) return cudaErrorInvalidResourceHandle;
  }
  ModuleRegistry::get().remove_module(library);
  Call call(wire::kCallModuleUnload, CallClass::kAsync);
  call.args().put<uint64_t>(library->id);
  return call.post() == 0 ? cudaSuccess : cudaErrorNoDevice;
}

cudaError_t kernel(ModuleRecord* library, const char* name, KernelRecord** out) {
  if (!out || !name) return cudaErrorInvalidValue;
  if (!is_loaded(library)) return cudaErrorInvalidResourceHandle;
  for (auto& k : library->kernels) {
    if (k->name == std::string_view(name)) {
      *out = k.get();
      return cudaSuccess;
    }
  }
  return cudaErrorSymbolNotFound;
}

cudaError_t kernel_count(ModuleRecord* library, unsigned* count) {
  if (!count) return cudaErrorInvalidValue;
  if (!is_loaded(library)) return cudaErrorInvalidResourceHandle;
  *count = static_cast<unsigned>(library->kernels.size());
  return cudaSuccess;
}

cudaError_t kernels(ModuleRecord* library, std::span<KernelRecord*> out) {
  if (!is_loaded(library)) return cudaErrorInvalidResourceHandle;
  for (size_t i = 0; i < out.size() && i < library->kernels.size(); ++i) out[i] = library->kernels[i].get();
  return cudaSuccess;
}

cudaError_t library_of(const void* kernel, ModuleRecord** out) {
  if (!out) return cudaErrorInvalidValue;
  KernelRecord* k = ModuleRegistry::get().kernel(kernel);
  if (!k || !is_loaded(k->module)) return cudaErrorInvalidResourceHandle;
  *out = k->module;
  return cudaSuccess;
}

cudaError_t global(ModuleRecord* library, const char* name, uint64_t* address, size_t* bytes) {
  if (!name) return cudaErrorInvalidValue;
  {
    std::lock_guard<std::mutex> lock(loaded().mu);
    auto it = loaded().globals.find(library);
    if (it == loaded().globals.end()) return cudaErrorInvalidResourceHandle;
    if (auto known = it->second.find(name); known != it->second.end()) {
      if (address) *address = known->second.first;
      if (bytes) *bytes = known->second.second;
      return cudaSuccess;
    }
  }
  Call call(wire::kCallModuleGlobal, CallClass::kSync);
  call.args().put<uint64_t>(library->id);
  call.args().put_string(name);
  int32_t st = call.invoke();
  if (st == kStatusUnavailable) return cudaErrorNoDevice;
  if (st != 0) return static_cast<cudaError_t>(st);
  auto found_address = call.results().get<uint64_t>();
  auto found_size = call.results().get<uint64_t>();
  if (!call.results().ok()) return cudaErrorUnknown;
  std::lock_guard<std::mutex> lock(loaded().mu);
  auto it = loaded().globals.find(library);
  if (it != loaded().globals.end()) it->second[name] = {found_address, found_size};
  if (address) *address = found_address;
  if (bytes) *bytes = found_size;
  return cudaSuccess;
}

}  // namespace rgpu::client::libraries

using rgpu::client::cudart_finish;
using rgpu::client::KernelRecord;
using rgpu::client::ModuleRecord;
namespace libraries = rgpu::client::libraries;

namespace {
ModuleRecord* record(cudaLibrary_t library) { return reinterpret_cast<ModuleRecord*>(library); }
}  // namespace

namespace {

// A library's load: its options checked, then `load(ModuleRecord**)` (from data or from a file).
template <typename Load>
cudaError_t load_library(cudaLibrary_t* library, cudaJitOption* jitOptions, void** jitOptionsValues,
                         unsigned numJitOptions, cudaLibraryOption* libraryOptions, void** libraryOptionValues,
                         unsigned numLibraryOptions, bool from_file, Load load) {
  if (!library) return cudart_finish(cudaErrorInvalidValue);
  cudaError_t st = libraries::accept_load_options(jitOptions, jitOptionsValues, numJitOptions, libraryOptions,
                                                  libraryOptionValues, numLibraryOptions, from_file);
  ModuleRecord* m = nullptr;
  if (st == cudaSuccess) st = load(&m);
  if (st == cudaSuccess) *library = reinterpret_cast<cudaLibrary_t>(m);
  return cudart_finish(st);
}

}  // namespace

extern "C" cudaError_t cudaLibraryLoadData(cudaLibrary_t* library, const void* code, cudaJitOption* jitOptions,
                                           void** jitOptionsValues, unsigned int numJitOptions,
                                           cudaLibraryOption* libraryOptions, void** libraryOptionValues,
                                           unsigned int numLibraryOptions) {
  return load_library(library, jitOptions, jitOptionsValues, numJitOptions, libraryOptions, libraryOptionValues,
                      numLibraryOptions, false, [&](ModuleRecord** m) { return libraries::load(code, m); });
}

extern "C" cudaError_t cudaLibraryLoadFromFile(cudaLibrary_t* library, const char* fileName, cudaJitOption* jitOptions,
                                               void** jitOptionsValues, unsigned int numJitOptions,
                                               cudaLibraryOption* libraryOptions, void** libraryOptionValues,
                                               unsigned int numLibraryOptions) {
  return load_library(library, jitOptions, jitOptionsValues, numJitOptions, libraryOptions, libraryOptionValues,
                      numLibraryOptions, true, [&](ModuleRecord** m) { return libraries::load_file(fileName, m); });
}

extern "C" cudaError_t cudaLibraryUnload(cudaLibrary_t library) {
  return cudart_finish(libraries::unload(record(library)));
}

// A cudaKernel_t is the kernel's record, which every launch path and attribute call takes as the
// kernel (cast to const void*), as cudaGetKernel's.
extern "C" cudaError_t cudaLibraryGetKernel(cudaKernel_t* pKernel, cudaLibrary_t library, const char* name) {
  if (!pKernel) return cudart_finish(cudaErrorInvalidValue);
  KernelRecord* k = nullptr;
  cudaError_t st = libraries::kernel(record(library), name, &k);
  if (st == cudaSuccess) *pKernel = reinterpret_cast<cudaKernel_t>(k);
  return cudart_finish(st);
}

extern "C" cudaError_t cudaLibraryGetKernelCount(unsigned int* count, cudaLibrary_t lib) {
  return cudart_finish(libraries::kernel_count(record(lib), count));
}

extern "C" cudaError_t cudaLibraryEnumerateKernels(cudaKernel_t* kernels, unsigned int numKernels, cudaLibrary_t lib) {
  if (!kernels && numKernels) return cudart_finish(cudaErrorInvalidValue);
  return cudart_finish(libraries::kernels(record(lib), {reinterpret_cast<KernelRecord**>(kernels), numKernels}));
}

extern "C" cudaError_t cudaLibraryGetGlobal(void** dptr, size_t* bytes, cudaLibrary_t library, const char* name) {
  if (!dptr && !bytes) return cudart_finish(cudaErrorInvalidValue);
  uint64_t address = 0;
  cudaError_t st = libraries::global(record(library), name, &address, bytes);
  if (st == cudaSuccess && dptr) *dptr = reinterpret_cast<void*>(address);
  return cudart_finish(st);
}
