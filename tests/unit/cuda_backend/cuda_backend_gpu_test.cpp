// The cuda backend on a real GPU. Hidden from the default run (no GPU in CI); on a GPU host run
// `unit_cuda_backend "[gpu]"`. RGPU_TEST_FATBIN may name a fatbin of test_kernels.cu built for
// this GPU (its `add` kernel and `gvar` variable are loaded from it too), and
// RGPU_TEST_FATBIN_OTHER_ARCH one built only for another GPU (SASS, no PTX).
#include <catch2/catch.hpp>

#include <stdio.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "server/backends/backend.h"
#include "gen/cudart/cudart_api.h"

using namespace rgpu::server;
using rgpu::gen::cudart::Api;

namespace {

// nvcc -ptx -arch=compute_75 of test_kernels.cu (add, coop, hello), merged into one module.
const char kTestPtx[] = R"PTX(
.version 9.0
.target sm_75
.address_size 64

.global .align 4 .b8 gvar[16];
.const .align 4 .b8 cvar[32];

.visible .entry add(
	.param .u64 add_param_0,
	.param .u32 add_param_1,
	.param .align 8 .b8 add_param_2[24]
)
{
	.reg .pred 	%p<2>;
	.reg .b16 	%rs<10>;
	.reg .b32 	%r<10>;
	.reg .f64 	%fd<2>;
	.reg .b64 	%rd<5>;


	ld.param.u64 	%rd1, [add_param_0];
	ld.param.u32 	%r2, [add_param_1];
	ld.param.u32 	%r3, [add_param_2+16];
	mov.u32 	%r4, %ctaid.x;
	mov.u32 	%r5, %ntid.x;
	mov.u32 	%r6, %tid.x;
	mad.lo.s32 	%r1, %r4, %r5, %r6;
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_2;

	add.s32 	%r7, %r3, %r2;
	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.s32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	ld.global.u32 	%r8, [%rd4];
	add.s32 	%r9, %r7, %r8;
	st.global.u32 	[%rd4], %r9;

$L__BB0_2:
	ret;

}
	// .globl	_Z4coopPf
.visible .entry _Z4coopPf(
	.param .u64 _Z4coopPf_param_0
)
{
	.reg .f32 	%f<4>;
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<5>;


	ld.param.u64 	%rd1, [_Z4coopPf_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	ld.const.f32 	%f1, [cvar];
	ld.global.u32 	%r1, [gvar];
	cvt.rn.f32.s32 	%f2, %r1;
	add.f32 	%f3, %f1, %f2;
	mov.u32 	%r2, %tid.x;
	mul.wide.u32 	%rd3, %r2, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.f32 	[%rd4], %f3;
	ret;

}


.extern .func  (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
.global .align 1 .b8 $str[23] = {114, 103, 112, 117, 32, 100, 101, 118, 105, 99, 101, 32, 112, 114, 105, 110, 116, 102, 32, 37, 100, 10};

.visible .entry hello(
	.param .u32 hello_param_0
)
{
	.local .align 8 .b8 	__local_depot0[8];
	.reg .b64 	%SP;
	.reg .b64 	%SPL;
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<5>;


	mov.u64 	%SPL, __local_depot0;
	cvta.local.u64 	%SP, %SPL;
	ld.param.u32 	%r1, [hello_param_0];
	add.u64 	%rd1, %SP, 0;
	add.u64 	%rd2, %SPL, 0;
	st.local.u32 	[%rd2], %r1;
	mov.u64 	%rd3, $str;
	cvta.global.u64 	%rd4, %rd3;
	{ // callseq 0, 0
	.reg .b32 temp_param_reg;
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd4;
	.param .b64 param1;
	st.param.b64 	[param1+0], %rd1;
	.param .b32 retval0;
	call.uni (retval0), 
	vprintf, 
	(
	param0, 
	param1
	);
	ld.param.b32 	%r2, [retval0+0];
	} // callseq 0
	ret;

}

)PTX";

struct S {
  char c;
  double d;
  int i;
};

std::span<const uint8_t> bytes_of(const char* text) {
  return {reinterpret_cast<const uint8_t*>(text), std::strlen(text) + 1};
}

std::vector<uint8_t> read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The packed arguments of add(int* p, int n, S s) at the layout the backend returned.
std::vector<uint8_t> pack_add_args(const LoadedFunction& add, int* p, int n, int s_i) {
  std::vector<uint8_t> args(add.params.back().offset + add.params.back().size);
  S s{};
  s.i = s_i;
  std::memcpy(args.data() + add.params[0].offset, &p, sizeof p);
  std::memcpy(args.data() + add.params[1].offset, &n, sizeof n);
  std::memcpy(args.data() + add.params[2].offset, &s, sizeof s);
  return args;
}

// Runs add(p, 32, {.i = 5}) on 32 ints of 1 and checks each became 1 + 32 + 5. With
// `from_new_thread` the launch is made from a fresh thread, which has no current context until
// the backend makes one current (the runtime calls stay on this thread).
void check_add_kernel(Backend& backend, const LoadedFunction& add, const Api& rt, bool from_new_thread = false) {
  constexpr int n = 32;
  int* device = nullptr;
  REQUIRE(rt.cudaMalloc(reinterpret_cast<void**>(&device), n * sizeof(int)) == cudaSuccess);
  std::vector<int> host(n, 1);
  REQUIRE(rt.cudaMemcpy(device, host.data(), n * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
  std::vector<uint8_t> args = pack_add_args(add, device, n, 5);
  LaunchRequest launch;
  launch.function = add.handle;
  launch.block[0] = n;
  launch.args = args;
  launch.params = &add.params;
  int32_t launched = -1;
  if (from_new_thread) {
    std::thread helper([&] { launched = backend.launch(launch); });
    helper.join();
  } else {
    launched = backend.launch(launch);
  }
  REQUIRE(launched == cudaSuccess);
  REQUIRE(rt.cudaMemcpy(host.data(), device, n * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  for (int v : host) CHECK(v == 1 + n + 5);
  rt.cudaFree(device);
}

}  // namespace

TEST_CASE("the cuda backend loads, launches and describes kernels on the GPU", "[.][gpu]") {
  auto backend = make_cuda_backend();
  rgpu::Status status = backend->init();
  INFO(status.to_string());
  REQUIRE(status.is_ok());
  // The generated runtime table, filled by init() from the loaded libcudart.
  const Api& rt = backend->cudart();
  REQUIRE((rt.cudaMalloc && rt.cudaMemcpy && rt.cudaDeviceSynchronize && rt.cudaFree));

  std::vector<DeviceSummary> devices = backend->devices();
  REQUIRE_FALSE(devices.empty());
  CHECK_FALSE(devices[0].name.empty());
  CHECK(devices[0].total_memory > 0);
  uint32_t arch = backend->arch(0);
  CHECK(arch == static_cast<uint32_t>(devices[0].major * 10 + devices[0].minor));
  CHECK(arch >= 75);
  CHECK(backend->arch(1000) == 0);
  WARN(devices[0].name << " sm_" << arch);

  LoadedModule module;
  REQUIRE(backend->load_module(bytes_of(kTestPtx), {"add", "_Z4coopPf", "hello"}, {"gvar", "cvar"}, &module) ==
          cudaSuccess);
  REQUIRE(module.functions.size() == 3);
  REQUIRE(module.variables.size() == 2);
  const LoadedFunction& add = module.functions[0];
  CHECK(add.name == "add");
  REQUIRE(add.params.size() == 3);
  CHECK((add.params[0].offset == 0 && add.params[0].size == 8));
  CHECK((add.params[1].offset == 8 && add.params[1].size == 4));
  CHECK((add.params[2].offset == 16 && add.params[2].size == 24));
  CHECK(module.functions[1].params.size() == 1);
  CHECK(module.variables[0].name == "gvar");
  CHECK(module.variables[0].size == 16);
  CHECK(module.variables[0].address != 0);
  CHECK(module.variables[1].size == 32);

  SECTION("a launch computes the right values") { check_add_kernel(*backend, add, rt); }

  SECTION("a launch from a thread with no current context works") {
    check_add_kernel(*backend, add, rt, /*from_new_thread=*/true);
  }

  SECTION("a cooperative launch runs") {
    float* device = nullptr;
    REQUIRE(rt.cudaMalloc(reinterpret_cast<void**>(&device), 64 * sizeof(float)) == cudaSuccess);
    std::vector<uint8_t> args(8);
    std::memcpy(args.data(), &device, sizeof device);
    LaunchRequest launch;
    launch.function = module.functions[1].handle;
    launch.block[0] = 64;
    launch.cooperative = true;
    launch.args = args;
    launch.params = &module.functions[1].params;
    CHECK(backend->launch(launch) == cudaSuccess);
    CHECK(rt.cudaDeviceSynchronize() == cudaSuccess);
    rt.cudaFree(device);
  }

  SECTION("bad launches get the runtime's errors") {
    std::vector<uint8_t> args = pack_add_args(add, nullptr, 0, 0);
    LaunchRequest launch;
    launch.function = add.handle;
    launch.args = std::span<const uint8_t>(args).first(args.size() - 1);
    launch.params = &add.params;
    CHECK(backend->launch(launch) == cudaErrorInvalidValue);
    launch.args = args;
    launch.block[0] = 4096;
    CHECK(backend->launch(launch) == cudaErrorInvalidConfiguration);
    launch.block[0] = 1;
    launch.grid[0] = 0;
    CHECK(backend->launch(launch) == cudaErrorInvalidConfiguration);
    launch.grid[0] = 1;
    launch.function = nullptr;
    CHECK(backend->launch(launch) == cudaErrorInvalidDeviceFunction);
    CHECK(rt.cudaDeviceSynchronize() == cudaSuccess);
  }

  SECTION("device printf reaches the process's stdout") {
    fflush(stdout);
    int saved = dup(1);
    char path[] = "/tmp/rgpu-printf-XXXXXX";
    int capture = mkstemp(path);
    REQUIRE(capture >= 0);
    dup2(capture, 1);
    std::vector<uint8_t> args(4);
    int value = 4242;
    std::memcpy(args.data(), &value, sizeof value);
    LaunchRequest launch;
    launch.function = module.functions[2].handle;
    launch.args = args;
    launch.params = &module.functions[2].params;
    cudaError_t launched = static_cast<cudaError_t>(backend->launch(launch));
    cudaError_t synced = rt.cudaDeviceSynchronize();
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    close(capture);
    std::vector<uint8_t> text = read_file(path);
    unlink(path);
    CHECK(launched == cudaSuccess);
    CHECK(synced == cudaSuccess);
    CHECK_THAT(std::string(text.begin(), text.end()), Catch::Contains("rgpu device printf 4242"));
  }

  SECTION("attributes and occupancy are read from the driver") {
    cudaFuncAttributes attributes;
    REQUIRE(backend->function_attributes(add.handle, &attributes) == cudaSuccess);
    CHECK(attributes.maxThreadsPerBlock > 0);
    CHECK(attributes.numRegs > 0);
    CHECK(attributes.binaryVersion == static_cast<int>(arch));
    CHECK(attributes.ptxVersion == 75);
    CHECK(backend->set_function_attribute(add.handle, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024) ==
          cudaSuccess);
    REQUIRE(backend->function_attributes(add.handle, &attributes) == cudaSuccess);
    CHECK(attributes.maxDynamicSharedSizeBytes == 64 * 1024);
    CHECK(backend->set_function_attribute(add.handle, 0, 1) == cudaErrorInvalidValue);
    int blocks = 0;
    CHECK(backend->occupancy_max_active_blocks(add.handle, 128, 0, 0, &blocks) == cudaSuccess);
    CHECK(blocks > 0);
  }

  SECTION("device memory in use follows allocations") {
    void* block = nullptr;
    uint64_t before = backend->memory_in_use();
    REQUIRE(rt.cudaMalloc(&block, 256u << 20) == cudaSuccess);
    CHECK(backend->memory_in_use() >= before + (256u << 20));
    rt.cudaFree(block);
  }

  SECTION("missing names and bad images fail with the runtime's errors") {
    LoadedModule other;
    CHECK(backend->load_module(bytes_of(kTestPtx), {"no_such_kernel"}, {}, &other) == cudaErrorInvalidDeviceFunction);
    CHECK(backend->load_module(bytes_of(kTestPtx), {}, {"no_such_variable"}, &other) == cudaErrorSymbolNotFound);
    CHECK(backend->load_module(bytes_of(".version 9.0\n.target sm_75\nthis is not ptx"), {}, {}, &other) ==
          cudaErrorInvalidPtx);
  }

  SECTION("a fatbin for this GPU loads; one for another GPU does not") {
    const char* fatbin_path = std::getenv("RGPU_TEST_FATBIN");
    const char* other_path = std::getenv("RGPU_TEST_FATBIN_OTHER_ARCH");
    if (!fatbin_path || !other_path) {
      WARN("RGPU_TEST_FATBIN / RGPU_TEST_FATBIN_OTHER_ARCH not set: fatbin loading not checked");
      return;
    }
    std::vector<uint8_t> fatbin = read_file(fatbin_path);
    LoadedModule loaded;
    REQUIRE(backend->load_module(fatbin, {"add"}, {"gvar"}, &loaded) == cudaSuccess);
    CHECK(loaded.functions[0].params.size() == 3);
    check_add_kernel(*backend, loaded.functions[0], rt);
    CHECK(backend->unload_module(loaded.handle) == cudaSuccess);
    std::vector<uint8_t> other = read_file(other_path);
    CHECK(backend->load_module(other, {"add"}, {}, &loaded) == cudaErrorNoKernelImageForDevice);
  }

  CHECK(backend->unload_module(module.handle) == cudaSuccess);
}
