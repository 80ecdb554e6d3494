// Movable device memory (Backend::movable_*) and device-mapped host memory (host_mapped_*): a reserved address range backed by one physical
// allocation of the driver's virtual memory API, mapped read-write for the session's device. To
// swap out, the physical allocation is unmapped and released while the range stays reserved; to
// swap in, a new one is made and mapped at the same address. The H200 costs (DESIGN.md): create +
// map 11 us, unmap + release 39 us per 2 MiB; setting access on 8 GiB 117 ms.
#include <sys/mman.h>

#include "common/host_memory.h"
#include "server/backends/cuda/cu_to_cuda_error.h"
#include "server/backends/cuda/cuda_backend.h"

namespace rgpu::server::cuda {
namespace {

CUmemAllocationProp pinned_on_device(CUdevice device) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  return prop;
}

}  // namespace

uint64_t CudaBackend::movable_granularity() {
  size_t granularity = 0;
  CUmemAllocationProp prop = pinned_on_device(0);
  if (!ready_ || driver_.cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) !=
                     CUDA_SUCCESS || granularity == 0)
    return 2u << 20;
  return granularity;
}

int32_t CudaBackend::back_range(uint64_t address, MovableRange& range) {
  // The session sees one device, its ordinal 0 (CUDA_VISIBLE_DEVICES).
  CUmemAllocationProp prop = pinned_on_device(0);
  if (CUresult r = driver_.cuMemCreate(&range.handle, range.size, &prop, 0); r != CUDA_SUCCESS) return cu_to_cuda_error(r);
  CUresult r = driver_.cuMemMap(address, range.size, 0, range.handle, 0);
  if (r == CUDA_SUCCESS) {
    CUmemAccessDesc access{};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    r = driver_.cuMemSetAccess(address, range.size, &access, 1);
    if (r != CUDA_SUCCESS) driver_.cuMemUnmap(address, range.size);
  }
  if (r != CUDA_SUCCESS) {
    driver_.cuMemRelease(range.handle);
    return cu_to_cuda_error(r);
  }
  range.backed = true;
  return cudaSuccess;
}

int32_t CudaBackend::movable_alloc(uint64_t size, uint64_t* address) {
  if (!ready_ || !make_context_current()) return cudaErrorInitializationError;
  const uint64_t granularity = movable_granularity();
  if (size == 0 || size % granularity) return cudaErrorInvalidValue;
  CUdeviceptr base = 0;
  if (CUresult r = driver_.cuMemAddressReserve(&base, size, granularity, 0, 0); r != CUDA_SUCCESS)
    return cu_to_cuda_error(r);
  MovableRange range{.size = size};
  if (int32_t st = back_range(base, range); st != cudaSuccess) {
    driver_.cuMemAddressFree(base, size);
    return st;
  }
  std::lock_guard<std::mutex> lock(movable_mu_);
  movable_[base] = range;
  *address = base;
  return cudaSuccess;
}

int32_t CudaBackend::movable_free(uint64_t address) {
  MovableRange range;
  {
    std::lock_guard<std::mutex> lock(movable_mu_);
    auto it = movable_.find(address);
    if (it == movable_.end()) return cudaErrorInvalidValue;
    range = it->second;
    movable_.erase(it);
  }
  if (range.backed) {
    driver_.cuMemUnmap(address, range.size);
    driver_.cuMemRelease(range.handle);
  }
  return cu_to_cuda_error(driver_.cuMemAddressFree(address, range.size));
}

int32_t CudaBackend::movable_release(uint64_t address) {
  if (!make_context_current()) return cudaErrorInitializationError;
  std::lock_guard<std::mutex> lock(movable_mu_);
  auto it = movable_.find(address);
  if (it == movable_.end()) return cudaErrorInvalidValue;
  MovableRange& range = it->second;
  if (!range.backed) return cudaSuccess;
  if (CUresult r = driver_.cuMemUnmap(address, range.size); r != CUDA_SUCCESS) return cu_to_cuda_error(r);
  range.backed = false;
  return cu_to_cuda_error(driver_.cuMemRelease(range.handle));
}

int32_t CudaBackend::movable_restore(uint64_t address) {
  if (!make_context_current()) return cudaErrorInitializationError;
  std::lock_guard<std::mutex> lock(movable_mu_);
  auto it = movable_.find(address);
  if (it == movable_.end()) return cudaErrorInvalidValue;
  return it->second.backed ? cudaSuccess : back_range(address, it->second);
}

