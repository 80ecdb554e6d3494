// The backend that runs a session's calls on the real GPU through dlopen()ed libcuda, libcudart
// and (on first use) libcublas, libnvidia-ml and libcudnn. Internal to this folder: the rest of rgpud sees only make_cuda_backend().
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "gen/cublas/cublas_api.h"
#include "gen/cublasLt/cublasLt_api.h"
#include "gen/cudnn/cudnn_api.h"
#include "gen/cufft/cufft_api.h"
#include "gen/curand/curand_api.h"
#include "gen/cusparse/cusparse_api.h"
#include "gen/nvml/nvml_api.h"
#include "server/backends/backend.h"
#include "server/backends/cusolver_table.h"  // after the cuBLAS table
#include "server/backends/cuda/cuda_driver_api.h"
#include "server/backends/cuda/launch_config.h"
#include "server/backends/cuda/on_demand_library.h"
#include "server/backends/cuda/shared_library.h"
#include "server/backends/stream_marks.h"

namespace rgpu::server::cuda {

// The runtime entry points init() itself needs, apart from the generated table.
struct RuntimeBootstrap {
  decltype(&::cudaSetDevice) cudaSetDevice = nullptr;
  decltype(&::cudaFree) cudaFree = nullptr;
  decltype(&::cudaGetErrorString) cudaGetErrorString = nullptr;
};

class CudaBackend final : public Backend {
 public:
  CudaBackend();
  ~CudaBackend() override;

  const char* name() const override { return "cuda"; }
  Status init() override;
  Status prepare() override;
  const gen::cudart::Api& cudart() const override;
  const gen::cublas::Api& cublas() const override { return cublas_.api; }
  void load_cublas() override;  // cuda_backend_cublas.cpp
  const gen::nvml::Api& nvml() const override { return nvml_.api; }
  void load_nvml() override;  // cuda_backend_nvml.cpp
  const gen::cublasLt::Api& cublasLt() const override { return cublasLt_.api; }
  void load_cublasLt() override;  // cuda_backend_cublaslt.cpp
  const gen::cudnn::Api& cudnn() const override { return cudnn_.api; }
  void load_cudnn() override;  // cuda_backend_cudnn.cpp
  const gen::curand::Api& curand() const override { return curand_.api; }
  void load_curand() override;  // cuda_backend_curand.cpp
  const gen::cufft::Api& cufft() const override { return cufft_.api; }
  void load_cufft() override;  // cuda_backend_cufft.cpp
  const gen::cusparse::Api& cusparse() const override { return cusparse_.api; }
  void load_cusparse() override;  // cuda_backend_cusparse.cpp
  const gen::cusolver::Api& cusolver() const override { return cusolver_.api; }
  void load_cusolver() override;  // cuda_backend_cusolver.cpp
  // The driver's own log entries, as it writes them (cuLogsRegisterCallback; cuda_backend_logs.cpp).
  void collect_error_log(ErrorLogSink sink) override;
  std::vector<DeviceSummary> devices() override;
  uint32_t arch(int device) override;

  int32_t load_module(std::span<const uint8_t> image, const std::vector<std::string>& functions,
                      const std::vector<std::string>& variables, LoadedModule* out) override;
  int32_t unload_module(void* module) override;
  int32_t module_global(void* module, const std::string& name, uint64_t* address, uint64_t* size) override;
  int32_t launch(const LaunchRequest& request) override;
  int32_t add_kernel_node(void* graph, std::span<void* const> deps, const LaunchRequest& request,
                          void** node) override;  // cuda_backend_graph_nodes.cpp
  int32_t set_kernel_node(void* exec, void* node, const LaunchRequest& request) override;
  int32_t function_attributes(void* function, cudaFuncAttributes* out) override;
  int32_t set_function_attribute(void* function, int attr, int value) override;
  int32_t occupancy_max_active_blocks(void* function, int block_size, size_t dynamic_smem, unsigned flags,
                                      int* num_blocks) override;
  int32_t available_dynamic_smem(void* function, int num_blocks, int block_size, size_t* bytes) override;
  int32_t cluster_occupancy(const LaunchRequest& request, bool potential_size, int* answer) override;
  // What nvidia-smi shows for this process (NVML's per-process figure over its devices).
  uint64_t memory_in_use() override;
  int32_t allocation_range(uint64_t address, uint64_t* base, uint64_t* size) override;  // cuda_backend_ipc.cpp
  uint64_t movable_granularity() override;
  int32_t movable_alloc(uint64_t size, uint64_t* address) override;
  int32_t movable_free(uint64_t address) override;
  int32_t movable_release(uint64_t address) override;
  int32_t movable_restore(uint64_t address) override;
  int32_t host_mapped_alloc(uint64_t size, uint64_t want, uint64_t* address, uint8_t** host) override;
  int32_t host_mapped_free(uint64_t address) override;
  int32_t host_map_shared(int fd, uint64_t size, uint64_t want, uint8_t** host, uint64_t* address) override;
  int32_t host_unmap_shared(uint8_t* host, uint64_t size) override;
  int32_t host_register(void* host, uint64_t size) override;
  int32_t host_unregister(void* host) override;
  uint32_t mark_stream(void* stream) override;  // cuda_backend_marks.cpp
  bool mark_passed(uint32_t mark) const override;
  bool write_after(void* stream, uint32_t* host_word, uint64_t device_word, uint32_t value) override;

