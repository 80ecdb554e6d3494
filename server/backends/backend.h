// A backend executes a session's calls: `cuda` on the real GPU, `emulated` in host memory.
// The generated dispatchers call the CUDA Runtime through `cudart()` and cuBLAS through
// `cublas()`, the NVML handlers NVML through `nvml()`; the hand-written handlers (modules,
// launches) use the rest of this interface.
//
// One backend instance lives in each session's worker process (rgpud forks one per client), so a
// backend holds process-wide state freely and everything is released when the worker exits.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/support/api_tables_fwd.h"
#include "common/status.h"

struct cudaFuncAttributes;
struct cudaLaunchAttribute_st;

namespace rgpu::server {

struct KernelParam {
  uint32_t offset;
  uint32_t size;
};

struct LoadedFunction {
  std::string name;
  void* handle = nullptr;  // CUfunction, or the emulated backend's record
  std::vector<KernelParam> params;
};

struct LoadedVariable {
  std::string name;
  uint64_t address = 0;  // device address
  uint64_t size = 0;
};

struct LoadedModule {
  void* handle = nullptr;  // CUmodule, or the emulated backend's record
  std::vector<LoadedFunction> functions;  // in the order of the names asked for
  std::vector<LoadedVariable> variables;
};

struct LaunchRequest {
  void* function = nullptr;     // LoadedFunction::handle
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t shared_mem = 0;
  void* stream = nullptr;       // the real cudaStream_t (already translated from the client id)
  bool cooperative = false;
  // The launch attributes other than cooperation (cudaLaunchKernelExC's; ids and values as the
  // driver's CUlaunchAttribute has them, events already the backend's).
  std::span<const cudaLaunchAttribute_st> attributes;
  // The kernel's argument buffer, packed by the client at the offsets of the parameter layout.
  std::span<const uint8_t> args;
  const std::vector<KernelParam>* params = nullptr;
};

struct DeviceSummary {
  std::string name;
  uint64_t total_memory = 0;
  int major = 0;
  int minor = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;
  // Called once in the worker before the first call; loads libraries, creates the context.
  virtual Status init() = 0;
  // The part of init() that holds no GPU memory (the cuda backend: loading the driver and the
  // runtime, cuInit), which a session waiting in the pool's queue may do ahead; init() then does the
  // rest. Optional: init() alone does everything.
  virtual Status prepare() { return Status::ok(); }
  virtual const gen::cudart::Api& cudart() const = 0;
  // cuBLAS entry points; null entries answer CUBLAS_STATUS_NOT_SUPPORTED. The table may be empty
  // until load_cublas(), which the session calls before each cuBLAS call (the first one loads
  // the library, so sessions that use no cuBLAS never pay for it).
  virtual const gen::cublas::Api& cublas() const = 0;
  virtual void load_cublas() {}
  // NVML entry points (codegen/specs/nvml.yaml's subset), loaded the same way by load_nvml();
  // null entries answer NVML_ERROR_NOT_SUPPORTED.
  virtual const gen::nvml::Api& nvml() const = 0;
  virtual void load_nvml() {}
  // cuBLASLt entry points, loaded the same way by load_cublasLt(); null entries answer
  // CUBLAS_STATUS_NOT_SUPPORTED.
  virtual const gen::cublasLt::Api& cublasLt() const = 0;
  virtual void load_cublasLt() {}
  // cuDNN entry points, loaded the same way by load_cudnn(); null entries answer
  // CUDNN_STATUS_NOT_SUPPORTED.
  virtual const gen::cudnn::Api& cudnn() const = 0;
  virtual void load_cudnn() {}
  // cuRAND entry points, loaded the same way by load_curand(); null entries answer
  // CURAND_STATUS_INTERNAL_ERROR (cuRAND has no "not supported"), logged once.
  virtual const gen::curand::Api& curand() const = 0;
  virtual void load_curand() {}
  // cuFFT entry points, loaded the same way by load_cufft(); null entries answer
  // CUFFT_NOT_SUPPORTED, logged once.
  virtual const gen::cufft::Api& cufft() const = 0;
  virtual void load_cufft() {}
  // cuSPARSE entry points, loaded the same way by load_cusparse(); null entries answer
  // CUSPARSE_STATUS_NOT_SUPPORTED, logged once.
  virtual const gen::cusparse::Api& cusparse() const = 0;
  virtual void load_cusparse() {}
  // cuSOLVER entry points, loaded the same way by load_cusolver(); null entries answer
  // CUSOLVER_STATUS_NOT_SUPPORTED, logged once.
  virtual const gen::cusolver::Api& cusolver() const = 0;
  virtual void load_cusolver() {}
  // The driver's error log (cudaLogs*; the session keeps its own copy, server/session/error_log.h):
  // the backend hands `sink` each entry, a line in the driver's format, from whichever thread wrote
  // it. The cuda backend has the driver call it (cuLogsRegisterCallback); the emulated backend, which
  // has no driver, writes a line for each runtime call of it that fails (log_failure).
  using ErrorLogSink = std::function<void(std::string_view line)>;
  virtual void collect_error_log(ErrorLogSink sink) { (void)sink; }
  // The runtime call `api` returned `status` (nonzero). A driver logs its own failures, so only a
  // backend without one writes a line here.
  virtual void log_failure(const char* api, int32_t status) { (void)api, (void)status; }
  virtual std::vector<DeviceSummary> devices() = 0;
  // Compute capability of `device` as major*10+minor (selects the fatbin slice the client sends).
  virtual uint32_t arch(int device) = 0;

