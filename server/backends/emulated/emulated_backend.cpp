// The emulated Backend: modules read from their images, launches validated against the virtual
// device's limits and recorded (now, or into a capturing stream's graph), never executed.
#include "server/backends/emulated/emulated_backend.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>

#include "common/driver_log_line.h"
#include "common/log.h"
#include "server/backends/emulated/cublas.h"
#include "server/backends/emulated/cublaslt.h"
#include "server/backends/emulated/cudnn.h"
#include "server/backends/emulated/cufft.h"
#include "server/backends/emulated/curand.h"
#include "server/backends/emulated/cusolver.h"
#include "server/backends/emulated/cusparse.h"
#include "server/backends/emulated/nvml.h"
#include "server/backends/emulated/emulated_module.h"
#include "server/backends/emulated/runtime.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {

constexpr uint32_t kDefaultRegistersPerThread = 32;  // for kernels known only from PTX

struct FunctionRecord {
  std::string name;
  std::vector<KernelParam> params;
  uint32_t args_size = 0;      // bytes of the packed argument buffer: the end of the last parameter
  uint32_t static_shared = 0;  // bytes of the kernel's __shared__ variables
  uint32_t max_threads = kMaxThreadsPerBlock;  // per block: the device's, or its __launch_bounds__
  uint32_t registers = kDefaultRegistersPerThread;  // per thread: the cubin's count, if it has one
  // Settable attributes (atomics: set from one thread while another launches).
  std::atomic<int> max_dynamic_shared{0};  // cudaFuncAttributeMaxDynamicSharedMemorySize
  std::atomic<int> carveout{-1};           // cudaFuncAttributePreferredSharedMemoryCarveout
  std::atomic<int> cluster[6] = {};        // cudaFuncAttributeClusterDimMustBeSet .. SchedulingPolicyPreference
  std::atomic<uint64_t> launches{0};
};

struct ModuleRecord {
  std::vector<void*> functions;
  std::vector<void*> variables;  // device allocations
  // The image's variables, kept for those looked up by name after the load (module_global), and
  // every allocated one by name, so that a name always answers the same allocation.
  std::unordered_map<std::string, ModuleVariable> image_variables;
  std::unordered_map<std::string, std::string> unreadable;
  std::unordered_map<std::string, std::pair<void*, uint64_t>> by_name;
};

