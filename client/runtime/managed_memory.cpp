// Managed memory over mapped memory (see managed_memory.h): the allocation is client memory,
// exposed at once, so the host reads and writes it in place and the GPU through the server's
// mirror, kept coherent at launches and synchronisations as any exposed allocation is (the GPU
// reads it across the bus: no migration to device memory yet). Prefetching, advice and stream
// attachment are hints that coherence here does not need: checked and accepted; a prefetch to the
// device sends the host's changes at once.
#include "client/runtime/managed_memory.h"

#include <sys/mman.h>

#include <cuda_runtime_api.h>

#include <map>
#include <mutex>
#include <optional>

#include "client/runtime/cudart_errors.h"
#include "client/runtime/mapped_memory.h"
#include "client/runtime/memory_map.h"

namespace rgpu::client {
namespace {

constexpr size_t kPage = 4096;

class ManagedAllocations {
 public:
  static ManagedAllocations& get() {
    static auto* m = new ManagedAllocations();  // outlives static destructors that may still free
    return *m;
  }
  void add(void* p, size_t size) {
    std::lock_guard<std::mutex> lock(mu_);
    sizes_[reinterpret_cast<uintptr_t>(p)] = size;
  }
  // The allocation [base, base + size) holding p.
  std::optional<std::pair<uintptr_t, size_t>> find(const void* p) {
    const auto a = reinterpret_cast<uintptr_t>(p);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sizes_.upper_bound(a);
    if (it == sizes_.begin()) return std::nullopt;
    --it;
    if (a >= it->first + it->second) return std::nullopt;
    return *it;
  }
  std::optional<size_t> remove(const void* p) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sizes_.find(reinterpret_cast<uintptr_t>(p));
    if (it == sizes_.end()) return std::nullopt;
    const size_t size = it->second;
    sizes_.erase(it);
    return size;
  }

 private:
  std::mutex mu_;
  std::map<uintptr_t, size_t> sizes_;
};

size_t mapping_size(size_t size) { return (size + kPage - 1) / kPage * kPage; }

// Whether [p, p + count) lies in one managed allocation (count 0: the rest of it).
bool managed_range(const void* p, size_t count) {
  auto r = ManagedAllocations::get().find(p);
  return r && reinterpret_cast<uintptr_t>(p) + count <= r->first + r->second;
}

cudaError_t prefetch(const void* p, size_t count, cudaMemLocation location) {
  if (!managed_range(p, count) || count == 0) return cudart_finish(cudaErrorInvalidValue);
  if (location.type == cudaMemLocationTypeDevice) mapped_before_device_work();
  return cudaSuccess;
}

cudaError_t attach(const void* p, size_t length, unsigned flags) {
  if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost && flags != cudaMemAttachSingle)
    return cudart_finish(cudaErrorInvalidValue);
  auto r = ManagedAllocations::get().find(p);
  // Length 0 means the whole allocation, which then must start at p, as CUDA requires.
  if (!r || (length == 0 ? r->first != reinterpret_cast<uintptr_t>(p) : !managed_range(p, length)))
    return cudart_finish(cudaErrorInvalidValue);
  return cudaSuccess;
}

}  // namespace

bool is_managed(const void* p) { return ManagedAllocations::get().find(p).has_value(); }

bool free_managed(void* p) {
  auto size = ManagedAllocations::get().remove(p);
  if (!size) return false;
  mapped_forget(p);
  MemoryMap::get().remove_host(p);
  munmap(p, mapping_size(*size));
  return true;
}

}  // namespace rgpu::client

using rgpu::client::cudart_finish;

extern "C" cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int flags) {
  if (!devPtr || size == 0 || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost))
    return cudart_finish(cudaErrorInvalidValue);
  void* p = mmap(nullptr, rgpu::client::mapping_size(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return cudart_finish(cudaErrorMemoryAllocation);
  rgpu::client::MemoryMap::get().add_host(p, size, 0, false);
  void* device = nullptr;
  if (cudaError_t st = rgpu::client::mapped_device_pointer(p, &device); st != cudaSuccess) {
    rgpu::client::MemoryMap::get().remove_host(p);
    munmap(p, rgpu::client::mapping_size(size));
    return cudart_finish(st);
  }
  rgpu::client::ManagedAllocations::get().add(p, size);
  *devPtr = p;
  return cudaSuccess;
}

extern "C" cudaError_t cudaMemPrefetchAsync(const void* devPtr, size_t count, cudaMemLocation location,
                                            unsigned int flags, cudaStream_t stream) {
  (void)flags, (void)stream;
  return rgpu::client::prefetch(devPtr, count, location);
}

extern "C" cudaError_t cudaMemPrefetchAsync_ptsz(const void* devPtr, size_t count, cudaMemLocation location,
                                                 unsigned int flags, cudaStream_t stream) {
  (void)flags, (void)stream;
  return rgpu::client::prefetch(devPtr, count, location);
}

extern "C" cudaError_t cudaMemAdvise(const void* devPtr, size_t count, cudaMemoryAdvise advice,
                                     cudaMemLocation location) {
  (void)location;
  if (advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy ||
      !rgpu::client::managed_range(devPtr, count) || count == 0)
    return cudart_finish(cudaErrorInvalidValue);
  return cudaSuccess;
}

extern "C" cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void* devPtr, size_t length, unsigned int flags) {
  (void)stream;
  return rgpu::client::attach(devPtr, length, flags);
}

extern "C" cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void* devPtr, size_t length,
                                                     unsigned int flags) {
  (void)stream;
  return rgpu::client::attach(devPtr, length, flags);
}