 private:
  // A movable range (cuda_backend_movable.cpp): its size and, while backed, its physical handle.
  struct MovableRange {
    uint64_t size = 0;
    CUmemGenericAllocationHandle handle = 0;
    bool backed = false;
  };
  int32_t back_range(uint64_t address, MovableRange& range);

  // cuda_backend_nvml.cpp; empty when NVML cannot say.
  std::optional<uint64_t> process_memory_from_nvml();
  Status load_driver();
  Status load_runtime();
  Status start_context();
  // Makes the worker's context current on the calling thread when none is (helper threads).
  // Returns false when no context could be made current.
  bool make_context_current();
  // Host pages this worker mapped, pinned and mapped for the device (*device: the GPU's address);
  // on failure they are unmapped. unmap_for_device undoes both. cuda_backend_movable.cpp.
  int32_t map_for_device(uint8_t* host, uint64_t size, uint64_t* device);
  int32_t unmap_for_device(uint8_t* host, uint64_t size);
  // Looks up every function and variable of a freshly loaded module.
  int32_t resolve_module_symbols(CUmodule module, const std::vector<std::string>& functions,
                                 const std::vector<std::string>& variables, LoadedModule* out);
  cudaError_t read_param_layout(CUfunction function, std::vector<KernelParam>* params);

  // Stream marks in mapped host memory, made at the first mark; null when that failed.
  std::unique_ptr<MarkRing> marks_;
  bool marks_tried_ = false;
  bool ready_ = false;
  bool prepared_ = false;  // prepare() done: the driver and the runtime are loaded
  SharedLibrary driver_library_;
  SharedLibrary runtime_library_;
  DriverApi driver_;
  RuntimeBootstrap runtime_;
  std::unique_ptr<gen::cudart::Api> cudart_;
  // Loaded on a session's first call into them (on_demand_library.h).
  OnDemandLibrary<gen::cublas::Api> cublas_;
  OnDemandLibrary<gen::nvml::Api> nvml_;
  OnDemandLibrary<gen::cublasLt::Api> cublasLt_;
  OnDemandLibrary<gen::cudnn::Api> cudnn_;
  OnDemandLibrary<gen::curand::Api> curand_;
  OnDemandLibrary<gen::cufft::Api> cufft_;
  OnDemandLibrary<gen::cusparse::Api> cusparse_;
  OnDemandLibrary<gen::cusolver::Api> cusolver_;
  ErrorLogSink error_log_;        // the driver calls it through on_driver_log
  static void on_driver_log(void* self, CUlogLevel level, char* message, size_t length);
  CUcontext context_ = nullptr;  // the primary context init() made current
  LaunchLimits limits_;
  uint64_t free_at_start_ = 0;  // device memory free after init, memory_in_use()'s baseline without NVML
  std::vector<nvmlDevice_t> nvml_devices_;  // this process's devices, found once by PCI bus id
  bool nvml_devices_found_ = false;
  std::mutex movable_mu_;
  std::map<uint64_t, MovableRange> movable_;  // by address
  struct HostMapped {
    void* host = nullptr;
    uint64_t size = 0;
  };
  std::map<uint64_t, HostMapped> host_mapped_;  // by device address
};

}  // namespace rgpu::server::cuda
