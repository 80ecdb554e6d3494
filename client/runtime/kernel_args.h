// A kernel as the server knows it and its arguments packed as a launch sends them: shared by
// launches (launch.cpp) and graph kernel nodes (graph_nodes.cpp).
#pragma once

#include <cuda_runtime_api.h>

#include "client/runtime/modules.h"
#include "common/wire/codec.h"

namespace rgpu::client {

// The kernel registered for host stub `func`, its module loaded on the server; null with *st set.
KernelRecord* loaded_kernel(const void* func, cudaError_t* st);

// Appends the kernel's argument buffer (u32 length, then each of `args` copied to its parameter's
// offset in the layout the server reported); a parameter pointing into pinned host memory becomes
// the GPU's address of it (mapped_memory.h), which can fail.
cudaError_t put_kernel_args(const KernelRecord& k, void** args, wire::Encoder& e);

}  // namespace rgpu::client
