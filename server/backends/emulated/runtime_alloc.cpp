// Emulated CUDA Runtime: device memory allocation and its accounting.
#include <algorithm>
#include <cstdlib>
#include <limits>

#include "server/backends/emulated/runtime.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {

cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  RuntimeState& s = state();
  int device = current_device();
  if (!s.valid_device(device)) return cudaErrorInvalidDevice;
  uint64_t capacity = s.memory.capacity();
  if (free) *free = capacity - s.memory.used(device);
  if (total) *total = capacity;
  return cudaSuccess;
}

cudaError_t cudaMalloc(void** devPtr, size_t size) {
  if (!devPtr) return cudaErrorInvalidValue;
  if (!state().valid_device(current_device())) return cudaErrorInvalidDevice;
  return state().memory.allocate(current_device(), size, devPtr);
}

cudaError_t cudaFree(void* devPtr) {
  cudaError_t err = state().memory.free(devPtr);
  if (err == cudaSuccess) forget_pool_allocation(devPtr);
  return err;
}

cudaError_t cudaMallocHost(void** ptr, size_t size) {
  if (!ptr) return cudaErrorInvalidValue;
  *ptr = std::malloc(std::max<size_t>(size, 1));
  if (!*ptr) return cudaErrorMemoryAllocation;
  std::lock_guard lock(state().mu);
  state().pinned[reinterpret_cast<uintptr_t>(*ptr)] = {size, current_device()};
  return cudaSuccess;
}

cudaError_t cudaFreeHost(void* ptr) {
  if (!ptr) return cudaSuccess;
  // As CUDA's, it waits for the work before it: a copy deferred behind a host function may use it.
  for (int d = 0; d < state().config.count; ++d) state().wait_deferred(d);
  {
    std::lock_guard lock(state().mu);
    if (!state().pinned.erase(reinterpret_cast<uintptr_t>(ptr))) return cudaErrorInvalidValue;
  }
  std::free(ptr);
  return cudaSuccess;
}

cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height) {
  if (!devPtr || !pitch) return cudaErrorInvalidValue;
  size_t row = (width + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
  if (row < width || (height != 0 && row > std::numeric_limits<size_t>::max() / height))
    return cudaErrorMemoryAllocation;
  *pitch = row;
  return emulated::cudaMalloc(devPtr, row * height);
}

// Stream-ordered allocation happens at once. Inside a capture it becomes an allocation node: the
// memory is allocated now, at a fixed address every replay uses, and belongs to the graph (freed
// when the graph and its executable graphs are all destroyed); a free node for it is a marker.
cudaError_t cudaMallocAsync(void** devPtr, size_t size, cudaStream_t hStream) {
  if (!devPtr) return cudaErrorInvalidValue;
  RuntimeState& s = state();
  std::lock_guard lock(s.mu);
  Stream* stream = nullptr;
  if (cudaError_t err = s.resolve_stream(hStream, &stream); err != cudaSuccess) return err;
  int device = stream ? stream->device : current_device();
  if (!s.valid_device(device)) return cudaErrorInvalidDevice;
  if (cudaError_t err = s.memory.allocate(device, size, devPtr); err != cudaSuccess) return err;
  Capture* capture = stream ? stream->capture.get() : nullptr;
  if (capture && *devPtr) {
    if (capture->invalidated) {
      s.memory.free(*devPtr);
      *devPtr = nullptr;
      return cudaErrorStreamCaptureInvalidated;
    }
    capture->graph->allocations.push_back(std::make_shared<GraphAllocation>(s.memory.find(*devPtr, size)));
    capture->graph->nodes.push_back(
        std::make_shared<GraphNode>(GraphNode{cudaGraphNodeTypeMemAlloc, [] { return cudaSuccess; }}));
  }
  return cudaSuccess;
}

cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t hStream) {
  RuntimeState& s = state();
  {
    std::lock_guard lock(s.mu);
    Stream* stream = nullptr;
    if (cudaError_t err = s.resolve_stream(hStream, &stream); err != cudaSuccess) return err;
    Capture* capture = stream ? stream->capture.get() : nullptr;
    if (capture) {
      const GraphAllocations& owned = capture->graph->allocations;
      bool graph_owned = std::any_of(owned.begin(), owned.end(), [devPtr](auto& a) { return a->address() == devPtr; });
      if (capture->invalidated) return cudaErrorStreamCaptureInvalidated;
      if (!graph_owned) {
        capture->invalidated = true;  // only the capture's own allocations can be freed inside it
        return cudaErrorStreamCaptureUnsupported;
      }
      capture->graph->nodes.push_back(
          std::make_shared<GraphNode>(GraphNode{cudaGraphNodeTypeMemFree, [] { return cudaSuccess; }}));
      return cudaSuccess;
    }
  }
  return emulated::cudaFree(devPtr);
}

// Memory nodes built by hand. An allocation node allocates at once, as a captured cudaMallocAsync
// does: the graph owns the memory, at one address every launch uses. A free node is a marker for
// a graph's allocation.
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                     struct cudaMemAllocNodeParams* nodeParams) {
  if (!nodeParams || nodeParams->bytesize == 0 || nodeParams->poolProps.allocType != cudaMemAllocationTypePinned ||
      nodeParams->poolProps.location.type != cudaMemLocationTypeDevice ||
      (nodeParams->accessDescCount && !nodeParams->accessDescs))
    return cudaErrorInvalidValue;
  RuntimeState& s = state();
  std::shared_ptr<GraphAllocation> owned;
  {
    std::lock_guard lock(s.mu);
    int device = nodeParams->poolProps.location.id;
    if (!s.valid_device(device)) return cudaErrorInvalidDevice;
    void* p = nullptr;
    if (cudaError_t err = s.memory.allocate(device, nodeParams->bytesize, &p); err != cudaSuccess) return err;
    owned = std::make_shared<GraphAllocation>(s.memory.find(p, nodeParams->bytesize));
  }
  GraphNode node{cudaGraphNodeTypeMemAlloc, [] { return cudaSuccess; }};
  node.memory = owned->address();
  void* address = const_cast<void*>(owned->address());
  if (cudaError_t err = add_graph_node(graph, pDependencies, numDependencies, std::move(node), pGraphNode,
                                       std::move(owned));
      err != cudaSuccess)
    return err;
  nodeParams->dptr = address;
  return cudaSuccess;
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                    size_t numDependencies, void* dptr) {
  {
    std::lock_guard lock(state().mu);
    bool graph_owned = false;  // by any graph: a graph may free another's allocation
    for (const auto& [handle, g] : state().graphs)
      for (const auto& a : g->allocations) graph_owned |= a->address() == dptr;
    if (!graph_owned) return cudaErrorInvalidValue;
  }
  GraphNode node{cudaGraphNodeTypeMemFree, [] { return cudaSuccess; }};
  node.memory = dptr;
  return add_graph_node(graph, pDependencies, numDependencies, std::move(node), pGraphNode);
}

cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void* dptr_out) {
  if (!dptr_out) return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  for (const auto& [handle, graph] : state().graphs)
    for (const auto& n : graph->nodes)
      if (n.get() == static_cast<const void*>(node)) {
        // Free nodes captured from a stream keep no address (cudaFreeAsync's marker).
        if (n->type != cudaGraphNodeTypeMemFree || !n->memory) return cudaErrorInvalidValue;
        *static_cast<const void**>(dptr_out) = n->memory;
        return cudaSuccess;
      }
  return cudaErrorInvalidValue;
}

}  // namespace rgpu::server::emulated
