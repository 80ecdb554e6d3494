// Managed memory over mapped memory (see managed_memory.h): the allocation is client memory. A
// client on the GPU host shares it with its worker, which maps it for the device at the same
// address (shared_host.h): both sides use the same pages. Elsewhere it is exposed at once, so the
// host reads and writes it in place and the GPU through the server's mirror, kept coherent at
// launches and synchronisations as any exposed allocation is (the GPU reads it across the bus: no
// migration to device memory yet). Prefetching, advice, discards and
// stream attachment are hints that coherence here does not need: checked, and the advice and
// prefetch locations recorded for cudaMemRangeGetAttribute(s) (managed_hints.h); a prefetch to the
// device sends the host's changes at once. A discard keeps the bytes (CUDA leaves discarded
// memory's contents indeterminate until written, so keeping them is one allowed outcome).
#include "client/runtime/managed_memory.h"

#include <sys/mman.h>

#include <cuda_runtime_api.h>

#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "client/runtime/cudart_errors.h"
#include "client/runtime/device.h"
#include "client/runtime/managed_hints.h"
#include "client/runtime/mapped_memory.h"
#include "client/runtime/memory_map.h"
#include "client/runtime/shared_host.h"

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
    allocations_.emplace(reinterpret_cast<uintptr_t>(p), Allocation{size, ManagedHints(size)});
  }
  // The allocation [base, base + size) holding p.
  std::optional<std::pair<uintptr_t, size_t>> find(const void* p) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = holding(reinterpret_cast<uintptr_t>(p));
    if (it == allocations_.end()) return std::nullopt;
    return std::pair{it->first, it->second.size};
  }
  std::optional<size_t> remove(const void* p) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = allocations_.find(reinterpret_cast<uintptr_t>(p));
    if (it == allocations_.end()) return std::nullopt;
    const size_t size = it->second.size;
    allocations_.erase(it);
    return size;
  }
  // Runs use(hints, begin, end) with the byte offsets of [p, p + count) in the one allocation that
  // holds all of it, under the lock; false (and no call) when none does or count is 0.
  template <typename Use>
  bool with_hints(const void* p, size_t count, Use use) {
    const auto a = reinterpret_cast<uintptr_t>(p);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = holding(a);
    if (it == allocations_.end() || count == 0 || a + count > it->first + it->second.size) return false;
    use(it->second.hints, a - it->first, a - it->first + count);
    return true;
  }

 private:
  struct Allocation {
    size_t size;
    ManagedHints hints;
  };
  std::map<uintptr_t, Allocation>::iterator holding(uintptr_t a) {
    auto it = allocations_.upper_bound(a);
    if (it == allocations_.begin()) return allocations_.end();
    --it;
    return a < it->first + it->second.size ? it : allocations_.end();
  }
  std::mutex mu_;
  std::map<uintptr_t, Allocation> allocations_;
};

size_t mapping_size(size_t size) { return (size + kPage - 1) / kPage * kPage; }

// Whether [p, p + count) lies in one managed allocation (count 0: the rest of it).
bool managed_range(const void* p, size_t count) {
  auto r = ManagedAllocations::get().find(p);
  return r && reinterpret_cast<uintptr_t>(p) + count <= r->first + r->second;
}

// Checks a location a prefetch or advice names, in place made canonical: cudaSuccess, or the error
// CUDA gives for it.
cudaError_t check_location(cudaMemLocation& l) {
  if (!canonical_location(l)) return cudaErrorInvalidValue;
  if (l.type == cudaMemLocationTypeDevice && !device_properties(l.id)) return cudaErrorInvalidDevice;
  return cudaSuccess;
}

struct Prefetch {
  const void* p;
  size_t count;
  cudaMemLocation location;
};

// Checks a prefetch without doing it, its location made canonical.
cudaError_t check_prefetch(Prefetch& op) {
  if (!managed_range(op.p, op.count) || op.count == 0) return cudaErrorInvalidValue;
  return check_location(op.location);
}

void do_prefetch(const Prefetch& op) {
  ManagedAllocations::get().with_hints(op.p, op.count, [&](ManagedHints& h, size_t begin, size_t end) {
    h.update(begin, end, [&](PageHints& page) { page.last_prefetch = op.location; });
  });
  if (op.location.type == cudaMemLocationTypeDevice) mapped_before_device_work();
}

