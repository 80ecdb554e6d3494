// Memory kinds on the client: device allocations are made on the server and recorded in the
// memory map; pinned host memory is ordinary client memory recorded as pinned (a network cannot
// DMA into it, so "pinned" mostly changes which copies may be asynchronous), or, for a client on
// the server's host, memory shared with its session that the GPU reaches directly (shared_host.h).
// Pinned memory becomes mapped (zero-copy) memory the GPU reads and writes through a server-side
// mirror once a kernel or cudaHostGetDevicePointer asks for it (mapped_memory.h); managed memory is
// mapped memory from the start (managed_memory.h).
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "client/runtime/call.h"
#include "client/runtime/cudart_errors.h"
#include "client/runtime/device.h"
#include "client/runtime/device_allocation.h"
#include "client/runtime/freed_blocks.h"
#include "client/runtime/managed_memory.h"
#include "client/runtime/mapped_memory.h"
#include "client/runtime/memory_map.h"
#include "client/runtime/shared_host.h"
#include "common/wire/pitched.h"
#include "gen/cudart/cudart_remote.h"

using rgpu::client::cudart_finish;
using rgpu::client::MemoryMap;
namespace remote = rgpu::gen::cudart::remote;

namespace {

cudaError_t host_alloc(void** p, size_t size, unsigned flags) {
  if (!p) return cudart_finish(cudaErrorInvalidValue);
  if (void* shared = rgpu::client::shared_host_alloc(size, flags)) {
    *p = shared;
    return cudaSuccess;
  }
  void* mem = nullptr;
  if (posix_memalign(&mem, 4096, size == 0 ? 1 : size) != 0) return cudart_finish(cudaErrorMemoryAllocation);
  MemoryMap::get().add_host(mem, size, flags, true);
  *p = mem;
  return cudaSuccess;
}

}  // namespace

// A block an earlier cudaFree kept answers without a round trip (freed_blocks.h); a GPU or slice
// found full has the kept blocks freed and is asked again.
extern "C" cudaError_t cudaMalloc(void** devPtr, size_t size) {
  if (devPtr) {
    if (void* kept = rgpu::client::take_freed(size, rgpu::client::current_device())) {
      *devPtr = kept;
      return cudaSuccess;
    }
  }
  return rgpu::client::allocate_device(
      devPtr,
      [&](void** p, size_t* extent) {
        *extent = size;
        return rgpu::client::retry_with_freed_released(size, [&] { return remote::cudaMalloc(p, size); });
      },
      true);
}

extern "C" cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height) {
  return rgpu::client::allocate_device(devPtr, [&](void** p, size_t* extent) {
    cudaError_t st = rgpu::client::retry_with_freed_released(
        width * height, [&] { return remote::cudaMallocPitch(p, pitch, width, height); });
    *extent = st == cudaSuccess && pitch ? *pitch * height : 0;
    return st;
  });
}

// Pitched memory for height*depth rows, as CUDA's own cudaMalloc3D lays it out.
extern "C" cudaError_t cudaMalloc3D(cudaPitchedPtr* pitchedDevPtr, cudaExtent extent) {
  size_t rows = 0;
  if (!pitchedDevPtr || __builtin_mul_overflow(extent.height, extent.depth, &rows))
    return cudart_finish(cudaErrorInvalidValue);
  void* p = nullptr;
  size_t pitch = 0;
  cudaError_t st = cudaMallocPitch(&p, &pitch, extent.width, rows);
  if (st == cudaSuccess) *pitchedDevPtr = rgpu::pitched(p, pitch, extent.width, extent.height);
  return st;
}

extern "C" cudaError_t cudaMallocAsync(void** devPtr, size_t size, cudaStream_t stream) {
  return rgpu::client::allocate_device(devPtr, [&](void** p, size_t* extent) {
    *extent = size;
    return rgpu::client::retry_with_freed_released(size, [&] { return remote::cudaMallocAsync(p, size, stream); });
  });
}

extern "C" cudaError_t cudaMallocAsync_ptsz(void** devPtr, size_t size, cudaStream_t stream) {
  return rgpu::client::allocate_device(devPtr, [&](void** p, size_t* extent) {
    *extent = size;
    return rgpu::client::retry_with_freed_released(size, [&] { return remote::cudaMallocAsync_ptsz(p, size, stream); });
  });
}

// The client knows every allocation, so a free goes without waiting: a pointer it does not know
// fails here, with the code CUDA's own check gives. A cudaMalloc block may be kept for the next
// cudaMalloc of its size (freed_blocks.h).
extern "C" cudaError_t cudaFree(void* devPtr) {
  if (!devPtr) return cudaSuccess;
  if (rgpu::client::free_managed(devPtr)) return cudaSuccess;
  auto r = MemoryMap::get().remove_device(devPtr);
  if (!r) return cudart_finish(cudaErrorInvalidValue);
  if (r->reusable && rgpu::client::keep_freed(devPtr, r->size, r->device)) return cudaSuccess;
  return cudart_finish(remote::cudaFree(devPtr));
}