namespace {

constexpr uint32_t kArch = kComputeMajor * 10 + kComputeMinor;
constexpr uint32_t kRegistersPerSm = 65536;

// A module variable's storage on the current device, holding its initial bytes (zero elsewhere).
cudaError_t allocate_variable(const ModuleVariable& object, void** address) {
  cudaError_t err = state().memory.allocate(current_device(), std::max<uint64_t>(object.size, 1), address);
  if (err != cudaSuccess) return err;
  DeviceRange range = state().memory.find(*address, object.size);
  std::memset(range.data, 0, object.size);
  std::copy(object.initial.begin(), object.initial.end(), range.data);
  return cudaSuccess;
}

// Registers a block holds: per thread rounded up to 8, per warp rounded up to 256 (sm_90).
uint64_t block_registers(uint32_t registers_per_thread, int block_size) {
  uint64_t per_warp = (uint64_t{registers_per_thread} + 7) / 8 * 8 * kWarpSize;
  per_warp = (per_warp + 255) / 256 * 256;
  return per_warp * static_cast<uint64_t>((block_size + kWarpSize - 1) / kWarpSize);
}

bool valid_dims(const uint32_t grid[3], const uint32_t block[3], uint32_t max_threads) {
  for (int i = 0; i < 3; ++i) {
    if (grid[i] == 0 || grid[i] > static_cast<uint32_t>(kMaxGridDim[i])) return false;
    if (block[i] == 0 || block[i] > static_cast<uint32_t>(kMaxBlockDim[i])) return false;
  }
  return uint64_t{block[0]} * block[1] * block[2] <= max_threads;
}

// Resident blocks per SM: bounded by threads (whole warps), the block limit, registers and
// shared memory.
int blocks_per_sm(const FunctionRecord& f, int block_size, size_t dynamic_smem) {
  if (block_size > static_cast<int>(f.max_threads) || dynamic_smem > static_cast<size_t>(f.max_dynamic_shared)) return 0;
  int warps = (block_size + kWarpSize - 1) / kWarpSize;
  int blocks = std::min(kMaxThreadsPerMultiProcessor / (warps * kWarpSize), kMaxBlocksPerMultiProcessor);
  blocks = std::min<int>(blocks, static_cast<int>(kRegistersPerSm / block_registers(f.registers, block_size)));
  size_t smem = f.static_shared + dynamic_smem + kReservedSharedMemPerBlock;
  return std::min<int>(blocks, static_cast<int>(kSharedMemPerMultiProcessor / smem));
}

// The largest cluster a kernel may be launched in: 8 blocks, or 16 with the non-portable attribute.
int max_cluster_size(const FunctionRecord& f) {
  return f.cluster[cudaFuncAttributeNonPortableClusterSizeAllowed - cudaFuncAttributeClusterDimMustBeSet] ? 16 : 8;
}

// A launch's attributes as the GPU checks them: known ids, and a cluster shape that divides the
// grid within the kernel's largest cluster (cudaErrorInvalidClusterSize otherwise). *cluster is the
// blocks per cluster (1 without one).
int32_t check_attributes(const FunctionRecord& f, const LaunchRequest& r, int* cluster) {
  *cluster = 1;
  for (const cudaLaunchAttribute& at : r.attributes) {
    if (at.id > cudaLaunchAttributeNvlinkUtilCentricScheduling) return cudaErrorInvalidValue;
    if (at.id != cudaLaunchAttributeClusterDimension) continue;
    const unsigned dims[3] = {at.val.clusterDim.x, at.val.clusterDim.y, at.val.clusterDim.z};
    uint64_t size = 1;
    for (int i = 0; i < 3; ++i) {
      if (dims[i] == 0 || r.grid[i] % dims[i] != 0) return cudaErrorInvalidClusterSize;
      size *= dims[i];
    }
    if (size > static_cast<uint64_t>(max_cluster_size(f))) return cudaErrorInvalidClusterSize;
    *cluster = static_cast<int>(size);
  }
  return cudaSuccess;
}

}  // namespace

EmulatedBackend::EmulatedBackend() : launches_(std::make_shared<std::atomic<uint64_t>>(0)) {
  gen::cudart::load_api(api_, &emulated::resolve, nullptr);
  gen::cublas::load_api(cublas_, &emulated::resolve_cublas, nullptr);
  gen::nvml::load_api(nvml_, &emulated::resolve_nvml, nullptr);
  gen::cublasLt::load_api(cublasLt_, &emulated::resolve_cublasLt, nullptr);
  gen::cudnn::load_api(cudnn_, &emulated::resolve_cudnn, nullptr);
  gen::curand::load_api(curand_, &emulated::resolve_curand, nullptr);
  gen::cufft::load_api(cufft_, &emulated::resolve_cufft, nullptr);
  gen::cusparse::load_api(cusparse_, &emulated::resolve_cusparse, nullptr);
  gen::cusolver::load_api(cusolver_, &emulated::resolve_cusolver, nullptr);
}

EmulatedBackend::~EmulatedBackend() = default;

Status EmulatedBackend::init() {
  const RuntimeState& s = state();
  if (!s.config_status.is_ok()) return Status(s.config_status);
  RGPU_LOG_INFO("emulated backend: %d virtual device(s) of %llu MiB, sm_%u", s.config.count,
                static_cast<unsigned long long>(s.config.memory_bytes >> 20), kArch);
  return Status::ok();
}

void EmulatedBackend::log_failure(const char* api, int32_t status) {
  if (error_log_) error_log_(driver_log_line("CUDA", 'E', api, "failed with cudaError_t " + std::to_string(status)));
}

std::vector<DeviceSummary> EmulatedBackend::devices() {
  const RuntimeState& s = state();
  std::vector<DeviceSummary> out;
  for (int d = 0; d < s.config.count; ++d) {
    cudaDeviceProp p;
    device_properties(d, s.config.memory_bytes, &p);
    out.push_back({p.name, p.totalGlobalMem, p.major, p.minor});
  }
  return out;
}

uint32_t EmulatedBackend::arch(int) { return kArch; }