cudaError_t prefetch(const void* p, size_t count, cudaMemLocation location) {
  Prefetch op{p, count, location};
  if (cudaError_t st = check_prefetch(op); st != cudaSuccess) return cudart_finish(st);
  do_prefetch(op);
  return cudaSuccess;
}

// A batch of ranges (cudaMem*BatchAsync), checked whole before any of it is done. A batch that
// prefetches names locations: range i goes to locations[k] for the last k whose first_ranges[k] <= i.
// A discard keeps the bytes (see the top of this file), so a discard is its checks only.
cudaError_t batch(void** ptrs, size_t* sizes, size_t count, cudaMemLocation* locations, size_t* first_ranges,
                  size_t num_locations, unsigned long long flags, bool prefetches) {
  if (!ptrs || !sizes || count == 0 || flags != 0) return cudart_finish(cudaErrorInvalidValue);
  std::vector<Prefetch> ops;
  ops.reserve(count);
  if (prefetches) {
    // The first index is 0, each greater than the one before, the last inside the batch.
    if (!locations || !first_ranges || num_locations == 0 || num_locations > count || first_ranges[0] != 0)
      return cudart_finish(cudaErrorInvalidValue);
    for (size_t k = 1; k < num_locations; ++k)
      if (first_ranges[k] <= first_ranges[k - 1] || first_ranges[k] >= count) return cudart_finish(cudaErrorInvalidValue);
  }
  size_t k = 0;
  for (size_t i = 0; i < count; ++i) {
    if (prefetches && k + 1 < num_locations && first_ranges[k + 1] == i) ++k;
    Prefetch op{ptrs[i], sizes[i], prefetches ? locations[k] : cudaMemLocation{cudaMemLocationTypeHost, 0}};
    if (cudaError_t st = check_prefetch(op); st != cudaSuccess) return cudart_finish(st);
    ops.push_back(op);
  }
  if (prefetches)
    for (const Prefetch& op : ops) do_prefetch(op);
  return cudaSuccess;
}

cudaError_t advise(const void* p, size_t count, cudaMemoryAdvise advice, cudaMemLocation location) {
  if (advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy || !managed_range(p, count) || count == 0)
    return cudaErrorInvalidValue;
  const bool names_location = advice == cudaMemAdviseSetPreferredLocation || advice == cudaMemAdviseSetAccessedBy ||
                              advice == cudaMemAdviseUnsetAccessedBy;
  if (names_location) {
    if (cudaError_t st = check_location(location); st != cudaSuccess) return st;
    // Devices and the host only are accessors (a NUMA node is where memory lies, not who reads it).
    if (advice != cudaMemAdviseSetPreferredLocation && location.type != cudaMemLocationTypeDevice &&
        location.type != cudaMemLocationTypeHost)
      return cudaErrorInvalidValue;
    if (location.type == cudaMemLocationTypeDevice && location.id >= PageHints::kHostBit) return cudaErrorInvalidDevice;
  }
  const uint64_t accessor =
      uint64_t{1} << (location.type == cudaMemLocationTypeDevice ? location.id : PageHints::kHostBit);
  ManagedAllocations::get().with_hints(p, count, [&](ManagedHints& h, size_t begin, size_t end) {
    h.update(begin, end, [&](PageHints& page) {
      switch (advice) {
        case cudaMemAdviseSetReadMostly: page.read_mostly = true; break;
        case cudaMemAdviseUnsetReadMostly: page.read_mostly = false; break;
        case cudaMemAdviseSetPreferredLocation: page.preferred = location; break;
        case cudaMemAdviseUnsetPreferredLocation: page.preferred = {cudaMemLocationTypeInvalid, 0}; break;
        case cudaMemAdviseSetAccessedBy: page.accessed_by |= accessor; break;
        case cudaMemAdviseUnsetAccessedBy: page.accessed_by &= ~accessor; break;
      }
    });
  });
  return cudaSuccess;
}

cudaError_t range_attributes(void** data, size_t* sizes, cudaMemRangeAttribute* attributes, size_t n, const void* p,
                             size_t count) {
  if (!data || !sizes || !attributes || n == 0) return cudaErrorInvalidValue;
  cudaError_t st = cudaSuccess;
  bool inside = ManagedAllocations::get().with_hints(p, count, [&](ManagedHints& h, size_t begin, size_t end) {
    for (size_t i = 0; i < n && st == cudaSuccess; ++i) st = h.attribute(attributes[i], data[i], sizes[i], begin, end);
  });
  return inside ? st : cudaErrorInvalidValue;
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
  const auto r = MemoryMap::get().remove_host(p);
  if (r && r->shared)
    (void)shared_host_free(p, *size, r->shared);
  else
    munmap(p, mapping_size(*size));
  return true;
}

}  // namespace rgpu::client