  // Returns a cudaError_t. Loads `image` (a fatbin container, cubin or PTX) and looks up each
  // named function (with its parameter layout) and variable (address and size).
  virtual int32_t load_module(std::span<const uint8_t> image, const std::vector<std::string>& functions,
                              const std::vector<std::string>& variables, LoadedModule* out) = 0;
  virtual int32_t unload_module(void* module) = 0;
  // A module-scope variable of a loaded module looked up by name (the driver API's
  // cuModuleGetGlobal, for modules whose variables the client cannot list in advance). The default
  // answers cudaErrorNotSupported (801).
  virtual int32_t module_global(void* module, const std::string& name, uint64_t* address, uint64_t* size) {
    (void)module, (void)name, (void)address, (void)size;
    return 801;
  }
  virtual int32_t launch(const LaunchRequest& request) = 0;
  // A graph's kernel node (cudaGraphAddKernelNode): the launch, minus its stream, added to `graph`
  // (the backend's cudaGraph_t) after `deps` (its cudaGraphNode_t values); *node is the new node.
  // The default answers cudaErrorNotSupported (801).
  virtual int32_t add_kernel_node(void* graph, std::span<void* const> deps, const LaunchRequest& request, void** node) {
    (void)graph, (void)deps, (void)request, (void)node;
    return 801;
  }
  // New parameters for a kernel node: the graph's own node (exec null), or its copy in the
  // executable graph `exec` (cudaGraphExecKernelNodeSetParams).
  virtual int32_t set_kernel_node(void* exec, void* node, const LaunchRequest& request) {
    (void)exec, (void)node, (void)request;
    return 801;
  }
  virtual int32_t function_attributes(void* function, cudaFuncAttributes* out) = 0;
  // attr is a cudaFuncAttribute value.
  virtual int32_t set_function_attribute(void* function, int attr, int value) = 0;
  virtual int32_t occupancy_max_active_blocks(void* function, int block_size, size_t dynamic_smem,
                                              unsigned flags, int* num_blocks) = 0;
  // The dynamic shared memory a block may take with `num_blocks` blocks of `block_size` threads per
  // multiprocessor (cudaOccupancyAvailableDynamicSMemPerBlock).
  virtual int32_t available_dynamic_smem(void* function, int num_blocks, int block_size, size_t* bytes) = 0;
  // For a launch's shape and attributes: the largest cluster it could take (potential_size), or how
  // many of its clusters fit on the GPU at once (cudaOccupancyMaxPotentialClusterSize /
  // MaxActiveClusters).
  virtual int32_t cluster_occupancy(const LaunchRequest& request, bool potential_size, int* answer) = 0;
  // Bytes of device memory this process holds now (for the session-end log line).
  virtual uint64_t memory_in_use() = 0;
  // The device allocation containing `address` (memory opened from another session's IPC handle
  // included): its base and size, for the client's memory map. cudaError_t; cudaErrorNotSupported
  // by default.
  virtual int32_t allocation_range(uint64_t address, uint64_t* base, uint64_t* size) {
    (void)address, (void)base, (void)size;
    return 801;
  }

