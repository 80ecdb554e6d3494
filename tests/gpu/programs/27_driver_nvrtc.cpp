// The driver API with NVRTC, as PyTorch's jiterator uses them: a saxpy kernel compiled at run time
// (NVRTC runs on the client, it needs no GPU) to PTX and to a cubin for the device's architecture,
// loaded with cuModuleLoadData, found with cuModuleGetFunction and launched with cuLaunchKernel
// (argument pointers, and a packed buffer through `extra`), on the null stream and on a stream.
// cuMemAlloc, cuMemcpyHtoD and cuMemcpyDtoH are called through pointers from cuGetProcAddress and
// cudaGetDriverEntryPointByVersion. Linked with -lcuda (libcuda.so.1: the driver natively, rgpu's
// shim remotely) and -lnvrtc. Integer-valued data: every result must equal the host's exactly.
#include <cuda.h>
#include <nvrtc.h>

#include <cstring>
#include <string>
#include <vector>

#include "suite_check.h"

namespace {

#define CHECK_CU(call) check_cu((call), #call, __LINE__)
void check_cu(CUresult r, const char* call, int line) {
  if (r != CUDA_SUCCESS) {
    const char* name = nullptr;
    cuGetErrorName(r, &name);
    say("FAIL: %s returned %s (line %d)\n", call, name ? name : "?", line);
    exit(1);
  }
}

#define CHECK_NVRTC(call) check_nvrtc((call), #call, __LINE__)
void check_nvrtc(nvrtcResult r, const char* call, int line) {
  if (r != NVRTC_SUCCESS) {
    say("FAIL: %s returned %s (line %d)\n", call, nvrtcGetErrorString(r), line);
    exit(1);
  }
}

const char* kSource = R"(
__device__ unsigned int launches = 100;
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
  if (i == 0) atomicAdd(&launches, 1u);
}
)";

// The module's `launches` counter (100 plus one per launch), read through cuModuleGetGlobal.
unsigned launches_of(CUmodule m) {
  CUdeviceptr p = 0;
  size_t size = 0;
  CHECK_CU(cuModuleGetGlobal(&p, &size, m, "launches"));
  unsigned value = 0;
  CHECK_CU(cuMemcpyDtoH(&value, p, sizeof value));
  return size == sizeof value ? value : 0;
}

constexpr int kN = 100000;

// NVRTC output for `arch` ("compute_90" gives PTX, "sm_90" also a cubin).
std::vector<char> compile(const std::string& arch, bool cubin) {
  nvrtcProgram prog;
  CHECK_NVRTC(nvrtcCreateProgram(&prog, kSource, "saxpy.cu", 0, nullptr, nullptr));
  std::string option = "--gpu-architecture=" + arch;
  const char* options[] = {option.c_str()};
  nvrtcResult r = nvrtcCompileProgram(prog, 1, options);
  if (r != NVRTC_SUCCESS) {
    size_t log_size = 0;
    nvrtcGetProgramLogSize(prog, &log_size);
    std::string log(log_size, '\0');
    nvrtcGetProgramLog(prog, log.data());
    say("FAIL: NVRTC: %s\n", log.c_str());
    exit(1);
  }
  size_t size = 0;
  std::vector<char> out;
  if (cubin) {
    CHECK_NVRTC(nvrtcGetCUBINSize(prog, &size));
    out.resize(size);
    CHECK_NVRTC(nvrtcGetCUBIN(prog, out.data()));
  } else {
    CHECK_NVRTC(nvrtcGetPTXSize(prog, &size));
    out.resize(size);
    CHECK_NVRTC(nvrtcGetPTX(prog, out.data()));
  }
  nvrtcDestroyProgram(&prog);
  return out;
}

using MemAlloc = CUresult (*)(CUdeviceptr*, size_t);
using MemcpyHtoD = CUresult (*)(CUdeviceptr, const void*, size_t);
using MemcpyDtoH = CUresult (*)(void*, CUdeviceptr, size_t);

struct Buffers {
  CUdeviceptr x = 0, y = 0;
};

// y = 3x + y on the device, checked element by element against the host.
bool run_saxpy(CUfunction f, const Buffers& b, MemcpyHtoD htod, MemcpyDtoH dtoh, bool use_extra, CUstream stream) {
  std::vector<float> x(kN), y(kN), out(kN);
  for (int i = 0; i < kN; ++i) {
    x[i] = static_cast<float>(i % 1000);
    y[i] = static_cast<float>(i % 7);
  }
  float a = 3.0f;
  int n = kN;
  unsigned grid = (kN + 255) / 256;
  if (stream) {
    CHECK_CU(cuMemcpyHtoDAsync(b.x, x.data(), kN * sizeof(float), stream));
    CHECK_CU(cuMemcpyHtoDAsync(b.y, y.data(), kN * sizeof(float), stream));
  } else {
    CHECK_CU(htod(b.x, x.data(), kN * sizeof(float)));
    CHECK_CU(htod(b.y, y.data(), kN * sizeof(float)));
  }
  if (use_extra) {
    // The kernel's parameter buffer: a at 0, x at 8, y at 16, n at 24 (the ABI's alignment).
    unsigned char packed[28] = {};
    std::memcpy(packed + 0, &a, sizeof a);
    std::memcpy(packed + 8, &b.x, sizeof b.x);
    std::memcpy(packed + 16, &b.y, sizeof b.y);
    std::memcpy(packed + 24, &n, sizeof n);
    size_t size = sizeof packed;
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    CHECK_CU(cuLaunchKernel(f, grid, 1, 1, 256, 1, 1, 0, stream, nullptr, extra));
  } else {
    CUdeviceptr x_arg = b.x, y_arg = b.y;
    void* params[] = {&a, &x_arg, &y_arg, &n};
    CHECK_CU(cuLaunchKernel(f, grid, 1, 1, 256, 1, 1, 0, stream, params, nullptr));
  }
  if (stream) {
    CHECK_CU(cuMemcpyDtoHAsync(out.data(), b.y, kN * sizeof(float), stream));
    CHECK_CU(cuStreamSynchronize(stream));
  } else {
    CHECK_CU(dtoh(out.data(), b.y, kN * sizeof(float)));
  }
  for (int i = 0; i < kN; ++i)
    if (out[i] != a * x[i] + y[i]) return false;
  return true;
}

}  // namespace