using rgpu::client::cudart_finish;

extern "C" cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int flags) {
  if (!devPtr || size == 0 || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost))
    return cudart_finish(cudaErrorInvalidValue);
  // A client on the GPU host shares the pages with its worker, which maps them for the device at
  // this same address: managed memory as it is natively, with no mirror (shared_host.h).
  void* p = rgpu::client::shared_managed_alloc(size);
  if (!p) {
    p = mmap(nullptr, rgpu::client::mapping_size(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return cudart_finish(cudaErrorMemoryAllocation);
    rgpu::client::MemoryMap::get().add_host(p, size, 0, false);
    void* device = nullptr;
    if (cudaError_t st = rgpu::client::mapped_device_pointer(p, &device); st != cudaSuccess) {
      rgpu::client::MemoryMap::get().remove_host(p);
      munmap(p, rgpu::client::mapping_size(size));
      return cudart_finish(st);
    }
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
  return cudart_finish(rgpu::client::advise(devPtr, count, advice, location));
}

extern "C" cudaError_t cudaMemRangeGetAttribute(void* data, size_t dataSize, cudaMemRangeAttribute attribute,
                                                const void* devPtr, size_t count) {
  return cudart_finish(rgpu::client::range_attributes(&data, &dataSize, &attribute, 1, devPtr, count));
}

extern "C" cudaError_t cudaMemRangeGetAttributes(void** data, size_t* dataSizes, cudaMemRangeAttribute* attributes,
                                                 size_t numAttributes, const void* devPtr, size_t count) {
  return cudart_finish(rgpu::client::range_attributes(data, dataSizes, attributes, numAttributes, devPtr, count));
}

extern "C" cudaError_t cudaMemPrefetchBatchAsync(void** dptrs, size_t* sizes, size_t count,
                                                 cudaMemLocation* prefetchLocs, size_t* prefetchLocIdxs,
                                                 size_t numPrefetchLocs, unsigned long long flags, cudaStream_t stream) {
  (void)stream;
  return rgpu::client::batch(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, true);
}

extern "C" cudaError_t cudaMemPrefetchBatchAsync_ptsz(void** dptrs, size_t* sizes, size_t count,
                                                      cudaMemLocation* prefetchLocs, size_t* prefetchLocIdxs,
                                                      size_t numPrefetchLocs, unsigned long long flags,
                                                      cudaStream_t stream) {
  (void)stream;
  return rgpu::client::batch(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, true);
}

extern "C" cudaError_t cudaMemDiscardBatchAsync(void** dptrs, size_t* sizes, size_t count, unsigned long long flags,
                                                cudaStream_t stream) {
  (void)stream;
  return rgpu::client::batch(dptrs, sizes, count, nullptr, nullptr, 0, flags, false);
}

extern "C" cudaError_t cudaMemDiscardBatchAsync_ptsz(void** dptrs, size_t* sizes, size_t count,
                                                     unsigned long long flags, cudaStream_t stream) {
  (void)stream;
  return rgpu::client::batch(dptrs, sizes, count, nullptr, nullptr, 0, flags, false);
}

extern "C" cudaError_t cudaMemDiscardAndPrefetchBatchAsync(void** dptrs, size_t* sizes, size_t count,
                                                           cudaMemLocation* prefetchLocs, size_t* prefetchLocIdxs,
                                                           size_t numPrefetchLocs, unsigned long long flags,
                                                           cudaStream_t stream) {
  (void)stream;
  return rgpu::client::batch(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, true);
}

extern "C" cudaError_t cudaMemDiscardAndPrefetchBatchAsync_ptsz(void** dptrs, size_t* sizes, size_t count,
                                                                cudaMemLocation* prefetchLocs, size_t* prefetchLocIdxs,
                                                                size_t numPrefetchLocs, unsigned long long flags,
                                                                cudaStream_t stream) {
  (void)stream;
  return rgpu::client::batch(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, true);
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
