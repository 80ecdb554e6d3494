// Pageable copies of a client sharing memory with its session (shared_host.h): the bytes go through
// a ring of chunks in memory shared with the session and pinned there, not through the socket. The
// program's memcpy into (or out of) one chunk overlaps the GPU's copy of the others
// (chunk_pipeline.h), and a chunk's memcpy is shared by RGPU_STAGING_THREADS threads; each chunk's
// device copy is a call that answers once it is done, so a chunk is reused only after the GPU is
// through with it. The ring (RGPU_STAGING_CHUNKS of RGPU_STAGING_CHUNK_MB) and the threads are made
// on the first such copy and kept for the session.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace rgpu::client {

// A host<->device copy (H2D or D2H) of pageable memory through the ring; false when this client
// shares no memory, the copy is too small to gain from it (below RGPU_STAGED_FROM_KB), or the ring
// cannot be made (the caller copies on the pipe). *status: the copy's status. An async copy runs
// on its stream and, as CUDA's of pageable memory, returns once the program's memory may be reused.
bool copy_staged(void* device, void* host, size_t n, cudaMemcpyKind kind, bool async, uint64_t stream,
                 bool per_thread, int32_t* status);

}  // namespace rgpu::client
