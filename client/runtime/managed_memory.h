// Managed memory (cudaMallocManaged) as mapped memory: client pages exposed from the start, at the
// same address on the GPU host when it is free there, or, for a client on the GPU host, the
// client's own pages shared with the worker (docs/mapped-memory.md, "Managed memory").
#pragma once

namespace rgpu::client {

// Whether `p` lies in a managed allocation.
bool is_managed(const void* p);
// cudaFree of a managed allocation: false when `p` is not the start of one.
bool free_managed(void* p);

}  // namespace rgpu::client