extern "C" cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t stream) {
  cudaError_t st = remote::cudaFreeAsync(devPtr, stream);
  if (st == cudaSuccess && devPtr) MemoryMap::get().remove_device(devPtr);
  return cudart_finish(st);
}

extern "C" cudaError_t cudaFreeAsync_ptsz(void* devPtr, cudaStream_t stream) {
  cudaError_t st = remote::cudaFreeAsync_ptsz(devPtr, stream);
  if (st == cudaSuccess && devPtr) MemoryMap::get().remove_device(devPtr);
  return cudart_finish(st);
}

// Memory kept for reuse is the program's free memory: it is freed before the server answers.
extern "C" cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  rgpu::client::release_freed();
  return cudart_finish(remote::cudaMemGetInfo(free, total));
}

extern "C" cudaError_t cudaMallocHost(void** ptr, size_t size) { return host_alloc(ptr, size, cudaHostAllocDefault); }

extern "C" cudaError_t cudaHostAlloc(void** pHost, size_t size, unsigned int flags) {
  return host_alloc(pHost, size, flags);
}

extern "C" cudaError_t cudaFreeHost(void* ptr) {
  if (!ptr) return cudaSuccess;
  auto r = MemoryMap::get().remove_host(ptr);
  if (!r || !r->owned_host) return cudart_finish(cudaErrorInvalidValue);
  rgpu::client::mapped_forget(ptr);
  if (r->shared) return cudart_finish(rgpu::client::shared_host_free(ptr, r->size, r->shared));
  std::free(ptr);
  return cudaSuccess;
}

extern "C" cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags) {
  if (!ptr || size == 0) return cudart_finish(cudaErrorInvalidValue);
  if (MemoryMap::get().find_host(ptr)) return cudart_finish(cudaErrorHostMemoryAlreadyRegistered);
  MemoryMap::get().add_host(ptr, size, flags, false);
  return cudaSuccess;
}

extern "C" cudaError_t cudaHostUnregister(void* ptr) {
  if (rgpu::client::is_managed(ptr)) return cudart_finish(cudaErrorHostMemoryNotRegistered);
  auto r = MemoryMap::get().remove_host(ptr);
  if (!r) return cudart_finish(cudaErrorHostMemoryNotRegistered);
  if (r->owned_host) {  // cudaMallocHost memory is not unregistered this way; put it back
    MemoryMap::get().add_host(ptr, r->size, r->host_flags, true, r->shared, r->shared_device);
    return cudart_finish(cudaErrorInvalidValue);
  }
  rgpu::client::mapped_forget(ptr);
  return cudaSuccess;
}

extern "C" cudaError_t cudaHostGetFlags(unsigned int* pFlags, void* pHost) {
  if (!pFlags) return cudart_finish(cudaErrorInvalidValue);
  auto r = MemoryMap::get().find_host(pHost);
  if (!r) return cudart_finish(cudaErrorInvalidValue);
  *pFlags = r->host_flags;
  return cudaSuccess;
}

// Any pinned allocation answers (with unified addressing all of them are mapped); the address is
// the server mirror's, which is the host address itself when it was free on the GPU host.
extern "C" cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int flags) {
  if (!pDevice || flags != 0) return cudart_finish(cudaErrorInvalidValue);
  return cudart_finish(rgpu::client::mapped_device_pointer(pHost, pDevice));
}

extern "C" cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
  if (!attributes) return cudart_finish(cudaErrorInvalidValue);
  std::memset(attributes, 0, sizeof *attributes);
  if (auto d = MemoryMap::get().find_device(ptr)) {
    attributes->type = cudaMemoryTypeDevice;
    attributes->device = d->device;
    attributes->devicePointer = const_cast<void*>(ptr);
  } else if (auto h = MemoryMap::get().find_host(ptr)) {
    const bool managed = rgpu::client::is_managed(ptr);
    attributes->type = managed ? cudaMemoryTypeManaged : cudaMemoryTypeHost;
    attributes->device = rgpu::client::current_device();
    attributes->hostPointer = const_cast<void*>(ptr);
    if (managed) attributes->devicePointer = const_cast<void*>(ptr);
    // Shared memory's device address is known without exposing it (mapped_memory.h).
    if (const uint64_t shared = h->shared_address(reinterpret_cast<uintptr_t>(ptr)))
      attributes->devicePointer = reinterpret_cast<void*>(shared);
  } else {
    attributes->type = cudaMemoryTypeUnregistered;
    attributes->device = -2;  // what CUDA reports for memory it does not know
  }
  return cudaSuccess;
}
