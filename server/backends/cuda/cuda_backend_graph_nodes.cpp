// CudaBackend: graph kernel nodes, through the driver API as launches are (the kernels are the
// driver's CUfunctions of the modules rgpu loaded).
#include "common/log.h"
#include "server/backends/cuda/cu_to_cuda_error.h"
#include "server/backends/cuda/cuda_backend.h"
#include "server/backends/cuda/kernel_params.h"

namespace rgpu::server::cuda {
namespace {

// The node's parameters; `pointers` (the kernelParams array) must outlive the driver call, which
// copies the arguments.
cudaError_t node_params(const LaunchRequest& r, std::vector<void*>& pointers, CUDA_KERNEL_NODE_PARAMS* p) {
  if (!r.function) return cudaErrorInvalidDeviceFunction;
  std::span<const KernelParam> layout;
  if (r.params) layout = *r.params;
  if (cudaError_t e = build_kernel_params(layout, r.args, pointers); e != cudaSuccess) {
    RGPU_LOG_WARN("cuda backend: kernel node arguments (%zu bytes) do not cover the kernel's %zu parameters",
                  r.args.size(), layout.size());
    return e;
  }
  *p = {};
  p->func = static_cast<CUfunction>(r.function);
  p->gridDimX = r.grid[0], p->gridDimY = r.grid[1], p->gridDimZ = r.grid[2];
  p->blockDimX = r.block[0], p->blockDimY = r.block[1], p->blockDimZ = r.block[2];
  p->sharedMemBytes = r.shared_mem;
  p->kernelParams = pointers.empty() ? nullptr : pointers.data();
  return cudaSuccess;
}

}  // namespace

int32_t CudaBackend::add_kernel_node(void* graph, std::span<void* const> deps, const LaunchRequest& request,
                                     void** node) {
  if (!ready_) return cudaErrorInitializationError;
  std::vector<void*> pointers;
  CUDA_KERNEL_NODE_PARAMS p;
  if (cudaError_t e = node_params(request, pointers, &p); e != cudaSuccess) return e;
  if (!make_context_current()) return cudaErrorDeviceUninitialized;
  return cu_to_cuda_error(driver_.cuGraphAddKernelNode_v2(reinterpret_cast<CUgraphNode*>(node), static_cast<CUgraph>(graph),
                                                          reinterpret_cast<const CUgraphNode*>(deps.data()),
                                                          deps.size(), &p));
}

int32_t CudaBackend::set_kernel_node(void* exec, void* node, const LaunchRequest& request) {
  if (!ready_) return cudaErrorInitializationError;
  std::vector<void*> pointers;
  CUDA_KERNEL_NODE_PARAMS p;
  if (cudaError_t e = node_params(request, pointers, &p); e != cudaSuccess) return e;
  if (!make_context_current()) return cudaErrorDeviceUninitialized;
  auto n = static_cast<CUgraphNode>(node);
  return cu_to_cuda_error(exec ? driver_.cuGraphExecKernelNodeSetParams_v2(static_cast<CUgraphExec>(exec), n, &p)
                               : driver_.cuGraphKernelNodeSetParams_v2(n, &p));
}

}  // namespace rgpu::server::cuda
