// The runtime's library API (cudaLibrary*, cudaKernelSetAttributeForDevice) and the driver's
// counterparts through the libcudart.so.13 and libcuda.so.1 shims (linked here against the shims,
// as CI has no real CUDA libraries) against `rgpud --emulate` with RGPU_EMULATED_DEVICES=2: a PTX
// library loaded from memory and from a file, its kernels counted, enumerated, named and launched
// (the emulated backend checks launches, it does not run them), a variable read and written, load
// options accepted or refused, attributes for the module's device and the refusal of another, and
// every handle refused after the unload. Prints "ok: ..." per check and "ok: library_tour" last.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "saxpy_ptx.h"
#include "tour_checks.h"

namespace {

constexpr int kN = 1000;

const void* as_func(cudaKernel_t k) { return reinterpret_cast<const void*>(k); }

// The PTX written to a file of its own; "" when that fails.
std::string ptx_file() {
  char path[] = "/tmp/library_tour.XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return "";
  bool written = write(fd, kSaxpyPtx, sizeof kSaxpyPtx - 1) == static_cast<ssize_t>(sizeof kSaxpyPtx - 1);
  close(fd);
  return written ? path : "";
}

int kernels(cudaLibrary_t lib) {
  unsigned count = 0;
  EXPECT(cudaLibraryGetKernelCount(&count, lib) == cudaSuccess && count == 2, "cudaLibraryGetKernelCount: 2");
  cudaKernel_t listed[2] = {};
  EXPECT(cudaLibraryEnumerateKernels(listed, 2, lib) == cudaSuccess && listed[0] && listed[1],
         "cudaLibraryEnumerateKernels");
  std::set<std::string> names;
  for (cudaKernel_t k : listed) {
    const char* name = nullptr;
    if (cudaFuncGetName(&name, as_func(k)) == cudaSuccess && name) names.insert(name);
  }
  EXPECT((names == std::set<std::string>{"saxpy", "fill"}), "the enumerated kernels are named saxpy and fill");
  cudaKernel_t saxpy = nullptr, none = nullptr;
  EXPECT(cudaLibraryGetKernel(&saxpy, lib, "saxpy") == cudaSuccess && (saxpy == listed[0] || saxpy == listed[1]),
         "cudaLibraryGetKernel: one of the enumerated");
  EXPECT(cudaLibraryGetKernel(&none, lib, "nope") == cudaErrorSymbolNotFound && cudaGetLastError() == cudaErrorSymbolNotFound,
         "cudaLibraryGetKernel of no kernel: cudaErrorSymbolNotFound");
  EXPECT(cudaLibraryEnumerateKernels(nullptr, 1, lib) == cudaErrorInvalidValue && cudaGetLastError() != cudaSuccess,
         "cudaLibraryEnumerateKernels into no array");
  return 0;
}

int launch_and_attributes(cudaLibrary_t lib) {
  cudaKernel_t saxpy = nullptr;
  EXPECT(cudaLibraryGetKernel(&saxpy, lib, "saxpy") == cudaSuccess, "saxpy");
  cudaFuncAttributes attrs{};
  EXPECT(cudaFuncGetAttributes(&attrs, as_func(saxpy)) == cudaSuccess && attrs.maxThreadsPerBlock > 0,
         "cudaFuncGetAttributes of a library kernel");
  EXPECT(cudaFuncSetAttribute(as_func(saxpy), cudaFuncAttributeMaxDynamicSharedMemorySize, 1024) == cudaSuccess &&
             cudaFuncGetAttributes(&attrs, as_func(saxpy)) == cudaSuccess && attrs.maxDynamicSharedSizeBytes == 1024,
         "cudaFuncSetAttribute of a library kernel");
  EXPECT(cudaKernelSetAttributeForDevice(saxpy, cudaFuncAttributeMaxDynamicSharedMemorySize, 2048, 0) == cudaSuccess &&
             cudaFuncGetAttributes(&attrs, as_func(saxpy)) == cudaSuccess && attrs.maxDynamicSharedSizeBytes == 2048,
         "cudaKernelSetAttributeForDevice for the module's device");
  EXPECT(cudaKernelSetAttributeForDevice(saxpy, cudaFuncAttributeMaxDynamicSharedMemorySize, 4096, 1) ==
                 cudaErrorNotSupported &&
             cudaGetLastError() == cudaErrorNotSupported,
         "cudaKernelSetAttributeForDevice for another device is refused");
  EXPECT(cudaKernelSetAttributeForDevice(saxpy, cudaFuncAttributeMaxDynamicSharedMemorySize, 4096, 7) ==
                 cudaErrorInvalidDevice && cudaGetLastError() == cudaErrorInvalidDevice,
         "cudaKernelSetAttributeForDevice for no device");

  float *x = nullptr, *y = nullptr;
  EXPECT(cudaMalloc(reinterpret_cast<void**>(&x), kN * sizeof(float)) == cudaSuccess &&
             cudaMalloc(reinterpret_cast<void**>(&y), kN * sizeof(float)) == cudaSuccess,
         "buffers");
  float a = 2.0f;
  int n = kN;
  void* args[] = {&a, &x, &y, &n};
  EXPECT(cudaLaunchKernel(as_func(saxpy), dim3((kN + 255) / 256), dim3(256), args, 0, nullptr) == cudaSuccess,
         "cudaLaunchKernel of a library kernel");
  cudaLaunchConfig_t config{};
  config.gridDim = dim3((kN + 255) / 256);
  config.blockDim = dim3(256);
  config.dynamicSmemBytes = 2048;  // allowed by the attribute set for the device
  EXPECT(cudaLaunchKernelExC(&config, as_func(saxpy), args) == cudaSuccess, "cudaLaunchKernelExC of a library kernel");
  config.dynamicSmemBytes = 4096;
  EXPECT(cudaLaunchKernelExC(&config, as_func(saxpy), args) == cudaErrorInvalidValue && cudaGetLastError() != cudaSuccess,
         "a launch beyond the kernel's dynamic shared memory is refused");
  EXPECT(cudaDeviceSynchronize() == cudaSuccess, "cudaDeviceSynchronize after the launches");
  cudaFree(x);
  cudaFree(y);
  return 0;
}

int globals(cudaLibrary_t lib) {
  void* counter = nullptr;
  void* again = nullptr;
  size_t size = 0;
  unsigned value = 0;
  EXPECT(cudaLibraryGetGlobal(&counter, &size, lib, "counter") == cudaSuccess && counter && size == 4 &&
             cudaMemcpy(&value, counter, 4, cudaMemcpyDeviceToHost) == cudaSuccess && value == 7,
         "cudaLibraryGetGlobal: the variable with its initial value");
  value = 9;
  unsigned back = 0;
  EXPECT(cudaMemcpy(counter, &value, 4, cudaMemcpyHostToDevice) == cudaSuccess &&
             cudaLibraryGetGlobal(&again, nullptr, lib, "counter") == cudaSuccess && again == counter &&
             cudaMemcpy(&back, again, 4, cudaMemcpyDeviceToHost) == cudaSuccess && back == 9,
         "cudaLibraryGetGlobal again: the same variable, written and read");
  EXPECT(cudaLibraryGetGlobal(&again, nullptr, lib, "nope") == cudaErrorSymbolNotFound && cudaGetLastError() != cudaSuccess,
         "cudaLibraryGetGlobal of no variable");
  EXPECT(cudaLibraryGetManaged(&again, &size, lib, "counter") == cudaErrorNotSupported && cudaGetLastError() != cudaSuccess,
         "cudaLibraryGetManaged says it is not supported");
  return 0;
}

int options(const std::string& file) {
  cudaLibrary_t lib = nullptr;
  char log[64] = "stale";
  cudaJitOption jit[] = {cudaJitInfoLogBuffer, cudaJitInfoLogBufferSizeBytes, cudaJitOptimizationLevel};
  void* jit_values[] = {log, reinterpret_cast<void*>(sizeof log), reinterpret_cast<void*>(3)};
  cudaLibraryOption preserved[] = {cudaLibraryBinaryIsPreserved};
  void* preserved_values[] = {reinterpret_cast<void*>(1)};
  EXPECT(cudaLibraryLoadData(&lib, kSaxpyPtx, jit, jit_values, 3, preserved, preserved_values, 1) == cudaSuccess &&
             log[0] == '\0' && jit_values[1] == nullptr && cudaLibraryUnload(lib) == cudaSuccess,
         "cudaLibraryLoadData with a log, an optimisation level and a preserved binary: the log empty");
  cudaJitOption registers[] = {cudaJitMaxRegisters};
  void* register_values[] = {reinterpret_cast<void*>(32)};
  EXPECT(cudaLibraryLoadData(&lib, kSaxpyPtx, registers, register_values, 1, nullptr, nullptr, 0) ==
                 cudaErrorNotSupported && cudaGetLastError() == cudaErrorNotSupported,
         "cudaLibraryLoadData with a register limit is refused");
  cudaLibraryOption table[] = {cudaLibraryHostUniversalFunctionAndDataTable};
  void* table_values[] = {nullptr};
  EXPECT(cudaLibraryLoadData(&lib, kSaxpyPtx, nullptr, nullptr, 0, table, table_values, 1) == cudaErrorNotSupported &&
             cudaGetLastError() != cudaSuccess,
         "cudaLibraryLoadData with a host table is refused");
  EXPECT(cudaLibraryLoadFromFile(&lib, file.c_str(), nullptr, nullptr, 0, preserved, preserved_values, 1) ==
                 cudaErrorInvalidValue && cudaGetLastError() != cudaSuccess,
         "cudaLibraryLoadFromFile with a preserved binary: cudaErrorInvalidValue");
  EXPECT(cudaLibraryLoadData(&lib, "not a module", nullptr, nullptr, 0, nullptr, nullptr, 0) ==
                 cudaErrorInvalidKernelImage && cudaGetLastError() != cudaSuccess,
         "cudaLibraryLoadData of junk");
  EXPECT(cudaLibraryLoadFromFile(&lib, "/nonexistent/library.ptx", nullptr, nullptr, 0, nullptr, nullptr, 0) ==
                 cudaErrorFileNotFound && cudaGetLastError() != cudaSuccess,
         "cudaLibraryLoadFromFile of no file: cudaErrorFileNotFound");
  return 0;
}

// The driver's counterparts on a library the runtime loaded (one handle for both APIs) and on one
// it loads from the file itself.
int driver(cudaLibrary_t runtime_lib, const std::string& file) {
  CUlibrary lib = reinterpret_cast<CUlibrary>(runtime_lib);
  unsigned count = 0;
  EXPECT(cuLibraryGetKernelCount(&count, lib) == CUDA_SUCCESS && count == 2, "cuLibraryGetKernelCount");
  CUkernel listed[2] = {};
  EXPECT(cuLibraryEnumerateKernels(listed, 2, lib) == CUDA_SUCCESS, "cuLibraryEnumerateKernels");
  std::set<std::string> names;
  for (CUkernel k : listed) {
    const char* name = nullptr;
    CUlibrary owner = nullptr;
    if (cuKernelGetName(&name, k) == CUDA_SUCCESS && cuKernelGetLibrary(&owner, k) == CUDA_SUCCESS && owner == lib)
      names.insert(name);
  }
  EXPECT((names == std::set<std::string>{"saxpy", "fill"}), "cuKernelGetName and cuKernelGetLibrary of each");
  CUmodule module = nullptr;
  CUfunction fill = nullptr;
  EXPECT(cuLibraryGetModule(&module, lib) == CUDA_SUCCESS && cuModuleGetFunction(&fill, module, "fill") == CUDA_SUCCESS,
         "cuLibraryGetModule: its functions");
  CUdeviceptr counter = 0;
  size_t size = 0;
  EXPECT(cuLibraryGetGlobal(&counter, &size, lib, "counter") == CUDA_SUCCESS && size == 4 &&
             cuLibraryGetGlobal(&counter, &size, lib, "nope") == CUDA_ERROR_NOT_FOUND,
         "cuLibraryGetGlobal");
  void* params[] = {&counter, &count};
  EXPECT(cuLaunchKernel(fill, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr) == CUDA_SUCCESS &&
             cuCtxSynchronize() == CUDA_SUCCESS,
         "cuLaunchKernel of the library's function");

  CUlibrary from_file = nullptr;
  EXPECT(cuLibraryLoadFromFile(&from_file, file.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0) == CUDA_SUCCESS &&
             cuLibraryGetKernelCount(&count, from_file) == CUDA_SUCCESS && count == 2 &&
             cuLibraryUnload(from_file) == CUDA_SUCCESS,
         "cuLibraryLoadFromFile");
  CUjit_option registers[] = {CU_JIT_MAX_REGISTERS};
  void* register_values[] = {reinterpret_cast<void*>(32)};
  EXPECT(cuModuleLoadDataEx(&module, kSaxpyPtx, 1, registers, register_values) == CUDA_ERROR_NOT_SUPPORTED,
         "cuModuleLoadDataEx with a register limit is refused");
  return 0;
}

int unloaded(cudaLibrary_t lib, cudaKernel_t saxpy) {
  EXPECT(cudaLibraryUnload(lib) == cudaSuccess, "cudaLibraryUnload");
  cudaKernel_t k = nullptr;
  unsigned count = 0;
  void* dptr = nullptr;
  EXPECT(cudaLibraryGetKernel(&k, lib, "saxpy") == cudaErrorInvalidResourceHandle &&
             cudaLibraryGetKernelCount(&count, lib) == cudaErrorInvalidResourceHandle &&
             cudaLibraryEnumerateKernels(&k, 1, lib) == cudaErrorInvalidResourceHandle &&
             cudaLibraryGetGlobal(&dptr, nullptr, lib, "counter") == cudaErrorInvalidResourceHandle &&
             cudaLibraryUnload(lib) == cudaErrorInvalidResourceHandle,
         "an unloaded library's handle is refused");
  cudaFuncAttributes attrs{};
  float a = 1.0f;
  void* args[] = {&a, &dptr, &dptr, &count};
  EXPECT(cudaLaunchKernel(as_func(saxpy), dim3(1), dim3(32), args, 0, nullptr) == cudaErrorInvalidDeviceFunction &&
             cudaFuncGetAttributes(&attrs, as_func(saxpy)) == cudaErrorInvalidDeviceFunction &&
             cudaKernelSetAttributeForDevice(saxpy, cudaFuncAttributeMaxDynamicSharedMemorySize, 0, 0) ==
                 cudaErrorInvalidDeviceFunction,
         "an unloaded library's kernel is refused");
  cudaGetLastError();
  return 0;
}

}  // namespace

int main() {
  const std::string file = ptx_file();
  EXPECT(!file.empty(), "the PTX written to a file");
  cudaLibrary_t lib = nullptr, from_file = nullptr;
  EXPECT(cudaLibraryLoadData(&lib, kSaxpyPtx, nullptr, nullptr, 0, nullptr, nullptr, 0) == cudaSuccess && lib,
         "cudaLibraryLoadData of PTX");
  unsigned count = 0;
  EXPECT(cudaLibraryLoadFromFile(&from_file, file.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0) == cudaSuccess &&
             from_file && from_file != lib && cudaLibraryGetKernelCount(&count, from_file) == cudaSuccess && count == 2 &&
             cudaLibraryUnload(from_file) == cudaSuccess,
         "cudaLibraryLoadFromFile: its kernels, then unloaded");
  cudaKernel_t saxpy = nullptr;
  int failed = kernels(lib) || launch_and_attributes(lib) || globals(lib) || options(file) || driver(lib, file) ||
               cudaLibraryGetKernel(&saxpy, lib, "saxpy") != cudaSuccess || unloaded(lib, saxpy);
  unlink(file.c_str());
  if (failed) return 1;
  std::printf("ok: library_tour\n");
  return 0;
}
