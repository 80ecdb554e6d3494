// The driver API through the libcuda.so.1 shim (linked here against the shim, as CI has no real
// libcuda) against `rgpud --emulate` with RGPU_EMULATED_DEVICES=2: initialisation, device queries,
// primary contexts and their link to the runtime's current device, cuGetProcAddress's versioned
// lookups and cudaGetDriverEntryPointByVersion, memory, streams, events, a PTX module loaded and its
// kernel launched (kernelParams and `extra`; the emulated backend checks launches, it does not run
// them) and an unsupported export. Prints "ok: ..." per check and "ok: driver_tour" last.
//
// `driver_tour launches` loads the module and launches its kernel 100 times, then synchronises:
// run with RGPU_STATS=1 its round trips do not depend on the number of launches.
// `driver_tour no_server` expects cuInit to answer CUDA_ERROR_NO_DEVICE.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "saxpy_ptx.h"
#include "tour_checks.h"

namespace {

constexpr int kN = 1000;

int devices_and_errors() {
  EXPECT(cuInit(0) == CUDA_SUCCESS, "cuInit");
  int version = 0;
  EXPECT(cuDriverGetVersion(&version) == CUDA_SUCCESS && version > 0, "cuDriverGetVersion");
  int count = 0;
  EXPECT(cuDeviceGetCount(&count) == CUDA_SUCCESS && count == 2, "cuDeviceGetCount is the server's");
  CUdevice dev = -1;
  EXPECT(cuDeviceGet(&dev, 1) == CUDA_SUCCESS && dev == 1, "cuDeviceGet");
  EXPECT(cuDeviceGet(&dev, 2) == CUDA_ERROR_INVALID_DEVICE, "cuDeviceGet past the last device");
  cudaDeviceProp prop{};
  EXPECT(cudaGetDeviceProperties(&prop, 0) == cudaSuccess, "cudaGetDeviceProperties");
  char name[256] = {};
  EXPECT(cuDeviceGetName(name, sizeof name, 0) == CUDA_SUCCESS && std::strcmp(name, prop.name) == 0,
         "cuDeviceGetName is the runtime's name");
  int sms = 0;
  EXPECT(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0) == CUDA_SUCCESS &&
             sms == prop.multiProcessorCount,
         "cuDeviceGetAttribute");
  size_t total = 0;
  EXPECT(cuDeviceTotalMem(&total, 0) == CUDA_SUCCESS && total == prop.totalGlobalMem, "cuDeviceTotalMem");
  int major = 0, minor = 0;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // torch still asks it
  EXPECT(cuDeviceComputeCapability(&major, &minor, 0) == CUDA_SUCCESS && major == prop.major && minor == prop.minor,
         "cuDeviceComputeCapability");
#pragma GCC diagnostic pop
  CUuuid uuid{};
  EXPECT(cuDeviceGetUuid(&uuid, 0) == CUDA_SUCCESS && std::memcmp(&uuid, &prop.uuid, sizeof uuid) == 0,
         "cuDeviceGetUuid");

  const char* text = nullptr;
  EXPECT(cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &text) == CUDA_SUCCESS &&
             std::strcmp(text, "CUDA_ERROR_INVALID_VALUE") == 0,
         "cuGetErrorName");
  EXPECT(cuGetErrorName(static_cast<CUresult>(12345), &text) == CUDA_ERROR_INVALID_VALUE && !text,
         "cuGetErrorName of no error");
  EXPECT(cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &text) == CUDA_SUCCESS && text && *text, "cuGetErrorString");
  return 0;
}

