// Kernel launches on the client: the call-configuration stack, every launch entry point (CUDA 13's
// __cudaGetKernel/__cudaLaunchKernel, the classic cudaLaunchKernel, ExC and cooperative), argument
// packing by the parameter layout the server reported, and function attributes and occupancy.
// A launch is an async call: errors the GPU finds surface at the next synchronisation; what can
// be checked here (configuration limits) fails at once, as CUDA does.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <span>

#include "client/runtime/call.h"
#include "common/fixed_stack.h"
#include "client/runtime/cudart_errors.h"
#include "client/runtime/device.h"
#include "client/runtime/kernel_args.h"
#include "client/runtime/mapped_memory.h"
#include "client/runtime/modules.h"
#include "common/wire/launch_args.h"
#include "gen/cudart/cudart_ids.h"

namespace rgpu::client {
namespace ids = gen::cudart;

KernelRecord* loaded_kernel(const void* func, cudaError_t* st) {
  KernelRecord* k = ModuleRegistry::get().kernel(func);
  if (!k) {
    *st = cudaErrorInvalidDeviceFunction;
    return nullptr;
  }
  *st = ModuleRegistry::get().ensure_loaded(k->module);
  return *st == cudaSuccess ? k : nullptr;
}

cudaError_t put_kernel_args(const KernelRecord& k, void** args, wire::Encoder& e) {
  e.put<uint32_t>(k.args_size);
  uint8_t* buf = e.append_zeros(k.args_size);
  for (size_t i = 0; i < k.params.size(); ++i) std::memcpy(buf + k.params[i].offset, args[i], k.params[i].size);
  // Pointers into pinned host memory become the GPU's addresses of it (the call sends the host's changes).
  return mapped_prepare_launch(buf, k.params);
}

namespace {

// After a launch's arguments, or a cluster query's shape: the attributes as they are (an event in
// one is the client's id, which the server resolves).
void put_launch_attributes(std::span<const cudaLaunchAttribute> attributes, wire::Encoder& e) {
  static_assert(sizeof(cudaLaunchAttributeValue) == sizeof(wire::LaunchAttribute::value));
  e.put<uint32_t>(static_cast<uint32_t>(attributes.size()));
  for (const cudaLaunchAttribute& at : attributes) {
    wire::LaunchAttribute w{static_cast<uint32_t>(at.id), 0, {}};
    std::memcpy(w.value, &at.val, sizeof w.value);
    e.put(w);
  }
}

struct CallConfig {
  dim3 grid, block;
  size_t shared_mem;
  cudaStream_t stream;
};
// Configurations nest only when a launch's arguments launch kernels themselves.
thread_local FixedStack<CallConfig, 16> t_configs;

// What the launch would be refused for at once, checked here so that the error is returned by
// the launch itself (and cudaGetLastError right after it), as CUDA does, although launches are
// asynchronous calls. CUDA 13 refuses shapes beyond the device's limits with cudaErrorInvalidValue
// (observed on the H200 with driver 580; CUDA 12 said cudaErrorInvalidConfiguration).
cudaError_t check_config(dim3 grid, dim3 block) {
  const cudaDeviceProp* p = device_properties(current_device());
  if (!p) return cudaErrorNoDevice;
  uint64_t threads = uint64_t{block.x} * block.y * block.z;
  if (threads == 0 || grid.x == 0 || grid.y == 0 || grid.z == 0) return cudaErrorInvalidConfiguration;
  if (threads > static_cast<uint64_t>(p->maxThreadsPerBlock)) return cudaErrorInvalidValue;
  if (block.x > static_cast<unsigned>(p->maxThreadsDim[0]) || block.y > static_cast<unsigned>(p->maxThreadsDim[1]) ||
      block.z > static_cast<unsigned>(p->maxThreadsDim[2]))
    return cudaErrorInvalidValue;
  if (grid.x > static_cast<unsigned>(p->maxGridSize[0]) || grid.y > static_cast<unsigned>(p->maxGridSize[1]) ||
      grid.z > static_cast<unsigned>(p->maxGridSize[2]))
    return cudaErrorInvalidValue;
  return cudaSuccess;
}


// A sync query about a kernel: FunctionQuery in, status (+ a value) back.
template <typename Out>
cudaError_t function_query(uint32_t id, const void* func, int32_t a, int32_t b, uint64_t c, uint32_t flags, Out* out) {
  cudaError_t st;
  KernelRecord* k = loaded_kernel(func, &st);
  if (!k) return st;
  Call call(id, CallClass::kSync);
  wire::FunctionQuery q{k->server_id, a, b, c, flags, 0};
  call.args().put(q);
  auto r = static_cast<cudaError_t>(call.invoke());
  if (r == cudaSuccess && out) *out = call.results().template get<Out>();
  return r;
}

// Drops the kernel's cached occupancy answers: an attribute setter changed what they depend on.
void forget_occupancy(KernelRecord* k) {
  if (!k) return;
  std::lock_guard<std::mutex> lock(k->occupancy_mu);
  k->occupancy.clear();
}

// The kernel's attributes, fetched once and then answered from the client's cache.
cudaError_t kernel_attributes(KernelRecord* k, const void* func, cudaFuncAttributes* out) {
  std::call_once(k->attrs_once, [&] {
    k->attrs_status = function_query(ids::k_cudaFuncGetAttributes, func, 0, 0, 0, 0, &k->attrs);
  });
  if (k->attrs_status == cudaSuccess) *out = k->attrs;
  return k->attrs_status;
}

wire::LaunchArgs launch_args(const KernelRecord& k, dim3 grid, dim3 block, size_t shared_mem, cudaStream_t stream,
                             bool cooperative, bool per_thread) {
  wire::LaunchArgs a{};
  a.function = k.server_id;
  a.grid[0] = grid.x, a.grid[1] = grid.y, a.grid[2] = grid.z;
  a.block[0] = block.x, a.block[1] = block.y, a.block[2] = block.z;
  a.shared_mem = static_cast<uint32_t>(shared_mem);
  a.cooperative = cooperative ? 1 : 0;
  auto sid = reinterpret_cast<uint64_t>(stream);
  a.stream = (per_thread && sid == 0) ? reinterpret_cast<uint64_t>(cudaStreamPerThread) : sid;
  return a;
}

cudaError_t launch(const void* func, dim3 grid, dim3 block, void** args, size_t shared_mem, cudaStream_t stream,
                   bool cooperative, bool per_thread, std::span<const cudaLaunchAttribute> attributes = {}) {
  cudaError_t st;
  KernelRecord* k = loaded_kernel(func, &st);
  if (!k) return cudart_finish(st);
  st = check_config(grid, block);
  if (st != cudaSuccess) return cudart_finish(st);
  if (shared_mem > 0) {
    cudaFuncAttributes attrs;
    st = kernel_attributes(k, func, &attrs);
    if (st != cudaSuccess) return cudart_finish(st);
    if (shared_mem > static_cast<size_t>(attrs.maxDynamicSharedSizeBytes)) return cudart_finish(cudaErrorInvalidValue);
  }
  if (!args && !k->params.empty()) return cudart_finish(cudaErrorInvalidValue);

  const wire::LaunchArgs a = launch_args(*k, grid, block, shared_mem, stream, cooperative, per_thread);
  Call call(per_thread ? ids::k_cudaLaunchKernel_ptsz : ids::k_cudaLaunchKernel, CallClass::kAsync);
  call.args().put(a);
  if (cudaError_t ast = put_kernel_args(*k, args, call.args()); ast != cudaSuccess) return cudart_finish(ast);
  put_launch_attributes(attributes, call.args());
  return cudart_finish(static_cast<cudaError_t>(call.post()));
}

}  // namespace
}  // namespace rgpu::client