  // Movable device memory, for swapping an idle session out to host memory (server/session/
  // swap_space.h): an address range whose physical backing can be released and made again at the
  // same address, so the device pointers a program holds stay valid (the driver's virtual memory
  // API). Sizes are multiples of movable_granularity(). cudaError_t values; the defaults answer
  // cudaErrorNotSupported (801).
  virtual uint64_t movable_granularity() { return 2u << 20; }
  virtual int32_t movable_alloc(uint64_t size, uint64_t* address) {
    (void)size, (void)address;
    return 801;
  }
  virtual int32_t movable_free(uint64_t address) {
    (void)address;
    return 801;
  }
  // Gives the range's physical memory back (its contents are lost); the range stays reserved.
  virtual int32_t movable_release(uint64_t address) {
    (void)address;
    return 801;
  }
  // Backs a released range again (contents undefined until written).
  virtual int32_t movable_restore(uint64_t address) {
    (void)address;
    return 801;
  }

  // Host memory the GPU reads and writes across the bus (pinned, device-mapped), for a tenant's
  // memory extension (server/session/host_extension.h) and the mirrors of a client's mapped host
  // memory (server/session/mapped_mirrors.h): `address` is what kernels and copies use, `host`
  // (when not null) where the worker itself reads and writes it. A nonzero `want` (page-aligned)
  // asks for that host address, so that the GPU sees the client's own addresses; when it is taken
  // here the memory goes elsewhere (the caller compares). It starts zero-filled.
  virtual int32_t host_mapped_alloc(uint64_t size, uint64_t want, uint64_t* address, uint8_t** host) {
    (void)size, (void)want, (void)address, (void)host;
    return 801;
  }
  virtual int32_t host_mapped_free(uint64_t address) {
    (void)address;
    return 801;
  }
  // Host memory a client on this host shares with its session (server/session/shared_host.h):
  // `size` bytes of the file `fd` (the caller keeps the descriptor) mapped into this worker, at
  // `want` when that address is free here, pinned and mapped for the device. *host is where the
  // worker reads and writes it, *address what kernels and copies use: with unified addressing the
  // host address, so a mapping placed at the client's own address means the same to the client's
  // kernels (its mapped memory needs no mirror: client/runtime/mapped_memory.h). Undone by
  // host_unmap_shared(*host, size).
  virtual int32_t host_map_shared(int fd, uint64_t size, uint64_t want, uint8_t** host, uint64_t* address) {
    (void)fd, (void)size, (void)want, (void)host, (void)address;
    return 801;
  }
  virtual int32_t host_unmap_shared(uint8_t* host, uint64_t size) {
    (void)host, (void)size;
    return 801;
  }
  // Stream marks (stream_marks.h): mark_stream puts a mark behind the work queued on `stream` so
  // far and returns its number, or 0 when it cannot (no marks in this backend, a capturing stream,
  // a driver error); mark_passed reads memory only. Called from the session thread.
  virtual uint32_t mark_stream(void* stream) {
    (void)stream;
    return 0;
  }
  virtual bool mark_passed(uint32_t mark) const {
    (void)mark;
    return false;
  }
  // Puts a write of `value` into the word at `host_word` (where this worker sees it; the device's
  // address for it is `device_word`) on `stream`, behind the work queued there so far: the word
  // holds `value` once that work is done. False when it cannot (no such writes in this backend, a
  // capturing stream, a driver error). Mapped host memory only; session thread.
  virtual bool write_after(void* stream, uint32_t* host_word, uint64_t device_word, uint32_t value) {
    (void)stream, (void)host_word, (void)device_word, (void)value;
    return false;
  }
  // Pins host memory the process mapped itself, for copies at the bus's speed (a swapped session's
  // host copy). The emulated backend, whose device memory is host memory, needs none.
  virtual int32_t host_register(void* host, uint64_t size) {
    (void)host, (void)size;
    return 801;
  }
  virtual int32_t host_unregister(void* host) {
    (void)host;
    return 801;
  }
};

std::unique_ptr<Backend> make_cuda_backend();
std::unique_ptr<Backend> make_emulated_backend();

}  // namespace rgpu::server