int contexts() {
  unsigned flags = 1;
  int active = 1;
  EXPECT(cuDevicePrimaryCtxGetState(0, &flags, &active) == CUDA_SUCCESS && !active && flags == 0,
         "a device nothing ran on has no active primary context");
  CUcontext current = reinterpret_cast<CUcontext>(1);
  EXPECT(cuCtxGetCurrent(&current) == CUDA_SUCCESS && !current, "no current context before any use");
  CUcontext ctx0 = nullptr, ctx1 = nullptr;
  EXPECT(cuDevicePrimaryCtxRetain(&ctx0, 0) == CUDA_SUCCESS && ctx0, "cuDevicePrimaryCtxRetain");
  EXPECT(cuDevicePrimaryCtxGetState(0, &flags, &active) == CUDA_SUCCESS && active, "a retained context is active");
  EXPECT(cuCtxSetCurrent(ctx0) == CUDA_SUCCESS, "cuCtxSetCurrent");
  EXPECT(cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == ctx0, "cuCtxGetCurrent");
  CUdevice dev = -1;
  EXPECT(cuCtxGetDevice(&dev) == CUDA_SUCCESS && dev == 0, "cuCtxGetDevice");

  // The runtime's use of device 1 makes its primary context active, as on a real driver.
  EXPECT(cuDevicePrimaryCtxGetState(1, &flags, &active) == CUDA_SUCCESS && !active, "device 1 unused so far");
  void* p = nullptr;
  EXPECT(cudaSetDevice(1) == cudaSuccess && cudaMalloc(&p, 256) == cudaSuccess && cudaFree(p) == cudaSuccess &&
             cudaSetDevice(0) == cudaSuccess,
         "the runtime uses device 1");
  EXPECT(cuDevicePrimaryCtxGetState(1, &flags, &active) == CUDA_SUCCESS && active,
         "cuDevicePrimaryCtxGetState: active once the runtime used the device");

  EXPECT(cuDevicePrimaryCtxRetain(&ctx1, 1) == CUDA_SUCCESS && ctx1 && ctx1 != ctx0, "one context per device");
  EXPECT(cuCtxPushCurrent(ctx1) == CUDA_SUCCESS, "cuCtxPushCurrent");
  int rt_device = -1;
  EXPECT(cudaGetDevice(&rt_device) == cudaSuccess && rt_device == 1, "the pushed context is the runtime's device");
  CUcontext popped = nullptr;
  EXPECT(cuCtxPopCurrent(&popped) == CUDA_SUCCESS && popped == ctx1, "cuCtxPopCurrent");
  EXPECT(cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == ctx0 && cudaGetDevice(&rt_device) == cudaSuccess &&
             rt_device == 0,
         "popping restores the context below");
  unsigned api = 0;
  EXPECT(cuCtxGetApiVersion(ctx0, &api) == CUDA_SUCCESS && api >= 3020, "cuCtxGetApiVersion");
  EXPECT(cuCtxSetCurrent(nullptr) == CUDA_SUCCESS && cuCtxGetCurrent(&current) == CUDA_SUCCESS && !current &&
             cuCtxGetDevice(&dev) == CUDA_ERROR_INVALID_CONTEXT,
         "cuCtxSetCurrent(NULL): no current context");
  EXPECT(cuCtxSetCurrent(ctx0) == CUDA_SUCCESS, "cuCtxSetCurrent again");
  EXPECT(cuDevicePrimaryCtxRelease(1) == CUDA_SUCCESS, "cuDevicePrimaryCtxRelease");
  return 0;
}

int proc_addresses() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  EXPECT(lib, "libcuda.so.1 is loaded");
  void* fn = nullptr;
  CUdriverProcAddressQueryResult found{};
  EXPECT(cuGetProcAddress("cuMemAlloc", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &found) == CUDA_SUCCESS &&
             found == CU_GET_PROC_ADDRESS_SUCCESS && fn == dlsym(lib, "cuMemAlloc_v2"),
         "cuGetProcAddress cuMemAlloc at 12000 is cuMemAlloc_v2");
  EXPECT(cuGetProcAddress("cuMemAlloc", &fn, 3000, CU_GET_PROC_ADDRESS_DEFAULT, &found) == CUDA_SUCCESS &&
             fn == dlsym(lib, "cuMemAlloc"),
         "cuGetProcAddress cuMemAlloc at 3000 is the old cuMemAlloc");
  EXPECT(cuGetProcAddress("cuMemAlloc", &fn, 1000, CU_GET_PROC_ADDRESS_DEFAULT, &found) == CUDA_SUCCESS &&
             found == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT && !fn,
         "cuGetProcAddress before a function existed");
  EXPECT(cuGetProcAddress("cuMemcpyHtoD", &fn, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &found) ==
                 CUDA_SUCCESS &&
             fn == dlsym(lib, "cuMemcpyHtoD_v2_ptds"),
         "cuGetProcAddress per thread: cuMemcpyHtoD_v2_ptds");
  EXPECT(cuGetProcAddress("cuLaunchKernel", &fn, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &found) ==
                 CUDA_SUCCESS &&
             fn == dlsym(lib, "cuLaunchKernel_ptsz"),
         "cuGetProcAddress per thread: cuLaunchKernel_ptsz");
  EXPECT(cuGetProcAddress("cuInit", &fn, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &found) ==
                 CUDA_SUCCESS &&
             fn == dlsym(lib, "cuInit"),
         "cuGetProcAddress per thread without a per-thread variant");
  EXPECT(cuGetProcAddress("cuNoSuchFunction", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &found) == CUDA_SUCCESS &&
             found == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND && !fn,
         "cuGetProcAddress of an unknown name");
  cudaDriverEntryPointQueryResult q{};
  EXPECT(cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, 12000, cudaEnableDefault, &q) == cudaSuccess &&
             q == cudaDriverEntryPointSuccess && fn == dlsym(lib, "cuMemAlloc_v2"),
         "cudaGetDriverEntryPointByVersion answers with the shim's entry points");
  EXPECT(cudaGetDriverEntryPointByVersion("cuNoSuchFunction", &fn, 12000, cudaEnableDefault, &q) == cudaSuccess &&
             q == cudaDriverEntryPointSymbolNotFound && !fn,
         "cudaGetDriverEntryPointByVersion of an unknown name");
  dlclose(lib);
  return 0;
}