using rgpu::client::cudart_finish;
using rgpu::client::KernelRecord;

extern "C" unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, struct CUstream_st* stream) {
  if (rgpu::client::t_configs.push({gridDim, blockDim, sharedMem, stream})) return 0;
  // Non-zero: the generated launch is skipped, so the error must be the thread's last one.
  std::fprintf(stderr, "rgpu: a kernel launch nested more than %zu deep in another's arguments is refused "
                       "(cudaErrorLaunchOutOfResources)\n", rgpu::client::t_configs.capacity());
  return rgpu::client::cudart_finish(cudaErrorLaunchOutOfResources);
}

extern "C" cudaError_t __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem, void* stream) {
  rgpu::client::CallConfig c;
  if (!rgpu::client::t_configs.pop(&c)) return cudaErrorMissingConfiguration;
  *gridDim = c.grid;
  *blockDim = c.block;
  *sharedMem = c.shared_mem;
  *static_cast<cudaStream_t*>(stream) = c.stream;
  return cudaSuccess;
}

// A cudaKernel_t is the kernel's record, which every launch path takes as the kernel.
extern "C" cudaError_t cudaGetKernel(cudaKernel_t* kernelPtr, const void* entryFuncAddr) {
  if (!kernelPtr) return cudart_finish(cudaErrorInvalidValue);
  KernelRecord* k = rgpu::client::ModuleRegistry::get().kernel(entryFuncAddr);
  if (!k) return cudart_finish(cudaErrorInvalidDeviceFunction);
  *kernelPtr = reinterpret_cast<cudaKernel_t>(k);
  return cudaSuccess;
}

