// The emulated Backend: the CUDA Runtime of runtime.h through cudart(), the cuBLAS subset of
// cublas.h through cublas(), the NVML subset of nvml.h through nvml(), the cuDNN subset of
// cudnn.h through cudnn(), and modules whose kernels
// are validated and recorded at launch but not executed.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "gen/cublas/cublas_api.h"
#include "gen/cublasLt/cublasLt_api.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudnn/cudnn_api.h"
#include "gen/cufft/cufft_api.h"
#include "gen/curand/curand_api.h"
#include "gen/cusparse/cusparse_api.h"
#include "gen/nvml/nvml_api.h"
#include "server/backends/backend.h"
#include "server/backends/cusolver_table.h"  // after the cuBLAS table
#include "server/backends/emulated/runtime_state.h"
#include "server/backends/stream_marks.h"

namespace rgpu::server::emulated {

struct FunctionRecord;
struct ModuleRecord;

class EmulatedBackend final : public Backend {
 public:
  EmulatedBackend();
  ~EmulatedBackend() override;

  const char* name() const override { return "emulated"; }
  Status init() override;
  const gen::cudart::Api& cudart() const override { return api_; }
  const gen::cublas::Api& cublas() const override { return cublas_; }
  const gen::nvml::Api& nvml() const override { return nvml_; }
  const gen::cublasLt::Api& cublasLt() const override { return cublasLt_; }
  const gen::cudnn::Api& cudnn() const override { return cudnn_; }
  const gen::curand::Api& curand() const override { return curand_; }
  const gen::cufft::Api& cufft() const override { return cufft_; }
  const gen::cusparse::Api& cusparse() const override { return cusparse_; }
  const gen::cusolver::Api& cusolver() const override { return cusolver_; }
  void collect_error_log(ErrorLogSink sink) override { error_log_ = std::move(sink); }
  // No driver writes a log here: each failed runtime call is an entry, in the driver's format.
  void log_failure(const char* api, int32_t status) override;
  std::vector<DeviceSummary> devices() override;
  uint32_t arch(int device) override;
  int32_t load_module(std::span<const uint8_t> image, const std::vector<std::string>& functions,
                      const std::vector<std::string>& variables, LoadedModule* out) override;
  int32_t unload_module(void* module) override;
  int32_t module_global(void* module, const std::string& name, uint64_t* address, uint64_t* size) override;
  int32_t launch(const LaunchRequest& request) override;
  // Recorded as a launch is; a set records the new launch in the node (or its executable copy).
  int32_t add_kernel_node(void* graph, std::span<void* const> deps, const LaunchRequest& request,
                          void** node) override;
  int32_t set_kernel_node(void* exec, void* node, const LaunchRequest& request) override;
  int32_t function_attributes(void* function, cudaFuncAttributes* out) override;
  int32_t set_function_attribute(void* function, int attr, int value) override;
  int32_t occupancy_max_active_blocks(void* function, int block_size, size_t dynamic_smem, unsigned flags,
                                      int* num_blocks) override;
  int32_t available_dynamic_smem(void* function, int num_blocks, int block_size, size_t* bytes) override;
  // Clusters of up to 8 blocks (16 where the kernel allows non-portable sizes), placed as freely as
  // blocks are: what fits is the blocks that fit, in whole clusters.
  int32_t cluster_occupancy(const LaunchRequest& request, bool potential_size, int* answer) override;
  uint64_t memory_in_use() override;
  int32_t allocation_range(uint64_t address, uint64_t* base, uint64_t* size) override;
  int32_t movable_alloc(uint64_t size, uint64_t* address) override;
  int32_t movable_free(uint64_t address) override;
  int32_t movable_release(uint64_t address) override;
  int32_t movable_restore(uint64_t address) override;
  int32_t host_mapped_alloc(uint64_t size, uint64_t want, uint64_t* address, uint8_t** host) override;
  int32_t host_mapped_free(uint64_t address) override;
  int32_t host_map_shared(int fd, uint64_t size, uint64_t want, uint8_t** host, uint64_t* address) override;
  int32_t host_unmap_shared(uint8_t* host, uint64_t size) override;
  int32_t host_register(void*, uint64_t) override { return 0; }  // nothing to pin: device memory is host memory
  int32_t host_unregister(void*) override { return 0; }
  // A host operation that writes the mark, run when the stream's earlier work has had its time.
  uint32_t mark_stream(void* stream) override;
  bool mark_passed(uint32_t mark) const override { return marks_.passed(mark); }
  // Likewise a host operation that writes the value.
  bool write_after(void* stream, uint32_t* host_word, uint64_t device_word, uint32_t value) override;

  // Kernel launches executed so far (a launch captured into a graph counts at each replay).
  uint64_t launches() const { return *launches_; }
  uint64_t launches(void* function) const;

 private:
  std::shared_ptr<FunctionRecord> find_function(void* handle) const;
  // Queues `write` on `stream` as a host operation, unless the stream captures.
  bool queue_write(void* stream, std::function<void()> write);
  // A launch checked against the kernel and the device, as the operation that records it.
  int32_t kernel_operation(const LaunchRequest& request, Operation* op);

  gen::cudart::Api api_;
  gen::cublas::Api cublas_;  // the CPU reference of cublas.h
  gen::nvml::Api nvml_;      // the virtual devices seen through NVML (nvml.h)
  gen::cublasLt::Api cublasLt_;  // FP32 matmuls on the CPU reference (cublaslt.h)
  gen::cudnn::Api cudnn_;    // handles and descriptors of cudnn.h; compute recorded (ReLU, AddTensor run)
  gen::curand::Api curand_;  // generators of curand.h with a generator of its own (curand.h here)
  gen::cufft::Api cufft_;    // plans of cufft.h, transforms by direct DFT on the CPU (cufft.h here)
  gen::cusparse::Api cusparse_;  // handles, generic descriptors and CSR SpMV of cusparse.h (cusparse.h here)
  gen::cusolver::Api cusolver_;  // dense handles, LU and Cholesky of cusolverDn.h (cusolver.h here)
  std::shared_ptr<std::atomic<uint64_t>> launches_;  // shared with recorded graph operations
  ErrorLogSink error_log_;
  // Shared with the host operations that write them: one may run after this backend is gone.
  std::shared_ptr<uint32_t[]> mark_words_ = std::make_shared<uint32_t[]>(MarkRing::kWords);
  MarkRing marks_{mark_words_.get()};
  mutable std::mutex mu_;
  std::unordered_map<void*, std::unique_ptr<ModuleRecord>> modules_;
  std::unordered_map<void*, std::shared_ptr<FunctionRecord>> functions_;  // of loaded modules
};

}  // namespace rgpu::server::emulated