int memory_streams_events() {
  std::vector<unsigned char> host(4096), back(4096);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<unsigned char>(i * 7);
  CUdeviceptr a = 0, b = 0;
  EXPECT(cuMemAlloc(&a, host.size()) == CUDA_SUCCESS && cuMemAlloc(&b, host.size()) == CUDA_SUCCESS,
         "cuMemAlloc");
  EXPECT(cuMemcpyHtoD(a, host.data(), host.size()) == CUDA_SUCCESS && cuMemcpyDtoD(b, a, host.size()) == CUDA_SUCCESS &&
             cuMemcpyDtoH(back.data(), b, back.size()) == CUDA_SUCCESS && back == host,
         "cuMemcpyHtoD, DtoD, DtoH");
  EXPECT(cuMemsetD8(b, 0xAB, 16) == CUDA_SUCCESS && cuMemcpyDtoH(back.data(), b, 16) == CUDA_SUCCESS &&
             back[0] == 0xAB && back[15] == 0xAB && back[16] == host[16],
         "cuMemsetD8");
  EXPECT(cuMemsetD32(b, 0x01010101u, 4) == CUDA_SUCCESS, "cuMemsetD32 of a byte pattern");
  unsigned words[5] = {};
  EXPECT(cuMemsetD32(b, 0x12345678u, 4) == CUDA_SUCCESS && cuMemcpyDtoH(words, b, sizeof words) == CUDA_SUCCESS &&
             words[0] == 0x12345678u && words[3] == 0x12345678u && std::memcmp(&words[4], &host[16], 4) == 0,
         "cuMemsetD32 of any pattern");
  unsigned short halves[3] = {};
  EXPECT(cuMemsetD16(b, 0xBEEF, 2) == CUDA_SUCCESS && cuMemcpyDtoH(halves, b, sizeof halves) == CUDA_SUCCESS &&
             halves[0] == 0xBEEF && halves[1] == 0xBEEF && halves[2] == 0x5678,
         "cuMemsetD16 of any pattern");
  size_t free = 0, total = 0;
  EXPECT(cuMemGetInfo(&free, &total) == CUDA_SUCCESS && free <= total && total > 0, "cuMemGetInfo");
  CUdeviceptr base = 0;
  size_t size = 0;
  EXPECT(cuMemGetAddressRange(&base, &size, a + 100) == CUDA_SUCCESS && base == a && size >= host.size(),
         "cuMemGetAddressRange");
  unsigned type = 0;
  CUcontext owner = nullptr, ctx0 = nullptr;
  EXPECT(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a) == CUDA_SUCCESS &&
             type == CU_MEMORYTYPE_DEVICE,
         "cuPointerGetAttribute memory type");
  EXPECT(cuDevicePrimaryCtxRetain(&ctx0, 0) == CUDA_SUCCESS &&
             cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, a) == CUDA_SUCCESS && owner == ctx0,
         "cuPointerGetAttribute context");
  CUdeviceptr same = 0;
  EXPECT(cuPointerGetAttribute(&same, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, a + 8) == CUDA_SUCCESS && same == a + 8,
         "cuPointerGetAttribute device pointer");

  CUstream stream = nullptr;
  CUevent start = nullptr, stop = nullptr;
  EXPECT(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS && stream, "cuStreamCreate");
  unsigned stream_flags = 0;
  CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_ACTIVE;
  EXPECT(cuStreamGetFlags(stream, &stream_flags) == CUDA_SUCCESS && stream_flags == CU_STREAM_NON_BLOCKING &&
             cuStreamIsCapturing(stream, &capturing) == CUDA_SUCCESS && capturing == CU_STREAM_CAPTURE_STATUS_NONE,
         "cuStreamGetFlags, cuStreamIsCapturing");
  EXPECT(cuEventCreate(&start, CU_EVENT_DEFAULT) == CUDA_SUCCESS && cuEventCreate(&stop, CU_EVENT_DEFAULT) == CUDA_SUCCESS,
         "cuEventCreate");
  std::fill(back.begin(), back.end(), 0);
  EXPECT(cuEventRecord(start, stream) == CUDA_SUCCESS &&
             cuMemcpyHtoDAsync(b, host.data(), host.size(), stream) == CUDA_SUCCESS &&
             cuMemsetD8Async(b, 0x11, 8, stream) == CUDA_SUCCESS &&
             cuMemcpyDtoHAsync(back.data(), b, back.size(), stream) == CUDA_SUCCESS &&
             cuEventRecord(stop, stream) == CUDA_SUCCESS,
         "async copies and records on a stream");
  EXPECT(cuStreamWaitEvent(nullptr, stop, 0) == CUDA_SUCCESS, "cuStreamWaitEvent");
  EXPECT(cuEventSynchronize(stop) == CUDA_SUCCESS && cuEventQuery(stop) == CUDA_SUCCESS, "cuEventSynchronize");
  int host_func_ran = 0, callback_ran = 0;
  CUdeviceptr temp = 0;
  EXPECT(cuMemAllocAsync(&temp, 1024, stream) == CUDA_SUCCESS && temp &&
             cuMemsetD8Async(temp, 0, 1024, stream) == CUDA_SUCCESS && cuMemFreeAsync(temp, stream) == CUDA_SUCCESS,
         "cuMemAllocAsync, cuMemFreeAsync");
  EXPECT(cuLaunchHostFunc(stream, [](void* p) { *static_cast<int*>(p) = 1; }, &host_func_ran) == CUDA_SUCCESS &&
             cuStreamAddCallback(stream, [](CUstream, CUresult status, void* p) {
               *static_cast<int*>(p) = status == CUDA_SUCCESS ? 1 : 2;
             }, &callback_ran, 0) == CUDA_SUCCESS,
         "cuLaunchHostFunc, cuStreamAddCallback");
  EXPECT(cuStreamSynchronize(stream) == CUDA_SUCCESS && cuStreamQuery(stream) == CUDA_SUCCESS &&
             back[0] == 0x11 && back[7] == 0x11 && back[8] == host[8] && back[4095] == host[4095],
         "cuStreamSynchronize: the stream's copies in order");
  EXPECT(host_func_ran == 1 && callback_ran == 1, "the host function and the callback ran, in stream order");
  void* pinned = nullptr;
  unsigned pinned_type = 0;
  EXPECT(cuMemHostAlloc(&pinned, 4096, CU_MEMHOSTALLOC_PORTABLE) == CUDA_SUCCESS && pinned &&
             cuPointerGetAttribute(&pinned_type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                   reinterpret_cast<CUdeviceptr>(pinned)) == CUDA_SUCCESS &&
             pinned_type == CU_MEMORYTYPE_HOST && cuMemFreeHost(pinned) == CUDA_SUCCESS,
         "cuMemHostAlloc: pinned host memory");
  std::vector<unsigned char> registered(8192);
  EXPECT(cuMemHostRegister(registered.data(), registered.size(), 0) == CUDA_SUCCESS &&
             cuMemHostUnregister(registered.data()) == CUDA_SUCCESS,
         "cuMemHostRegister, cuMemHostUnregister");
  float ms = -1;
  EXPECT(cuEventElapsedTime(&ms, start, stop) == CUDA_SUCCESS && ms >= 0, "cuEventElapsedTime");
  EXPECT(cuEventDestroy(start) == CUDA_SUCCESS && cuEventDestroy(stop) == CUDA_SUCCESS &&
             cuStreamDestroy(stream) == CUDA_SUCCESS,
         "cuEventDestroy, cuStreamDestroy");
  EXPECT(cuMemFree(a) == CUDA_SUCCESS && cuMemFree(b) == CUDA_SUCCESS, "cuMemFree");
  cuDevicePrimaryCtxRelease(0);
  return 0;
}