// Device-mapped host memory (a tenant's memory extension, a client's mapped memory): pinned,
// portable, mapped into the device's address space; with unified addressing the device address is
// the host address. Pages made ahead and registered, not cuMemHostAlloc'ed: 18 times as fast, and
// the session's other threads (its heartbeats) go on meanwhile (common/host_memory.h).
namespace {

// `size` bytes at exactly `want`, or null when something of this process is there already: fresh
// pages, or those of the file `fd` when it is not -1.
uint8_t* map_at(uint64_t want, uint64_t size, int fd = -1) {
  const int kind = fd >= 0 ? MAP_SHARED : MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE;
  void* p = mmap(reinterpret_cast<void*>(want), size, PROT_READ | PROT_WRITE, kind | MAP_FIXED_NOREPLACE, fd, 0);
  if (p == MAP_FAILED) return nullptr;
  if (reinterpret_cast<uint64_t>(p) != want) {  // a kernel before 4.17 takes the address as a hint
    munmap(p, size);
    return nullptr;
  }
  return static_cast<uint8_t*>(p);
}

}  // namespace

int32_t CudaBackend::host_mapped_alloc(uint64_t size, uint64_t want, uint64_t* address, uint8_t** host_out) {
  if (!ready_ || !make_context_current()) return cudaErrorInitializationError;
  uint8_t* host = want ? map_at(want, size) : nullptr;
  if (!host) host = map_populated(size);
  if (!host) return cudaErrorMemoryAllocation;
  uint64_t device = 0;
  if (int32_t st = map_for_device(host, size, &device); st != cudaSuccess) return st;
  std::lock_guard<std::mutex> lock(movable_mu_);
  host_mapped_[device] = {host, size};
  *address = device;
  if (host_out) *host_out = host;
  return cudaSuccess;
}

int32_t CudaBackend::host_mapped_free(uint64_t address) {
  HostMapped mapped;
  {
    std::lock_guard<std::mutex> lock(movable_mu_);
    auto it = host_mapped_.find(address);
    if (it == host_mapped_.end()) return cudaErrorInvalidValue;
    mapped = it->second;
    host_mapped_.erase(it);
  }
  return unmap_for_device(static_cast<uint8_t*>(mapped.host), mapped.size);
}

int32_t CudaBackend::host_map_shared(int fd, uint64_t size, uint64_t want, uint8_t** host_out, uint64_t* address) {
  if (!ready_ || !make_context_current()) return cudaErrorInitializationError;
  uint8_t* host = want ? map_at(want, size, fd) : nullptr;
  if (!host) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) return cudaErrorMemoryAllocation;
    host = static_cast<uint8_t*>(p);
  }
  if (int32_t st = map_for_device(host, size, address); st != cudaSuccess) return st;
  *host_out = host;
  return cudaSuccess;
}

int32_t CudaBackend::host_unmap_shared(uint8_t* host, uint64_t size) { return unmap_for_device(host, size); }

int32_t CudaBackend::map_for_device(uint8_t* host, uint64_t size, uint64_t* device) {
  CUdeviceptr mapped = 0;
  CUresult r = driver_.cuMemHostRegister_v2(host, size, CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_PORTABLE);
  if (r == CUDA_SUCCESS) {
    r = driver_.cuMemHostGetDevicePointer_v2(&mapped, host, 0);
    if (r != CUDA_SUCCESS) driver_.cuMemHostUnregister(host);
  }
  if (r != CUDA_SUCCESS) {
    munmap(host, size);
    return cu_to_cuda_error(r);
  }
  *device = mapped;
  return cudaSuccess;
}

int32_t CudaBackend::unmap_for_device(uint8_t* host, uint64_t size) {
  const CUresult r = make_context_current() ? driver_.cuMemHostUnregister(host) : CUDA_ERROR_NOT_INITIALIZED;
  munmap(host, size);
  return cu_to_cuda_error(r);
}

int32_t CudaBackend::host_register(void* host, uint64_t size) {
  if (!ready_ || !make_context_current()) return cudaErrorInitializationError;
  return cu_to_cuda_error(driver_.cuMemHostRegister_v2(host, size, CU_MEMHOSTREGISTER_PORTABLE));
}

int32_t CudaBackend::host_unregister(void* host) {
  if (!make_context_current()) return cudaErrorInitializationError;
  return cu_to_cuda_error(driver_.cuMemHostUnregister(host));
}

}  // namespace rgpu::server::cuda