extern "C" cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* func) { return cudaGetKernel(kernel, func); }

extern "C" cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args,
                                          size_t sharedMem, cudaStream_t stream) {
  return rgpu::client::launch(kernel, gridDim, blockDim, args, sharedMem, stream, false, false);
}

extern "C" cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args,
                                               size_t sharedMem, cudaStream_t stream) {
  return rgpu::client::launch(kernel, gridDim, blockDim, args, sharedMem, stream, false, true);
}

extern "C" cudaError_t cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                                        cudaStream_t stream) {
  return rgpu::client::launch(func, gridDim, blockDim, args, sharedMem, stream, false, false);
}

extern "C" cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                             size_t sharedMem, cudaStream_t stream) {
  return rgpu::client::launch(func, gridDim, blockDim, args, sharedMem, stream, false, true);
}

extern "C" cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                                   size_t sharedMem, cudaStream_t stream) {
  return rgpu::client::launch(func, gridDim, blockDim, args, sharedMem, stream, true, false);
}

extern "C" cudaError_t cudaLaunchCooperativeKernel_ptsz(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                                        size_t sharedMem, cudaStream_t stream) {
  return rgpu::client::launch(func, gridDim, blockDim, args, sharedMem, stream, true, true);
}

namespace {
// Every attribute travels to the server, which applies them as the driver's launch attributes
// (cluster shape, programmatic dependent launch, priority, ...); the launch is asynchronous, so an
// attribute the GPU refuses is the thread's error once a later call has returned (README.md).
// Cooperation is the launch's flag.
cudaError_t launch_ex(const cudaLaunchConfig_t* config, const void* func, void** args, bool per_thread) {
  if (!config || (config->numAttrs > 0 && !config->attrs)) return cudart_finish(cudaErrorInvalidValue);
  bool cooperative = false;
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == cudaLaunchAttributeCooperative) cooperative = config->attrs[i].val.cooperative != 0;
  return rgpu::client::launch(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes, config->stream,
                              cooperative, per_thread, {config->attrs, config->numAttrs});
}
}  // namespace

extern "C" cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
  return launch_ex(config, func, args, false);
}

extern "C" cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config, const void* func, void** args) {
  return launch_ex(config, func, args, true);
}

extern "C" cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  if (!attr) return cudart_finish(cudaErrorInvalidValue);
  cudaError_t st;
  KernelRecord* k = rgpu::client::loaded_kernel(func, &st);
  if (!k) return cudart_finish(st);
  return cudart_finish(rgpu::client::kernel_attributes(k, func, attr));
}