int32_t EmulatedBackend::load_module(std::span<const uint8_t> image, const std::vector<std::string>& functions,
                                     const std::vector<std::string>& variables, LoadedModule* out) {
  ModuleImage img;
  if (cudaError_t err = read_module_image(image, kArch, &img); err != cudaSuccess) return err;

  std::vector<std::shared_ptr<FunctionRecord>> records;
  for (const std::string& name : functions) {
    auto kernel = std::find_if(img.kernels.begin(), img.kernels.end(), [&](const auto& k) { return k.name == name; });
    if (kernel == img.kernels.end()) {
      RGPU_LOG_WARN("emulated backend: module has no kernel '%s'", name.c_str());
      return cudaErrorSymbolNotFound;
    }
    auto f = std::make_shared<FunctionRecord>();
    f->name = name;
    for (const auto& p : kernel->params) {
      f->params.push_back({p.offset, p.size});
      f->args_size = std::max(f->args_size, p.offset + p.size);
    }
    auto shared = img.static_shared.find(name);
    f->static_shared = shared == img.static_shared.end() ? 0 : shared->second;
    f->max_dynamic_shared = std::max(0, kSharedMemPerBlock - static_cast<int>(f->static_shared));
    if (auto bound = img.max_threads.find(name); bound != img.max_threads.end())
      f->max_threads = std::min(f->max_threads, bound->second);
    if (auto regs = img.registers.find(name); regs != img.registers.end()) f->registers = regs->second;
    records.push_back(std::move(f));
  }

  std::vector<const ModuleVariable*> found;
  for (const std::string& name : variables) {
    if (auto why = img.unreadable.find(name); why != img.unreadable.end()) {
      RGPU_LOG_ERROR("emulated backend: variable '%s' is not supported: %s", name.c_str(), why->second.c_str());
      return cudaErrorNotSupported;
    }
    auto it = img.variables.find(name);
    if (it == img.variables.end()) {
      RGPU_LOG_WARN("emulated backend: module has no variable '%s'", name.c_str());
      return cudaErrorSymbolNotFound;
    }
    found.push_back(&it->second);
  }

  auto module = std::make_unique<ModuleRecord>();
  LoadedModule result;
  for (size_t i = 0; i < variables.size(); ++i) {
    const ModuleVariable& object = *found[i];
    void* address = nullptr;
    if (cudaError_t err = allocate_variable(object, &address); err != cudaSuccess) {
      for (void* v : module->variables) state().memory.free(v);
      return err;
    }
    module->variables.push_back(address);
    module->by_name[variables[i]] = {address, object.size};
    result.variables.push_back({variables[i], reinterpret_cast<uint64_t>(address), object.size});
  }
  module->image_variables = std::move(img.variables);
  module->unreadable = std::move(img.unreadable);

  std::lock_guard lock(mu_);
  for (auto& f : records) {
    result.functions.push_back({f->name, f.get(), f->params});
    module->functions.push_back(f.get());
    functions_.emplace(f.get(), std::move(f));
  }
  result.handle = module.get();
  modules_.emplace(module.get(), std::move(module));
  *out = std::move(result);
  return cudaSuccess;
}

int32_t EmulatedBackend::module_global(void* handle, const std::string& name, uint64_t* address, uint64_t* size) {
  std::lock_guard lock(mu_);
  auto it = modules_.find(handle);
  if (it == modules_.end()) return cudaErrorInvalidResourceHandle;
  ModuleRecord& module = *it->second;
  auto known = module.by_name.find(name);
  if (known == module.by_name.end()) {
    if (auto why = module.unreadable.find(name); why != module.unreadable.end()) {
      RGPU_LOG_ERROR("emulated backend: variable '%s' is not supported: %s", name.c_str(), why->second.c_str());
      return cudaErrorNotSupported;
    }
    auto object = module.image_variables.find(name);
    if (object == module.image_variables.end()) return cudaErrorSymbolNotFound;
    void* p = nullptr;
    if (cudaError_t err = allocate_variable(object->second, &p); err != cudaSuccess) return err;
    module.variables.push_back(p);
    known = module.by_name.emplace(name, std::make_pair(p, object->second.size)).first;
  }
  *address = reinterpret_cast<uint64_t>(known->second.first);
  *size = known->second.second;
  return cudaSuccess;
}

