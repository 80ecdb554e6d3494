// Emulated Backend: module loading of real nvcc output, launch validation and recording,
// function attributes, occupancy, and the cudart() table.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "server/backends/emulated/emulated_backend.h"
#include "tests/unit/emulated/emulated_test_env.h"

namespace emu = rgpu::server::emulated;
using rgpu::server::KernelParam;
using rgpu::server::LaunchRequest;
using rgpu::server::LoadedModule;
using rgpu::server::emulated::test::FreshDevices;

namespace {

bool operator_eq(const std::vector<KernelParam>& a, const std::vector<KernelParam>& b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](auto& x, auto& y) { return x.offset == y.offset && x.size == y.size; });
}

std::string describe(const std::vector<KernelParam>& params) {
  std::string s;
  // Appended piece by piece: GCC 12's -Wrestrict misfires on `"{" + std::string` at -O3.
  for (const auto& p : params) s.append("{").append(std::to_string(p.offset)).append(",").append(std::to_string(p.size)).append("}");
  return s;
}

}  // namespace

TEST_CASE_METHOD(FreshDevices, "the backend describes its virtual devices and exposes the runtime", "[emulated]") {
  emu::EmulatedBackend backend;
  REQUIRE(backend.init().is_ok());
  CHECK(std::string(backend.name()) == "emulated");
  auto devices = backend.devices();
  REQUIRE(devices.size() == 2);
  CHECK(devices[0].name == "rgpu emulated device");
  CHECK(devices[1].total_memory == emu::test::kDeviceMemory);
  CHECK(devices[0].major == 9);
  CHECK(devices[0].minor == 0);
  CHECK(backend.arch(0) == 90);

  const rgpu::gen::cudart::Api& api = backend.cudart();
  REQUIRE(api.cudaMalloc != nullptr);
  REQUIRE(api.cudaMemcpyAsync_ptsz != nullptr);
  CHECK(api.cudaGraphAddMemsetNode == nullptr);  // not emulated: the dispatcher reports it unavailable
  void* p = nullptr;
  REQUIRE(api.cudaMalloc(&p, 1000) == cudaSuccess);
  CHECK(backend.memory_in_use() == 1024);
  REQUIRE(api.cudaFree(p) == cudaSuccess);
  CHECK(backend.memory_in_use() == 0);
}

#ifdef RGPU_EMULATED_FIXTURES