int module_and_launch() {
  CUmodule module = nullptr;
  EXPECT(cuModuleLoadData(&module, kSaxpyPtx) == CUDA_SUCCESS && module, "cuModuleLoadData of PTX");
  CUfunction saxpy = nullptr, none = nullptr;
  EXPECT(cuModuleGetFunction(&saxpy, module, "saxpy") == CUDA_SUCCESS && saxpy, "cuModuleGetFunction");
  EXPECT(cuModuleGetFunction(&none, module, "nope") == CUDA_ERROR_NOT_FOUND, "cuModuleGetFunction of no kernel");
  int threads = 0;
  EXPECT(cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, saxpy) == CUDA_SUCCESS && threads > 0,
         "cuFuncGetAttribute");
  size_t offset = 0, size = 0;
  EXPECT(cuFuncGetParamInfo(saxpy, 1, &offset, &size) == CUDA_SUCCESS && offset == 8 && size == 8 &&
             cuFuncGetParamInfo(saxpy, 4, &offset, &size) == CUDA_ERROR_INVALID_VALUE,
         "cuFuncGetParamInfo: the layout the load returned");
  const char* kernel_name = nullptr;
  EXPECT(cuFuncGetName(&kernel_name, saxpy) == CUDA_SUCCESS && std::strcmp(kernel_name, "saxpy") == 0, "cuFuncGetName");
  CUdeviceptr counter = 0, again = 0;
  size_t counter_size = 0;
  unsigned counter_value = 0;
  EXPECT(cuModuleGetGlobal(&counter, &counter_size, module, "counter") == CUDA_SUCCESS && counter &&
             counter_size == 4 && cuMemcpyDtoH(&counter_value, counter, 4) == CUDA_SUCCESS && counter_value == 7,
         "cuModuleGetGlobal: the variable with its initial value");
  EXPECT(cuModuleGetGlobal(&again, nullptr, module, "counter") == CUDA_SUCCESS && again == counter,
         "cuModuleGetGlobal again: the same variable");
  EXPECT(cuModuleGetGlobal(&again, nullptr, module, "nope") == CUDA_ERROR_NOT_FOUND, "cuModuleGetGlobal of no variable");
  CUdeviceptr x = 0, y = 0;
  EXPECT(cuMemAlloc(&x, kN * sizeof(float)) == CUDA_SUCCESS && cuMemAlloc(&y, kN * sizeof(float)) == CUDA_SUCCESS,
         "buffers");
  float a = 2.0f;
  int n = kN;
  void* params[] = {&a, &x, &y, &n};
  EXPECT(cuLaunchKernel(saxpy, (kN + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr) == CUDA_SUCCESS,
         "cuLaunchKernel with kernelParams");
  struct {
    float a;
    int pad;
    CUdeviceptr x, y;
    int n;
  } packed{a, 0, x, y, n};
  size_t packed_size = 28;  // the layout: a at 0, x at 8, y at 16, n at 24
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &packed_size,
                   CU_LAUNCH_PARAM_END};
  EXPECT(cuLaunchKernel(saxpy, (kN + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, nullptr, extra) == CUDA_SUCCESS,
         "cuLaunchKernel with extra");
  size_t short_size = 20;
  void* short_extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &short_size,
                         CU_LAUNCH_PARAM_END};
  EXPECT(cuLaunchKernel(saxpy, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, short_extra) == CUDA_ERROR_INVALID_VALUE,
         "cuLaunchKernel with a short argument buffer");
  EXPECT(cuCtxSynchronize() == CUDA_SUCCESS, "cuCtxSynchronize after the launches");
  EXPECT(cuModuleUnload(module) == CUDA_SUCCESS, "cuModuleUnload");
  EXPECT(cuLaunchKernel(saxpy, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr) == CUDA_ERROR_INVALID_HANDLE,
         "a kernel of an unloaded module is refused");
  EXPECT(cuModuleLoadData(&module, "not a module") == CUDA_ERROR_INVALID_IMAGE, "cuModuleLoadData of junk");
  CUarray array = nullptr;
  CUDA_ARRAY_DESCRIPTOR desc{};
  EXPECT(cuArrayCreate(&array, &desc) == CUDA_ERROR_NOT_SUPPORTED, "an unsupported export says so");
  cuMemFree(x);
  cuMemFree(y);
  return 0;
}