int32_t EmulatedBackend::unload_module(void* handle) {
  std::unique_ptr<ModuleRecord> module;
  {
    std::lock_guard lock(mu_);
    auto it = modules_.find(handle);
    if (it == modules_.end()) return cudaErrorInvalidResourceHandle;
    module = std::move(it->second);
    modules_.erase(it);
    for (void* f : module->functions) functions_.erase(f);  // graphs that recorded them keep theirs
  }
  for (void* v : module->variables) state().memory.free(v);  // already gone after a device reset
  return cudaSuccess;
}

std::shared_ptr<FunctionRecord> EmulatedBackend::find_function(void* handle) const {
  std::lock_guard lock(mu_);
  auto it = functions_.find(handle);
  return it == functions_.end() ? nullptr : it->second;
}

int32_t EmulatedBackend::kernel_operation(const LaunchRequest& request, Operation* op) {
  std::shared_ptr<FunctionRecord> f = find_function(request.function);
  if (!f) return cudaErrorInvalidDeviceFunction;
  // CUDA 13 answers every bad launch configuration with cudaErrorInvalidValue (seen on an H200;
  // CUDA 12 said cudaErrorInvalidConfiguration for some).
  if (!valid_dims(request.grid, request.block, f->max_threads)) return cudaErrorInvalidValue;
  if (request.shared_mem > static_cast<uint32_t>(f->max_dynamic_shared)) return cudaErrorInvalidValue;
  int block_size = static_cast<int>(request.block[0] * request.block[1] * request.block[2]);
  if (block_registers(f->registers, block_size) > kRegistersPerSm) return cudaErrorLaunchOutOfResources;
  if (request.args.size() != f->args_size) {
    RGPU_LOG_WARN("emulated backend: %s: %zu argument bytes, the layout needs %u", f->name.c_str(),
                  request.args.size(), f->args_size);
    return cudaErrorInvalidValue;
  }
  int cluster = 1;
  if (int32_t st = check_attributes(*f, request, &cluster); st != cudaSuccess) return st;
  if (request.cooperative) {
    uint64_t blocks = uint64_t{request.grid[0]} * request.grid[1] * request.grid[2];
    if (blocks > uint64_t(blocks_per_sm(*f, block_size, request.shared_mem)) * kMultiProcessorCount)
      return cudaErrorCooperativeLaunchTooLarge;
  }
  *op = [f, total = launches_, device = current_device()] {
    f->launches.fetch_add(1, std::memory_order_relaxed);
    total->fetch_add(1, std::memory_order_relaxed);
    state().occupy(device);
    return cudaSuccess;
  };
  return cudaSuccess;
}

int32_t EmulatedBackend::launch(const LaunchRequest& request) {
  Operation op;
  if (int32_t st = kernel_operation(request, &op); st != cudaSuccess) return st;
  return state().enqueue_async(static_cast<cudaStream_t>(request.stream), cudaGraphNodeTypeKernel, std::move(op));
}

int32_t EmulatedBackend::add_kernel_node(void* graph, std::span<void* const> deps, const LaunchRequest& request,
                                         void** node) {
  Operation op;
  if (int32_t st = kernel_operation(request, &op); st != cudaSuccess) return st;
  return add_graph_node(static_cast<cudaGraph_t>(graph), reinterpret_cast<const cudaGraphNode_t*>(deps.data()),
                        deps.size(), {cudaGraphNodeTypeKernel, std::move(op)}, reinterpret_cast<cudaGraphNode_t*>(node));
}

int32_t EmulatedBackend::set_kernel_node(void* exec, void* node, const LaunchRequest& request) {
  Operation op;
  if (int32_t st = kernel_operation(request, &op); st != cudaSuccess) return st;
  return set_graph_node(static_cast<cudaGraphExec_t>(exec), static_cast<cudaGraphNode_t>(node),
                        cudaGraphNodeTypeKernel, std::move(op));
}

uint64_t EmulatedBackend::launches(void* function) const {
  std::shared_ptr<FunctionRecord> f = find_function(function);
  return f ? f->launches.load() : 0;
}