// The layout the client packs launches by: the server read it with cuFuncGetParamInfo when the
// module was loaded (a kernel whose module is not loaded yet loads it now).
extern "C" cudaError_t cudaFuncGetParamInfo(const void* func, size_t paramIndex, size_t* paramOffset,
                                            size_t* paramSize) {
  if (!paramOffset) return cudart_finish(cudaErrorInvalidValue);
  cudaError_t st;
  KernelRecord* k = rgpu::client::loaded_kernel(func, &st);
  if (!k) return cudart_finish(st);
  if (paramIndex >= k->params.size()) return cudart_finish(cudaErrorInvalidValue);
  *paramOffset = k->params[paramIndex].offset;
  if (paramSize) *paramSize = k->params[paramIndex].size;
  return cudaSuccess;
}

extern "C" cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
  cudaFuncAttributes current;
  cudaError_t st = cudaFuncGetAttributes(&current, func);  // fills the cache before it is updated
  if (st != cudaSuccess) return st;
  st = rgpu::client::function_query<int32_t>(rgpu::gen::cudart::k_cudaFuncSetAttribute, func, attr, value, 0, 0, nullptr);
  if (st != cudaSuccess) return cudart_finish(st);
  KernelRecord* k = rgpu::client::ModuleRegistry::get().kernel(func);
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) k->attrs.maxDynamicSharedSizeBytes = value;
  if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) k->attrs.preferredShmemCarveout = value;
  rgpu::client::forget_occupancy(k);
  return cudaSuccess;
}

// A module is loaded on one device only (the current one at its first use: modules.h), so the
// attribute can be set for that device and no other; another device is refused loudly
// (cudaErrorNotSupported) rather than the attribute being set where the program did not ask.
extern "C" cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel, cudaFuncAttribute attr, int value,
                                                       int device) {
  rgpu::client::ModuleRegistry& registry = rgpu::client::ModuleRegistry::get();
  KernelRecord* k = registry.kernel(kernel);
  if (!k) return cudart_finish(cudaErrorInvalidDeviceFunction);
  if (!rgpu::client::device_properties(device)) return cudart_finish(cudaErrorInvalidDevice);
  if (device != registry.load_device(k->module)) {
    rgpu::client::report_unsupported("cudaKernelSetAttributeForDevice for a device its kernel's module is not loaded on");
    return cudart_finish(cudaErrorNotSupported);
  }
  return cudaFuncSetAttribute(kernel, attr, value);
}

extern "C" cudaError_t cudaFuncSetCacheConfig(const void* func, cudaFuncCache cacheConfig) {
  cudaError_t st =
      rgpu::client::function_query<int32_t>(rgpu::gen::cudart::k_cudaFuncSetCacheConfig, func, cacheConfig, 0, 0, 0, nullptr);
  if (st == cudaSuccess) rgpu::client::forget_occupancy(rgpu::client::ModuleRegistry::get().kernel(func));
  return cudart_finish(st);
}

// No effect on occupancy: bank size has been fixed since Volta (the server checks the arguments).
extern "C" cudaError_t cudaFuncSetSharedMemConfig(const void* func, cudaSharedMemConfig config) {
  return cudart_finish(rgpu::client::function_query<int32_t>(rgpu::gen::cudart::k_cudaFuncSetSharedMemConfig, func,
                                                              config, 0, 0, 0, nullptr));
}

