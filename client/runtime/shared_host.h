// Pinned host memory shared with the session's worker, for a client on the server's host (its
// pipe runs over a Unix socket): cudaMallocHost and cudaHostAlloc memory is made in a sealed memfd
// whose descriptor goes to the worker with the call that shares it (kCallShareHost); the worker maps
// the same pages and pins them, so a copy between them and the device sends only where the bytes
// are (kCallSharedCopy) and the GPU's DMA moves them from and to the client's own pages. Kernels use
// them in place as mapped memory: no mirror, no exchange of changes (mapped_memory.h).
//
// RGPU_SHARED_MEMORY=0 turns it off. A failure to share falls back to ordinary memory, whose bytes
// travel on the socket, and says so once. cudaHostRegister'ed memory is not shared (the pages are
// the program's, not a file's): its copies are staged like pageable ones (staged_copy.h).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace rgpu::client {

// `size` bytes shared with the session, recorded in the memory map as owned pinned memory with
// `flags`; null when this client does not share memory or sharing failed (the caller then makes
// ordinary memory).
void* shared_host_alloc(size_t size, unsigned flags);
// Managed memory (cudaMallocManaged) of `size` bytes shared with the session, recorded in the memory
// map as unowned pinned memory: only when the worker maps it for the device at the same address,
// since a managed pointer must mean the same on both sides; null otherwise (the caller makes a mirror).
void* shared_managed_alloc(size_t size);
// Lets go of shared memory `p` (the memory map's record, already removed, said `shared` = its id):
// the server waits for the copies queued before and unmaps it, then this side does.
cudaError_t shared_host_free(void* p, size_t size, uint64_t shared);
// A host<->device copy (H2D or D2H) through shared memory: the program's own when its host range
// lies in one shared allocation, else through shared staging (staged_copy.h); false when neither
// applies (the caller copies on the pipe). *status: the copy's status.
bool copy_shared(void* device, void* host, size_t n, cudaMemcpyKind kind, bool async, uint64_t stream, bool per_thread,
                 int32_t* status);

// Whether this client shares memory with its session (RGPU_SHARED_MEMORY, a Unix-socket session,
// no failure so far).
bool shares_memory();
// `len` bytes (a page multiple) of memory shared with the session under a new id (*id), which the
// GPU sees at *device (its own address, when the worker could map it there); null when it cannot be
// made or shared (said once; sharing stops then).
void* share_region(size_t len, uint64_t* id, uint64_t* device);

}  // namespace rgpu::client