int32_t EmulatedBackend::function_attributes(void* function, cudaFuncAttributes* out) {
  std::shared_ptr<FunctionRecord> f = find_function(function);
  if (!f) return cudaErrorInvalidDeviceFunction;
  if (!out) return cudaErrorInvalidValue;
  std::memset(out, 0, sizeof *out);
  out->sharedSizeBytes = f->static_shared;
  // As CUDA reports it: the launch bound, or fewer when the registers run out first.
  uint64_t register_bound = kRegistersPerSm / block_registers(f->registers, kWarpSize) * kWarpSize;
  out->maxThreadsPerBlock = static_cast<int>(std::min<uint64_t>(f->max_threads, register_bound));
  out->numRegs = static_cast<int>(f->registers);
  out->ptxVersion = static_cast<int>(kArch);
  out->binaryVersion = static_cast<int>(kArch);
  out->maxDynamicSharedSizeBytes = f->max_dynamic_shared;
  out->preferredShmemCarveout = f->carveout;
  out->clusterDimMustBeSet = f->cluster[0];
  out->requiredClusterWidth = f->cluster[1];
  out->requiredClusterHeight = f->cluster[2];
  out->requiredClusterDepth = f->cluster[3];
  out->nonPortableClusterSizeAllowed = f->cluster[4];
  out->clusterSchedulingPolicyPreference = f->cluster[5];
  return cudaSuccess;
}

int32_t EmulatedBackend::set_function_attribute(void* function, int attr, int value) {
  std::shared_ptr<FunctionRecord> f = find_function(function);
  if (!f) return cudaErrorInvalidDeviceFunction;
  switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
      if (value < 0 || value > kSharedMemPerBlockOptin - static_cast<int>(f->static_shared))
        return cudaErrorInvalidValue;
      f->max_dynamic_shared = value;
      return cudaSuccess;
    case cudaFuncAttributePreferredSharedMemoryCarveout:
      if (value < -1 || value > 100) return cudaErrorInvalidValue;
      f->carveout = value;
      return cudaSuccess;
    case cudaFuncAttributeClusterDimMustBeSet:
    case cudaFuncAttributeRequiredClusterWidth:
    case cudaFuncAttributeRequiredClusterHeight:
    case cudaFuncAttributeRequiredClusterDepth:
    case cudaFuncAttributeNonPortableClusterSizeAllowed:
    case cudaFuncAttributeClusterSchedulingPolicyPreference:
      if (value < 0) return cudaErrorInvalidValue;
      f->cluster[attr - cudaFuncAttributeClusterDimMustBeSet] = value;
      return cudaSuccess;
    default:
      return cudaErrorInvalidValue;
  }
}

int32_t EmulatedBackend::occupancy_max_active_blocks(void* function, int block_size, size_t dynamic_smem,
                                                     unsigned flags, int* num_blocks) {
  std::shared_ptr<FunctionRecord> f = find_function(function);
  if (!f) return cudaErrorInvalidDeviceFunction;
  if (!num_blocks || block_size <= 0 || (flags & ~unsigned{cudaOccupancyDisableCachingOverride}))
    return cudaErrorInvalidValue;
  *num_blocks = blocks_per_sm(*f, block_size, dynamic_smem);
  return cudaSuccess;
}

int32_t EmulatedBackend::available_dynamic_smem(void* function, int num_blocks, int block_size, size_t* bytes) {
  std::shared_ptr<FunctionRecord> f = find_function(function);
  if (!f) return cudaErrorInvalidDeviceFunction;
  if (!bytes || num_blocks <= 0 || block_size <= 0) return cudaErrorInvalidValue;
  // Nothing when that many blocks cannot be resident for their threads or registers alone.
  if (blocks_per_sm(*f, block_size, 0) < num_blocks) {
    *bytes = 0;
    return cudaSuccess;
  }
  const size_t per_block = kSharedMemPerMultiProcessor / static_cast<size_t>(num_blocks);
  const size_t taken = f->static_shared + kReservedSharedMemPerBlock;
  const size_t optin = static_cast<size_t>(kSharedMemPerBlockOptin) - f->static_shared;
  *bytes = per_block > taken ? std::min(per_block - taken, optin) : 0;
  return cudaSuccess;
}

int32_t EmulatedBackend::cluster_occupancy(const LaunchRequest& request, bool potential_size, int* answer) {
  std::shared_ptr<FunctionRecord> f = find_function(request.function);
  if (!f) return cudaErrorInvalidDeviceFunction;
  if (!answer) return cudaErrorInvalidValue;
  int cluster = 1;
  if (int32_t st = check_attributes(*f, request, &cluster); st != cudaSuccess) return st;
  const int block_size = static_cast<int>(request.block[0] * request.block[1] * request.block[2]);
  const int resident = blocks_per_sm(*f, block_size, request.shared_mem) * kMultiProcessorCount;
  *answer = potential_size ? (resident > 0 ? max_cluster_size(*f) : 0) : resident / cluster;
  return cudaSuccess;
}