extern "C" cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func,
                                                                             int blockSize, size_t dynamicSMemSize,
                                                                             unsigned int flags) {
  if (!numBlocks) return cudart_finish(cudaErrorInvalidValue);
  cudaError_t st;
  KernelRecord* k = rgpu::client::loaded_kernel(func, &st);
  if (!k) return cudart_finish(st);
  auto key = std::make_tuple(rgpu::client::current_device(), blockSize, dynamicSMemSize, flags);
  {
    std::lock_guard<std::mutex> lock(k->occupancy_mu);
    auto it = k->occupancy.find(key);
    if (it != k->occupancy.end()) {
      *numBlocks = it->second;
      return cudaSuccess;
    }
  }
  st = rgpu::client::function_query(rgpu::gen::cudart::k_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, func,
                                    blockSize, 0, dynamicSMemSize, flags, numBlocks);
  if (st == cudaSuccess) {
    std::lock_guard<std::mutex> lock(k->occupancy_mu);
    k->occupancy[key] = *numBlocks;
  }
  return cudart_finish(st);
}

extern "C" cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func, int blockSize,
                                                                    size_t dynamicSMemSize) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize,
                                                                cudaOccupancyDefault);
}

extern "C" cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* dynamicSmemSize, const void* func,
                                                                 int numBlocks, int blockSize) {
  if (!dynamicSmemSize) return cudart_finish(cudaErrorInvalidValue);
  uint64_t bytes = 0;
  cudaError_t st = rgpu::client::function_query(rgpu::gen::cudart::k_cudaOccupancyAvailableDynamicSMemPerBlock, func,
                                                numBlocks, blockSize, 0, 0, &bytes);
  if (st == cudaSuccess) *dynamicSmemSize = bytes;
  return cudart_finish(st);
}

namespace {
// cudaOccupancyMaxActiveClusters / MaxPotentialClusterSize: the kernel, the configuration's shape and
// its attributes (the cluster shape is one of them), answered by the server's driver.
cudaError_t cluster_query(uint32_t id, int* out, const void* func, const cudaLaunchConfig_t* config) {
  if (!out || !config || (config->numAttrs > 0 && !config->attrs)) return cudart_finish(cudaErrorInvalidValue);
  cudaError_t st;
  KernelRecord* k = rgpu::client::loaded_kernel(func, &st);
  if (!k) return cudart_finish(st);
  rgpu::client::Call call(id, rgpu::client::CallClass::kSync);
  call.args().put(rgpu::client::launch_args(*k, config->gridDim, config->blockDim, config->dynamicSmemBytes,
                                            config->stream, false, false));
  rgpu::client::put_launch_attributes({config->attrs, config->numAttrs}, call.args());
  st = static_cast<cudaError_t>(call.invoke());
  if (st == cudaSuccess) *out = call.results().get<int32_t>();
  return cudart_finish(st);
}
}  // namespace

extern "C" cudaError_t cudaOccupancyMaxActiveClusters(int* numClusters, const void* func,
                                                      const cudaLaunchConfig_t* launchConfig) {
  return cluster_query(rgpu::gen::cudart::k_cudaOccupancyMaxActiveClusters, numClusters, func, launchConfig);
}

extern "C" cudaError_t cudaOccupancyMaxPotentialClusterSize(int* clusterSize, const void* func,
                                                            const cudaLaunchConfig_t* launchConfig) {
  return cluster_query(rgpu::gen::cudart::k_cudaOccupancyMaxPotentialClusterSize, clusterSize, func, launchConfig);
}

extern "C" cudaError_t cudaFuncGetName(const char** name, const void* func) {
  if (!name) return cudart_finish(cudaErrorInvalidValue);
  KernelRecord* k = rgpu::client::ModuleRegistry::get().kernel(func);
  if (!k) return cudart_finish(cudaErrorInvalidDeviceFunction);
  *name = k->name.c_str();
  return cudaSuccess;
}

extern "C" cudaError_t cudaGetFuncBySymbol(cudaFunction_t* functionPtr, const void* symbolPtr) {
  if (!functionPtr) return cudart_finish(cudaErrorInvalidValue);
  KernelRecord* k = rgpu::client::ModuleRegistry::get().kernel(symbolPtr);
  if (!k) return cudart_finish(cudaErrorInvalidDeviceFunction);
  *functionPtr = reinterpret_cast<cudaFunction_t>(k);
  return cudaSuccess;
}
