// The wire form of graph nodes built by hand whose parameters hold what cannot travel as bytes (a
// kernel's host stub and argument pointers, a host function), written by the client's
// graph_nodes.cpp and read by the server's.
//
// Adding a node: u64 new node id (client-chosen), u64 graph id, the dependencies as the generated
// code sends a handle array (u32 count or absent, then u64 ids), u64 numDependencies, then the
// node's parameters below. Setting a node's parameters: [u64 executable graph id,] u64 node id, then
// the parameters.
#pragma once

#include <cstdint>

#include "common/wire/copy_args.h"

namespace rgpu::wire {

// A kernel node: the launch without its stream (common/wire/launch_args.h); the argument buffer,
// packed at the kernel's parameter offsets, follows as length-prefixed bytes.
struct KernelNode {
  uint64_t function;   // the server id the module load gave the kernel
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t shared_mem;
  uint32_t pad;
};

// A host node: the client's callback id (client/runtime/pipe.h); the function and its data stay
// in the client, which runs them when the server's node reaches it, as for captured host functions.
struct HostNode {
  uint64_t callback;
};

// A copy node (cudaGraphAddMemcpyNode, and the 1D and symbol copy nodes, which the client sends as
// the same call), and the parameters a copy node's set gives it: the copy in cudaMemcpy3D's wire
// form (copy_args.h; `stream` unused; `is_3d` 0 for a 1D copy, which the server makes or sets with
// the backend's 1D call: height and depth 1, no array). A device-to-device copy, arrays included,
// names its addresses; one with host memory on a side copies from or to a server mirror instead
// (graph_args.h), as a captured host copy does: that side names no address and is packed (pitch =
// width, rows per slice = height), the client refreshes an H2D mirror before each launch of the
// graph, and a relay host node after a D2H copy sends the mirror's bytes back. A set keeps the
// node's mirror (same id and size): the client re-points only its own end of it.
struct MemcpyNode {
  Copy3D copy;       // kind: cudaMemcpyDeviceToDevice, cudaMemcpyHostToDevice or cudaMemcpyDeviceToHost
  uint64_t mirror;   // client-chosen mirror id, 0 for a device-to-device copy
};

// A memory allocation node (cudaGraphAddMemAllocNode): cudaMemPoolProps by field (the Windows
// security attributes never travel), then the access descriptors as length-prefixed bytes
// (cudaMemAccessDesc each, no pointer in it). The reply holds u64: the allocation's address.
struct MemAllocNode {
  int32_t alloc_type;     // cudaMemAllocationType
  int32_t handle_types;   // cudaMemAllocationHandleType
  int32_t location_type;  // cudaMemLocationType
  int32_t location_id;
  uint64_t max_size;
  uint64_t bytesize;
  uint32_t usage;
  uint32_t pad;
};

// cudaGraphAddNode of a conditional node: its handle is the server's own value (what
// cudaGraphConditionalHandleCreate returned, which kernels pass to cudaGraphSetConditional). The
// reply holds `size` u64 ids, the node's body graphs.
struct ConditionalNode {
  uint64_t handle;
  int32_t type;      // cudaGraphConditionalNodeType
  uint32_t size;
};

}  // namespace rgpu::wire