uint64_t EmulatedBackend::memory_in_use() { return state().memory.used_total(); }

int32_t EmulatedBackend::allocation_range(uint64_t address, uint64_t* base, uint64_t* size) {
  DeviceRange r = state().memory.find(reinterpret_cast<const void*>(address), 0);
  if (!r) return cudaErrorInvalidValue;
  *base = reinterpret_cast<uintptr_t>(r.allocation->data);
  *size = r.allocation->size;
  return cudaSuccess;
}

// Movable ranges are ordinary allocations whose backing can be dropped and counted again
// (DeviceMemory::release_backing): what a swap did not copy out is lost, as on the GPU.
int32_t EmulatedBackend::movable_alloc(uint64_t size, uint64_t* address) {
  if (size == 0 || size % movable_granularity()) return cudaErrorInvalidValue;
  void* p = nullptr;
  cudaError_t st = state().memory.allocate(current_device(), size, &p);
  if (st == cudaSuccess) *address = reinterpret_cast<uintptr_t>(p);
  return st;
}

int32_t EmulatedBackend::movable_free(uint64_t address) {
  return state().memory.free(reinterpret_cast<const void*>(address));
}

int32_t EmulatedBackend::movable_release(uint64_t address) {
  return state().memory.release_backing(reinterpret_cast<const void*>(address));
}

int32_t EmulatedBackend::movable_restore(uint64_t address) {
  return state().memory.restore_backing(reinterpret_cast<const void*>(address));
}

int32_t EmulatedBackend::host_mapped_alloc(uint64_t size, uint64_t want, uint64_t* address, uint8_t** host) {
  void* p = nullptr;
  cudaError_t st = state().memory.allocate_host_mapped(current_device(), size, want, &p);
  if (st != cudaSuccess) return st;
  *address = reinterpret_cast<uintptr_t>(p);  // a device address is the host address of its backing
  if (host) *host = static_cast<uint8_t*>(p);
  return st;
}

int32_t EmulatedBackend::host_map_shared(int fd, uint64_t size, uint64_t want, uint8_t** host, uint64_t* address) {
  void* p = nullptr;
  if (cudaError_t st = state().memory.map_file(current_device(), fd, 0, size, &p, want); st != cudaSuccess) return st;
  *host = static_cast<uint8_t*>(p);
  *address = reinterpret_cast<uintptr_t>(p);  // a device address is the host address of its backing
  return cudaSuccess;
}

int32_t EmulatedBackend::host_unmap_shared(uint8_t* host, uint64_t size) {
  (void)size;
  return state().memory.free(host);
}

int32_t EmulatedBackend::host_mapped_free(uint64_t address) {
  return state().memory.free(reinterpret_cast<const void*>(address));
}

bool EmulatedBackend::queue_write(void* stream, std::function<void()> write) {
  auto s = static_cast<cudaStream_t>(stream);
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusActive;
  if (emulated::cudaStreamIsCapturing(s, &capturing) != cudaSuccess || capturing != cudaStreamCaptureStatusNone)
    return false;
  return state().enqueue_async(s, cudaGraphNodeTypeHost, [write = std::move(write)] {
    write();
    return cudaSuccess;
  }) == cudaSuccess;
}

uint32_t EmulatedBackend::mark_stream(void* stream) {
  const MarkRing::Mark mark = marks_.next();
  // `keep` holds the words while the operation waits its turn (this backend may be gone by then).
  const bool queued = queue_write(stream, [mark, keep = mark_words_] {
    __atomic_store_n(mark.word, mark.number, __ATOMIC_RELEASE);
  });
  return queued ? mark.number : 0;
}

bool EmulatedBackend::write_after(void* stream, uint32_t* host_word, uint64_t device_word, uint32_t value) {
  (void)device_word;  // the same address here
  return queue_write(stream, [host_word, value] { __atomic_store_n(host_word, value, __ATOMIC_RELEASE); });
}

}  // namespace rgpu::server::emulated

namespace rgpu::server {
std::unique_ptr<Backend> make_emulated_backend() { return std::make_unique<emulated::EmulatedBackend>(); }
}  // namespace rgpu::server