// 100 launches and one synchronisation: the launches cost no round trip.
int launches() {
  if (cuInit(0) != CUDA_SUCCESS) return 1;
  CUmodule module = nullptr;
  CUfunction saxpy = nullptr;
  CUdeviceptr x = 0, y = 0;
  if (cuModuleLoadData(&module, kSaxpyPtx) != CUDA_SUCCESS || cuModuleGetFunction(&saxpy, module, "saxpy") != CUDA_SUCCESS ||
      cuMemAlloc(&x, kN * sizeof(float)) != CUDA_SUCCESS || cuMemAlloc(&y, kN * sizeof(float)) != CUDA_SUCCESS)
    return 1;
  float a = 2.0f;
  int n = kN;
  void* params[] = {&a, &x, &y, &n};
  for (int i = 0; i < 100; ++i)
    if (cuLaunchKernel(saxpy, (kN + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr) != CUDA_SUCCESS) return 1;
  if (cuCtxSynchronize() != CUDA_SUCCESS) return 1;
  std::printf("ok: driver_tour launches\n");
  return 0;
}

// A context pushed and popped and a kernel launched with `extra` by a static destructor, as a
// library's cleanup may do: by then the main thread's thread_locals are gone (the client's
// context stack was one). Any failure ends the program with status 3.
struct WorkAtExit {
  bool armed = false;
  ~WorkAtExit() {
    if (!armed) return;
    CUcontext ctx = nullptr, popped = nullptr;
    CUmodule module = nullptr;
    CUfunction saxpy = nullptr;
    CUdeviceptr x = 0, y = 0;
    if (cuDevicePrimaryCtxRetain(&ctx, 0) != CUDA_SUCCESS || cuCtxPushCurrent(ctx) != CUDA_SUCCESS ||
        cuModuleLoadData(&module, kSaxpyPtx) != CUDA_SUCCESS || cuModuleGetFunction(&saxpy, module, "saxpy") != CUDA_SUCCESS ||
        cuMemAlloc(&x, kN * sizeof(float)) != CUDA_SUCCESS || cuMemAlloc(&y, kN * sizeof(float)) != CUDA_SUCCESS)
      _exit(3);
    struct {
      float a;
      int pad;
      CUdeviceptr x, y;
      int n;
    } packed{2.0f, 0, x, y, kN};
    size_t packed_size = 28;
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &packed_size,
                     CU_LAUNCH_PARAM_END};
    if (cuLaunchKernel(saxpy, (kN + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, nullptr, extra) != CUDA_SUCCESS ||
        cuCtxSynchronize() != CUDA_SUCCESS || cuMemFree(x) != CUDA_SUCCESS || cuMemFree(y) != CUDA_SUCCESS ||
        cuModuleUnload(module) != CUDA_SUCCESS || cuCtxPopCurrent(&popped) != CUDA_SUCCESS || popped != ctx ||
        cuDevicePrimaryCtxRelease(0) != CUDA_SUCCESS)
      _exit(3);
    std::printf("ok: a context pushed and popped, a kernel launched with extra at exit\n");
  }
} g_work_at_exit;

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "launches") == 0) return launches();
  if (argc > 1 && std::strcmp(argv[1], "no_server") == 0) {
    EXPECT(cuInit(0) == CUDA_ERROR_NO_DEVICE, "cuInit without a server: CUDA_ERROR_NO_DEVICE");
    return 0;
  }
  if (devices_and_errors() || contexts() || proc_addresses() || memory_streams_events() || module_and_launch()) return 1;
  g_work_at_exit.armed = true;
  std::printf("ok: driver_tour\n");
  return 0;
}