int main() {
  CHECK_CU(cuInit(0));
  CUdevice dev;
  CHECK_CU(cuDeviceGet(&dev, 0));
  int major = 0, minor = 0;
  CHECK_CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  CHECK_CU(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
  CUcontext ctx;
  CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK_CU(cuCtxSetCurrent(ctx));
  unsigned flags = 0;
  int active = 0;
  CHECK_CU(cuDevicePrimaryCtxGetState(dev, &flags, &active));
  expect(active == 1, "primary context active");

  // Entry points through the two lookups a program built for CUDA 12 uses.
  void* fn = nullptr;
  CUdriverProcAddressQueryResult found;
  CHECK_CU(cuGetProcAddress("cuMemAlloc", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &found));
  expect(found == CU_GET_PROC_ADDRESS_SUCCESS && fn, "cuGetProcAddress cuMemAlloc");
  auto mem_alloc = reinterpret_cast<MemAlloc>(fn);
  cudaDriverEntryPointQueryResult q;
  CHECK_CUDA(cudaGetDriverEntryPointByVersion("cuMemcpyHtoD", &fn, 12000, cudaEnableDefault, &q));
  expect(q == cudaDriverEntryPointSuccess && fn, "cudaGetDriverEntryPointByVersion cuMemcpyHtoD");
  auto htod = reinterpret_cast<MemcpyHtoD>(fn);
  CHECK_CUDA(cudaGetDriverEntryPointByVersion("cuMemcpyDtoH", &fn, 12000, cudaEnableDefault, &q));
  auto dtoh = reinterpret_cast<MemcpyDtoH>(fn);
  CHECK_CU(cuGetProcAddress("cuNoSuchFunction", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &found));
  expect(found == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND && !fn, "an unknown name is not found");

  Buffers b;
  CHECK_CU(mem_alloc(&b.x, kN * sizeof(float)));
  CHECK_CU(mem_alloc(&b.y, kN * sizeof(float)));

  std::string arch = std::to_string(major * 10 + minor);
  std::vector<char> ptx = compile("compute_" + arch, false);
  std::vector<char> cubin = compile("sm_" + arch, true);

  CUmodule from_ptx, from_cubin;
  CHECK_CU(cuModuleLoadData(&from_ptx, ptx.data()));
  CHECK_CU(cuModuleLoadData(&from_cubin, cubin.data()));
  CUfunction f_ptx, f_cubin, none;
  CHECK_CU(cuModuleGetFunction(&f_ptx, from_ptx, "saxpy"));
  CHECK_CU(cuModuleGetFunction(&f_cubin, from_cubin, "saxpy"));
  expect(cuModuleGetFunction(&none, from_ptx, "nope") == CUDA_ERROR_NOT_FOUND, "a missing kernel is not found");
  int threads = 0;
  CHECK_CU(cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f_cubin));
  expect(threads >= 256, "max threads per block at least 256");

  expect(run_saxpy(f_ptx, b, htod, dtoh, false, nullptr), "PTX kernel, kernelParams");
  expect(run_saxpy(f_ptx, b, htod, dtoh, true, nullptr), "PTX kernel, extra");
  expect(run_saxpy(f_cubin, b, htod, dtoh, false, nullptr), "cubin kernel, kernelParams");
  CUstream stream;
  CHECK_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  expect(run_saxpy(f_cubin, b, htod, dtoh, true, stream), "cubin kernel, extra, on a stream");
  CHECK_CU(cuStreamDestroy(stream));
  CHECK_CU(cuCtxSynchronize());
  // A 32-bit pattern whose bytes differ (remotely: four strided byte memsets).
  CHECK_CU(cuMemsetD32(b.y, 0x40490FDBu, kN));
  std::vector<unsigned> words(kN);
  CHECK_CU(cuMemcpyDtoH(words.data(), b.y, kN * sizeof(unsigned)));
  bool all = true;
  for (unsigned w : words) all = all && w == 0x40490FDBu;
  expect(all, "cuMemsetD32 of a float pattern");
  say("launches counted by the PTX module: %u\n", launches_of(from_ptx));
  say("launches counted by the cubin module: %u\n", launches_of(from_cubin));

  CHECK_CU(cuModuleUnload(from_ptx));
  CHECK_CU(cuModuleUnload(from_cubin));
  CHECK_CU(cuMemFree(b.x));
  CHECK_CU(cuMemFree(b.y));
  CHECK_CU(cuDevicePrimaryCtxRelease(dev));
  return finish("27_driver_nvrtc");
}