namespace {

std::vector<uint8_t> fixture(const char* name) {
  std::ifstream in(std::string(RGPU_EMULATED_FIXTURES) + "/" + name, std::ios::binary);
  REQUIRE(in.good());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const std::vector<std::string> kKernels = {"no_args", "mixed", "with_shared", "_Z5scaleiPKfPf", "bounded"};
const std::vector<KernelParam> kMixed = {{0, 1}, {8, 8}, {16, 16}, {32, 2}};
const std::vector<KernelParam> kScale = {{0, 4}, {8, 8}, {16, 8}};

void check_layouts(const LoadedModule& m) {
  REQUIRE(m.functions.size() == kKernels.size());
  for (size_t i = 0; i < kKernels.size(); ++i) CHECK(m.functions[i].name == kKernels[i]);
  CHECK(m.functions[0].params.empty());
  INFO("mixed " << describe(m.functions[1].params) << ", scale " << describe(m.functions[3].params));
  CHECK(operator_eq(m.functions[1].params, kMixed));
  CHECK(operator_eq(m.functions[2].params, {{0, 8}}));
  CHECK(operator_eq(m.functions[3].params, kScale));
  CHECK(operator_eq(m.functions[4].params, {{0, 8}}));
}

LaunchRequest request_for(const rgpu::server::LoadedFunction& f, const std::vector<uint8_t>& args) {
  LaunchRequest r;
  r.function = f.handle;
  r.args = args;
  r.params = &f.params;
  return r;
}

}  // namespace

TEST_CASE_METHOD(FreshDevices, "a real fatbin loads with its parameter layouts and variables", "[emulated]") {
  emu::EmulatedBackend backend;
  std::vector<uint8_t> image = fixture("kernels.fatbin");
  LoadedModule m;
  REQUIRE(backend.load_module(image, kKernels, {"counter", "table", "coefficients"}, &m) == cudaSuccess);
  CHECK(m.handle != nullptr);
  check_layouts(m);

  REQUIRE(m.variables.size() == 3);
  CHECK(m.variables[0].size == 4);
  CHECK(m.variables[1].size == 400);
  CHECK(m.variables[2].size == 64);
  CHECK(backend.memory_in_use() == 256 + 512 + 256);
  for (const auto& v : m.variables) CHECK(v.address % 256 == 0);

  // Variables hold their initial values (zero where the source gives none).
  int counter = -1;
  REQUIRE(emu::cudaMemcpy(&counter, reinterpret_cast<void*>(m.variables[0].address), 4, cudaMemcpyDeviceToHost) ==
          cudaSuccess);
  CHECK(counter == 0);
  float table[100];
  REQUIRE(emu::cudaMemcpy(table, reinterpret_cast<void*>(m.variables[1].address), sizeof table,
                          cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(table[0] == 1.0f);
  CHECK(table[2] == 3.0f);
  CHECK(table[99] == 0.0f);
  double coefficients[8];
  REQUIRE(emu::cudaMemcpy(coefficients, reinterpret_cast<void*>(m.variables[2].address), sizeof coefficients,
                          cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(coefficients[0] == 0.5);
  CHECK(coefficients[1] == 0.25);

  REQUIRE(backend.unload_module(m.handle) == cudaSuccess);
  CHECK(backend.memory_in_use() == 0);
  CHECK(backend.unload_module(m.handle) == cudaErrorInvalidResourceHandle);
  std::vector<uint8_t> no_args;
  CHECK(backend.launch(request_for(m.functions[0], no_args)) == cudaErrorInvalidDeviceFunction);
}

TEST_CASE_METHOD(FreshDevices, "a raw cubin and PTX text load too", "[emulated]") {
  emu::EmulatedBackend backend;
  LoadedModule m;
  std::vector<uint8_t> cubin = fixture("kernels.cubin");
  REQUIRE(backend.load_module(cubin, kKernels, {"table"}, &m) == cudaSuccess);
  check_layouts(m);
  CHECK(m.variables.at(0).size == 400);
  REQUIRE(backend.unload_module(m.handle) == cudaSuccess);

  // PTX (what a device gets when the fatbin has no SASS for it): layouts, variables, shared size.
  std::vector<uint8_t> ptx = fixture("kernels.ptx");
  LoadedModule p;
  REQUIRE(backend.load_module(ptx, kKernels, {"table", "coefficients", "counter"}, &p) == cudaSuccess);
  check_layouts(p);
  REQUIRE(p.variables.size() == 3);
  CHECK(p.variables[0].size == 400);
  CHECK(p.variables[1].size == 64);
  CHECK(p.variables[2].size == 4);
  float table[100];
  REQUIRE(emu::cudaMemcpy(table, reinterpret_cast<void*>(p.variables[0].address), sizeof table,
                          cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(table[1] == 2.0f);
  CHECK(table[3] == 0.0f);
  cudaFuncAttributes a;
  REQUIRE(backend.function_attributes(p.functions[2].handle, &a) == cudaSuccess);
  CHECK(a.sharedSizeBytes == 1024);
  CHECK(a.numRegs == 32);  // PTX says nothing of registers: a plausible default
  REQUIRE(backend.function_attributes(p.functions[4].handle, &a) == cudaSuccess);
  CHECK(a.maxThreadsPerBlock == 256);  // .maxntid
  REQUIRE(backend.unload_module(p.handle) == cudaSuccess);
  CHECK(backend.memory_in_use() == 0);
}

TEST_CASE_METHOD(FreshDevices, "variables looked up by name after the load (cuModuleGetGlobal)", "[emulated]") {
  emu::EmulatedBackend backend;
  std::vector<uint8_t> ptx = fixture("kernels.ptx");
  LoadedModule m;
  REQUIRE(backend.load_module(ptx, kKernels, {"table"}, &m) == cudaSuccess);
  uint64_t address = 0, size = 0;
  // One asked for at the load answers the same allocation.
  REQUIRE(backend.module_global(m.handle, "table", &address, &size) == cudaSuccess);
  CHECK(address == m.variables.at(0).address);
  CHECK(size == 400);
  // One not asked for is allocated on first lookup, with its initial bytes, then stays the same.
  REQUIRE(backend.module_global(m.handle, "coefficients", &address, &size) == cudaSuccess);
  CHECK(size == 64);
  double coefficients[8];
  REQUIRE(emu::cudaMemcpy(coefficients, reinterpret_cast<void*>(address), sizeof coefficients,
                          cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(coefficients[0] == 0.5);
  uint64_t again = 0;
  REQUIRE(backend.module_global(m.handle, "coefficients", &again, &size) == cudaSuccess);
  CHECK(again == address);
  CHECK(backend.module_global(m.handle, "nope", &again, &size) == cudaErrorSymbolNotFound);
  REQUIRE(backend.unload_module(m.handle) == cudaSuccess);
  CHECK(backend.memory_in_use() == 0);  // the looked-up variable went with its module
  CHECK(backend.module_global(m.handle, "table", &again, &size) == cudaErrorInvalidResourceHandle);
}

TEST_CASE_METHOD(FreshDevices, "bad modules and unknown names get CUDA's errors", "[emulated]") {
  emu::EmulatedBackend backend;
  std::vector<uint8_t> image = fixture("kernels.fatbin");
  LoadedModule m;
  CHECK(backend.load_module(image, {"no_such_kernel"}, {}, &m) == cudaErrorSymbolNotFound);
  CHECK(backend.load_module(image, {"mixed"}, {"no_such_variable"}, &m) == cudaErrorSymbolNotFound);
  CHECK(backend.memory_in_use() == 0);

  std::vector<uint8_t> newer_gpu_only = fixture("kernels_sm100.fatbin");
  CHECK(backend.load_module(newer_gpu_only, {"mixed"}, {}, &m) == cudaErrorNoKernelImageForDevice);

  std::vector<uint8_t> garbage(512, 0x5A);
  CHECK(backend.load_module(garbage, {"mixed"}, {}, &m) == cudaErrorInvalidKernelImage);
  std::vector<uint8_t> truncated(image.begin(), image.begin() + static_cast<long>(image.size() / 2));
  CHECK(backend.load_module(truncated, {"mixed"}, {}, &m) == cudaErrorInvalidKernelImage);
  std::vector<uint8_t> cubin = fixture("kernels.cubin");
  std::vector<uint8_t> cut_cubin(cubin.begin(), cubin.begin() + 200);
  CHECK(backend.load_module(cut_cubin, {"mixed"}, {}, &m) == cudaErrorInvalidKernelImage);
  CHECK(backend.unload_module(reinterpret_cast<void*>(0x77)) == cudaErrorInvalidResourceHandle);
}

TEST_CASE_METHOD(FreshDevices, "launches are validated against the device limits and recorded", "[emulated]") {
  emu::EmulatedBackend backend;
  std::vector<uint8_t> image = fixture("kernels.fatbin");
  LoadedModule m;
  REQUIRE(backend.load_module(image, kKernels, {}, &m) == cudaSuccess);
  const auto& mixed = m.functions[1];
  const auto& with_shared = m.functions[2];
  std::vector<uint8_t> mixed_args(34), pointer_arg(8), no_args;

  LaunchRequest ok = request_for(mixed, mixed_args);
  ok.grid[0] = 1000;
  ok.block[0] = 256;
  REQUIRE(backend.launch(ok) == cudaSuccess);
  CHECK(backend.launches() == 1);
  CHECK(backend.launches(mixed.handle) == 1);

  auto with = [&](auto change) {
    LaunchRequest r = ok;
    change(r);
    return backend.launch(r);
  };
  CHECK(with([](LaunchRequest& r) { r.grid[1] = 0; }) == cudaErrorInvalidValue);
  CHECK(with([](LaunchRequest& r) { r.grid[1] = 65536; }) == cudaErrorInvalidValue);
  CHECK(with([](LaunchRequest& r) { r.grid[0] = 0x80000000u; }) == cudaErrorInvalidValue);
  CHECK(with([](LaunchRequest& r) { r.block[0] = 1025; }) == cudaErrorInvalidValue);
  CHECK(with([](LaunchRequest& r) { r.block[2] = 65; }) == cudaErrorInvalidValue);
  CHECK(with([](LaunchRequest& r) { r.block[0] = 64, r.block[1] = 32; }) == cudaErrorInvalidValue);
  CHECK(with([](LaunchRequest& r) { r.shared_mem = 48 * 1024 + 1; }) == cudaErrorInvalidValue);
  CHECK(with([](LaunchRequest& r) { r.args = std::span<const uint8_t>(r.args.data(), 33); }) == cudaErrorInvalidValue);
  CHECK(with([](LaunchRequest& r) { r.function = reinterpret_cast<void*>(0x1); }) == cudaErrorInvalidDeviceFunction);
  CHECK(with([](LaunchRequest& r) { r.stream = reinterpret_cast<void*>(0x4242); }) == cudaErrorInvalidResourceHandle);
  CHECK(with([](LaunchRequest& r) { r.cooperative = true, r.grid[0] = 132 * 8 + 1; }) ==
        cudaErrorCooperativeLaunchTooLarge);
  CHECK(backend.launches() == 1);  // none of the rejected launches counted
  CHECK(with([](LaunchRequest& r) { r.cooperative = true, r.grid[0] = 132 * 8; }) == cudaSuccess);
  CHECK(with([](LaunchRequest& r) { r.block[0] = 1024, r.grid[1] = 65535, r.grid[2] = 65535; }) == cudaSuccess);

  // Dynamic shared memory beyond 48 KiB needs the opt-in attribute, bounded by 227 KiB in all.
  LaunchRequest big = request_for(with_shared, pointer_arg);
  big.shared_mem = 100 * 1024;
  CHECK(backend.launch(big) == cudaErrorInvalidValue);
  CHECK(backend.set_function_attribute(with_shared.handle, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       227 * 1024) == cudaErrorInvalidValue);  // 1 KiB is static
  REQUIRE(backend.set_function_attribute(with_shared.handle, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         226 * 1024) == cudaSuccess);
  CHECK(backend.launch(big) == cudaSuccess);
  CHECK(backend.launches(with_shared.handle) == 1);
  CHECK(backend.launches() == 4);

  // __launch_bounds__(256) lowers the kernel's own limit.
  LaunchRequest bounded = request_for(m.functions[4], pointer_arg);
  bounded.block[0] = 512;
  CHECK(backend.launch(bounded) == cudaErrorInvalidValue);
  bounded.block[0] = 256;
  CHECK(backend.launch(bounded) == cudaSuccess);
  REQUIRE(backend.unload_module(m.handle) == cudaSuccess);
}

TEST_CASE_METHOD(FreshDevices, "registers bound the block size and the occupancy", "[emulated]") {
  emu::EmulatedBackend backend;
  std::vector<uint8_t> image = fixture("kernels.fatbin");
  LoadedModule m;
  REQUIRE(backend.load_module(image, {"register_hungry"}, {}, &m) == cudaSuccess);
  void* f = m.functions[0].handle;
  cudaFuncAttributes a;
  REQUIRE(backend.function_attributes(f, &a) == cudaSuccess);
  INFO("registers per thread " << a.numRegs);
  REQUIRE(a.numRegs > 128);
  // A warp holds numRegs * 32 registers (rounded to 256); a block at most 65536 of them.
  int warp_registers = (a.numRegs * 32 + 255) / 256 * 256;
  int max_block = 65536 / warp_registers * 32;
  CHECK(a.maxThreadsPerBlock == max_block);  // CUDA reports the register-bound limit (384 on an H200)
  std::vector<uint8_t> args(16);
  LaunchRequest r = request_for(m.functions[0], args);
  r.block[0] = static_cast<uint32_t>(max_block);
  CHECK(backend.launch(r) == cudaSuccess);
  r.block[0] = static_cast<uint32_t>(max_block + 32);
  CHECK(backend.launch(r) == cudaErrorLaunchOutOfResources);
  int blocks = -1;
  REQUIRE(backend.occupancy_max_active_blocks(f, max_block, 0, 0, &blocks) == cudaSuccess);
  CHECK(blocks == 1);
  REQUIRE(backend.occupancy_max_active_blocks(f, 64, 0, 0, &blocks) == cudaSuccess);
  CHECK(blocks == 65536 / (2 * warp_registers));
  REQUIRE(backend.unload_module(m.handle) == cudaSuccess);
}

TEST_CASE_METHOD(FreshDevices, "launches on a capturing stream replay with the graph", "[emulated]") {
  emu::EmulatedBackend backend;
  std::vector<uint8_t> image = fixture("kernels.fatbin");
  LoadedModule m;
  REQUIRE(backend.load_module(image, {"no_args"}, {}, &m) == cudaSuccess);
  cudaStream_t s = nullptr;
  REQUIRE(emu::cudaStreamCreate(&s) == cudaSuccess);
  std::vector<uint8_t> no_args;
  LaunchRequest r = request_for(m.functions[0], no_args);
  r.stream = s;

  REQUIRE(emu::cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
  REQUIRE(backend.launch(r) == cudaSuccess);
  REQUIRE(backend.launch(r) == cudaSuccess);
  LaunchRequest bad = r;
  bad.block[0] = 2048;
  CHECK(backend.launch(bad) == cudaErrorInvalidValue);  // checked at capture time
  cudaGraph_t graph = nullptr;
  REQUIRE(emu::cudaStreamEndCapture(s, &graph) == cudaSuccess);
  CHECK(backend.launches() == 0);
  cudaGraphNode_t nodes[2] = {};
  size_t count = 2;
  REQUIRE(emu::cudaGraphGetNodes(graph, nodes, &count) == cudaSuccess);
  CHECK(count == 2);
  cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
  REQUIRE(emu::cudaGraphNodeGetType(nodes[1], &type) == cudaSuccess);
  CHECK(type == cudaGraphNodeTypeKernel);

  cudaGraphExec_t exec = nullptr;
  REQUIRE(emu::cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  REQUIRE(emu::cudaGraphLaunch(exec, s) == cudaSuccess);
  REQUIRE(emu::cudaGraphLaunch(exec, s) == cudaSuccess);
  CHECK(backend.launches() == 4);
  CHECK(backend.launches(m.functions[0].handle) == 4);

  // The graph keeps the kernel it recorded even after its module is unloaded.
  REQUIRE(backend.unload_module(m.handle) == cudaSuccess);
  REQUIRE(emu::cudaGraphLaunch(exec, s) == cudaSuccess);
  CHECK(backend.launches() == 6);
  REQUIRE(emu::cudaGraphExecDestroy(exec) == cudaSuccess);
  REQUIRE(emu::cudaGraphDestroy(graph) == cudaSuccess);
  REQUIRE(emu::cudaStreamDestroy(s) == cudaSuccess);
}

TEST_CASE_METHOD(FreshDevices, "function attributes and occupancy", "[emulated]") {
  emu::EmulatedBackend backend;
  std::vector<uint8_t> image = fixture("kernels.fatbin");
  LoadedModule m;
  REQUIRE(backend.load_module(image, kKernels, {}, &m) == cudaSuccess);
  void* mixed = m.functions[1].handle;
  void* with_shared = m.functions[2].handle;

  cudaFuncAttributes a;
  int blocks = -1;
  REQUIRE(backend.function_attributes(with_shared, &a) == cudaSuccess);
  CHECK(a.sharedSizeBytes == 1024);
  CHECK(a.maxThreadsPerBlock == 1024);
  CHECK(a.numRegs == 12);  // the cubin's EIATTR_REGCOUNT (nvcc 13, sm_90)
  CHECK(a.binaryVersion == 90);
  CHECK(a.maxDynamicSharedSizeBytes == 47 * 1024);
  CHECK(a.preferredShmemCarveout == -1);
  REQUIRE(backend.function_attributes(mixed, &a) == cudaSuccess);
  CHECK(a.sharedSizeBytes == 0);
  CHECK(a.maxDynamicSharedSizeBytes == 48 * 1024);
  REQUIRE(backend.function_attributes(m.functions[4].handle, &a) == cudaSuccess);
  CHECK(a.maxThreadsPerBlock == 256);
  REQUIRE(backend.occupancy_max_active_blocks(m.functions[4].handle, 512, 0, 0, &blocks) == cudaSuccess);
  CHECK(blocks == 0);
  REQUIRE(backend.set_function_attribute(mixed, cudaFuncAttributePreferredSharedMemoryCarveout, 50) == cudaSuccess);
  REQUIRE(backend.set_function_attribute(mixed, cudaFuncAttributeRequiredClusterWidth, 2) == cudaSuccess);
  REQUIRE(backend.function_attributes(mixed, &a) == cudaSuccess);
  CHECK(a.preferredShmemCarveout == 50);
  CHECK(a.requiredClusterWidth == 2);
  CHECK(backend.set_function_attribute(mixed, cudaFuncAttributePreferredSharedMemoryCarveout, 101) ==
        cudaErrorInvalidValue);
  CHECK(backend.set_function_attribute(mixed, 3, 1) == cudaErrorInvalidValue);
  CHECK(backend.function_attributes(reinterpret_cast<void*>(0x9), &a) == cudaErrorInvalidDeviceFunction);

  REQUIRE(backend.occupancy_max_active_blocks(mixed, 256, 0, 0, &blocks) == cudaSuccess);
  CHECK(blocks == 8);  // 2048 threads per SM
  REQUIRE(backend.occupancy_max_active_blocks(mixed, 32, 0, 0, &blocks) == cudaSuccess);
  CHECK(blocks == 32);  // the per-SM block limit
  REQUIRE(backend.occupancy_max_active_blocks(mixed, 1000, 0, 0, &blocks) == cudaSuccess);
  CHECK(blocks == 2);  // rounded up to whole warps: 1024 threads
  REQUIRE(backend.occupancy_max_active_blocks(mixed, 64, 40 * 1024, 0, &blocks) == cudaSuccess);
  CHECK(blocks == 5);  // 228 KiB / (40 KiB + 1 KiB reserved)
  REQUIRE(backend.occupancy_max_active_blocks(mixed, 64, 49 * 1024, 0, &blocks) == cudaSuccess);
  CHECK(blocks == 0);  // more dynamic shared memory than the kernel may use
  REQUIRE(backend.occupancy_max_active_blocks(mixed, 2048, 0, 0, &blocks) == cudaSuccess);
  CHECK(blocks == 0);
  CHECK(backend.occupancy_max_active_blocks(mixed, 0, 0, 0, &blocks) == cudaErrorInvalidValue);
  CHECK(backend.occupancy_max_active_blocks(mixed, 64, 0, 4, &blocks) == cudaErrorInvalidValue);
  REQUIRE(backend.unload_module(m.handle) == cudaSuccess);
}

#endif  // RGPU_EMULATED_FIXTURES
