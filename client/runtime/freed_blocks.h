// Device memory a cudaFree gave back, kept for the next cudaMalloc of the same size.
//
// A library that allocates scratch on every call (MAGMA inside PyTorch's batched solvers: three
// cudaMalloc and cudaFree a step) would wait for the server at each cudaMalloc, whose address only
// the server can give. So the cudaFree of a cudaMalloc block of at most RGPU_KEEP_FREED_BLOCK_MB
// keeps it, up to RGPU_KEEP_FREED_MB in all (the oldest go first), and a cudaMalloc of exactly its
// size on its device takes it back without a round trip.
//
// What CUDA's cudaFree promises, and what of it holds here. The block leaves the memory map, so the
// program sees it freed; a block is recorded again only if its pages are still clear of the
// program's own memory. The memory stays the session's until released: all of it before
// cudaMemGetInfo answers (free memory reads as CUDA's would), when a cudaMalloc finds the GPU or the
// slice full (then it asks again), and a device's at cudaDeviceReset, which freed it on the server.
// CUDA's cudaFree also synchronises the device, so that no work issued after it, on any stream,
// overlaps work still using the block. A kept block's free does not; its reuse does instead: the
// cudaMalloc that takes it back posts a barrier (wire::kCallReuseBarrier) that the session thread
// serves by waiting for the device before it runs any later call. Neither call waits for the server.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace rgpu::client {

// cudaFree of a cudaMalloc block, already out of the memory map: true when it is kept.
bool keep_freed(void* p, size_t size, int device);
// A kept block of `size` bytes on `device`, recorded in the memory map again; nullptr when none.
void* take_freed(size_t size, int device);
// Frees every kept block on the server (posted, in order before whatever comes next); true when
// there was any.
bool release_freed();
// After an allocation of `size` bytes found no memory: frees the kept blocks and says true when
// they would make room for it (the server's free memory and theirs together), so that a request
// no freeing can serve fails once, as CUDA's does, with one entry in the driver's error log.
bool release_freed_for(size_t size);
// `alloc()`'s status, asked again once the kept blocks are freed when it found no memory that
// they would make.
template <typename Alloc>
auto retry_with_freed_released(size_t size, Alloc&& alloc) {
  auto st = alloc();
  if (st == cudaErrorMemoryAllocation && release_freed_for(size)) st = alloc();
  return st;
}
// Drops a device's kept blocks without a word to the server (cudaDeviceReset freed them).
void forget_freed(int device);

}  // namespace rgpu::client
