// GPU suite: the runtime's library API. A PTX library (two kernels, two variables) loaded with
// cudaLibraryLoadData and cudaLibraryLoadFromFile, its kernels counted, enumerated and named, one
// launched through cudaLaunchKernel and cudaLaunchKernelExC as a cudaKernel_t, its attributes read
// and set (cudaFuncSetAttribute, cudaKernelSetAttributeForDevice on the current device), a
// variable read and written through cudaLibraryGetGlobal, a launch counter read back, then unloaded.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "suite_check.h"

namespace {

// nvcc -ptx -arch=compute_75 of:
//   __device__ int bias = 5;
//   __device__ unsigned launches = 0;
//   extern "C" __global__ void affine(int* out, int a, int n) { i < n: out[i] = a * i + bias; }
//   extern "C" __global__ void bump() { atomicAdd(&launches, 1u); }
const char kLibraryPtx[] = R"(
.version 9.0
.target sm_75
.address_size 64

.global .align 4 .u32 bias = 5;
.global .align 4 .u32 launches;

.visible .entry affine(
	.param .u64 affine_param_0,
	.param .u32 affine_param_1,
	.param .u32 affine_param_2
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<9>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [affine_param_0];
	ld.param.u32 	%r2, [affine_param_1];
	ld.param.u32 	%r3, [affine_param_2];
	mov.u32 	%r4, %ctaid.x;
	mov.u32 	%r5, %ntid.x;
	mov.u32 	%r6, %tid.x;
	mad.lo.s32 	%r1, %r4, %r5, %r6;
	setp.ge.s32 	%p1, %r1, %r3;
	@%p1 bra 	$L__BB0_2;
	cvta.to.global.u64 	%rd2, %rd1;
	ld.global.u32 	%r7, [bias];
	mad.lo.s32 	%r8, %r1, %r2, %r7;
	mul.wide.s32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.u32 	[%rd4], %r8;
$L__BB0_2:
	ret;
}

.visible .entry bump()
{
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<2>;

	mov.u64 	%rd1, launches;
	atom.global.add.u32 	%r1, [%rd1], 1;
	ret;
}
)";

constexpr int kN = 1000;
constexpr int kThreads = 256;

bool affine_is(const std::vector<int>& got, int a, int bias) {
  for (int i = 0; i < kN; ++i)
    if (got[i] != a * i + bias) return false;
  return true;
}

// The PTX in a file of its own (removed by the caller); "" when it cannot be written.
std::string ptx_file() {
  char path[] = "/tmp/42_library.XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return "";
  bool written = write(fd, kLibraryPtx, sizeof kLibraryPtx - 1) == static_cast<ssize_t>(sizeof kLibraryPtx - 1);
  close(fd);
  return written ? path : "";
}

}  // namespace

int main() {
  int device = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  cudaLibrary_t lib = nullptr;
  CHECK_CUDA(cudaLibraryLoadData(&lib, kLibraryPtx, nullptr, nullptr, 0, nullptr, nullptr, 0));

  unsigned count = 0;
  CHECK_CUDA(cudaLibraryGetKernelCount(&count, lib));
  say("kernels in the library: %u\n", count);
  std::vector<cudaKernel_t> kernels(count);
  CHECK_CUDA(cudaLibraryEnumerateKernels(kernels.data(), count, lib));
  std::vector<std::string> names;
  for (cudaKernel_t k : kernels) {
    const char* name = nullptr;
    CHECK_CUDA(cudaFuncGetName(&name, reinterpret_cast<const void*>(k)));
    names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) say("kernel: %s\n", name.c_str());

  cudaKernel_t affine = nullptr, bump = nullptr, none = nullptr;
  CHECK_CUDA(cudaLibraryGetKernel(&affine, lib, "affine"));
  CHECK_CUDA(cudaLibraryGetKernel(&bump, lib, "bump"));
  expect(cudaLibraryGetKernel(&none, lib, "nope") == cudaErrorSymbolNotFound, "a missing kernel is not found");
  (void)cudaGetLastError();
  expect(std::find(kernels.begin(), kernels.end(), affine) != kernels.end(), "the kernel looked up was enumerated");

  const void* affine_func = reinterpret_cast<const void*>(affine);
  cudaFuncAttributes attrs{};
  CHECK_CUDA(cudaFuncGetAttributes(&attrs, affine_func));
  expect(attrs.maxThreadsPerBlock >= kThreads, "the kernel takes 256 threads a block");
  CHECK_CUDA(cudaFuncSetAttribute(affine_func, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024));
  CHECK_CUDA(cudaKernelSetAttributeForDevice(affine, cudaFuncAttributeMaxDynamicSharedMemorySize, 2048, device));
  CHECK_CUDA(cudaFuncGetAttributes(&attrs, affine_func));
  say("dynamic shared memory allowed after the setters: %d bytes\n", attrs.maxDynamicSharedSizeBytes);

  int* bias = nullptr;
  size_t bias_size = 0;
  CHECK_CUDA(cudaLibraryGetGlobal(reinterpret_cast<void**>(&bias), &bias_size, lib, "bias"));
  int bias_value = 0;
  CHECK_CUDA(cudaMemcpy(&bias_value, bias, sizeof bias_value, cudaMemcpyDeviceToHost));
  say("bias: %d (%zu bytes)\n", bias_value, bias_size);

  int* out = nullptr;
  CHECK_CUDA(cudaMalloc(&out, kN * sizeof(int)));
  int a = 3, n = kN;
  void* args[] = {&out, &a, &n};
  CHECK_CUDA(cudaLaunchKernel(affine_func, dim3((kN + kThreads - 1) / kThreads), dim3(kThreads), args, 0, nullptr));
  expect(affine_is(to_host(out, kN), 3, 5), "cudaLaunchKernel of the library kernel: out[i] = 3i + 5");

  bias_value = 11;
  CHECK_CUDA(cudaMemcpy(bias, &bias_value, sizeof bias_value, cudaMemcpyHostToDevice));
  a = 7;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3((kN + kThreads - 1) / kThreads);
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = 2048;
  CHECK_CUDA(cudaLaunchKernelExC(&config, affine_func, args));
  expect(affine_is(to_host(out, kN), 7, 11), "cudaLaunchKernelExC after the variable was written: out[i] = 7i + 11");

  for (int i = 0; i < 3; ++i)
    CHECK_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(bump), dim3(2), dim3(32), nullptr, 0, nullptr));
  unsigned* launches = nullptr;
  CHECK_CUDA(cudaLibraryGetGlobal(reinterpret_cast<void**>(&launches), nullptr, lib, "launches"));
  unsigned launches_value = 0;
  CHECK_CUDA(cudaMemcpy(&launches_value, launches, sizeof launches_value, cudaMemcpyDeviceToHost));
  say("bump threads counted: %u\n", launches_value);
  CHECK_CUDA(cudaFree(out));
  CHECK_CUDA(cudaLibraryUnload(lib));

  const std::string file = ptx_file();
  expect(!file.empty(), "the PTX written to a file");
  cudaLibrary_t from_file = nullptr;
  CHECK_CUDA(cudaLibraryLoadFromFile(&from_file, file.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  unlink(file.c_str());
  CHECK_CUDA(cudaLibraryGetKernelCount(&count, from_file));
  say("kernels in the library loaded from a file: %u\n", count);
  CHECK_CUDA(cudaLibraryUnload(from_file));
  return finish("library");
}
