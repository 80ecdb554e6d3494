// Emulated CUDA Runtime: memory pools. A pool hands out ordinary emulated device memory (so it
// counts in the device's use, and in a session's slice, like any allocation) and keeps the figures
// CUDA reports: bytes in use, bytes reserved and their high marks. Reserved memory is modelled,
// not held: what a pool keeps after frees is its release threshold at most (CUDA releases the rest
// at the next synchronisation; here at once), and cudaMemPoolTrimTo lowers it.
#include <algorithm>
#include <memory>
#include <unordered_map>
#include <vector>

#include "server/backends/emulated/runtime.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
namespace {

struct Pool {
  int device = 0;
  bool is_default = false;
  int reuse[3] = {1, 1, 1};  // cudaMemPoolReuseFollowEventDependencies .. ReuseAllowInternalDependencies
  uint64_t release_threshold = 0;
  uint64_t used = 0, used_high = 0, reserved = 0, reserved_high = 0;
  std::vector<cudaMemAccessFlags> access;  // by device: the owner's is read-write
};

struct Pools {
  std::mutex mu;
  std::unordered_map<void*, std::unique_ptr<Pool>> pools;  // the cudaMemPool_t is the Pool's address
  std::unordered_map<int, Pool*> defaults, current;         // by device
  std::unordered_map<const void*, std::pair<Pool*, uint64_t>> allocations;
};

Pools& pools() {
  static Pools p;
  return p;
}

Pool* make_pool(Pools& ps, int device) {
  auto pool = std::make_unique<Pool>();
  pool->device = device;
  pool->access.assign(static_cast<size_t>(state().config.count), cudaMemAccessFlagsProtNone);
  pool->access[static_cast<size_t>(device)] = cudaMemAccessFlagsProtReadWrite;
  Pool* p = pool.get();
  ps.pools[p] = std::move(pool);
  return p;
}

// With the lock held.
Pool* default_pool(Pools& ps, int device) {
  auto& d = ps.defaults[device];
  if (!d) {
    d = make_pool(ps, device);
    d->is_default = true;
  }
  return d;
}

Pool* find(Pools& ps, cudaMemPool_t handle) {
  auto it = ps.pools.find(handle);
  return it == ps.pools.end() ? nullptr : it->second.get();
}

void settle(Pool& p) { p.reserved = std::max(p.used, std::min(p.reserved, p.release_threshold)); }

}  // namespace

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* memPool, int device) {
  if (!memPool) return cudaErrorInvalidValue;
  if (!state().valid_device(device)) return cudaErrorInvalidDevice;
  Pools& ps = pools();
  std::lock_guard lock(ps.mu);
  *memPool = reinterpret_cast<cudaMemPool_t>(default_pool(ps, device));
  return cudaSuccess;
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* memPool, int device) {
  if (!memPool) return cudaErrorInvalidValue;
  if (!state().valid_device(device)) return cudaErrorInvalidDevice;
  Pools& ps = pools();
  std::lock_guard lock(ps.mu);
  Pool* p = ps.current[device];
  *memPool = reinterpret_cast<cudaMemPool_t>(p ? p : default_pool(ps, device));
  return cudaSuccess;
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool) {
  if (!state().valid_device(device)) return cudaErrorInvalidDevice;
  Pools& ps = pools();
  std::lock_guard lock(ps.mu);
  Pool* p = find(ps, memPool);
  if (!p || p->device != device) return cudaErrorInvalidValue;
  ps.current[device] = p;
  return cudaSuccess;
}

cudaError_t cudaMemPoolCreate(cudaMemPool_t* memPool, const struct cudaMemPoolProps* poolProps) {
  if (!memPool || !poolProps || poolProps->allocType != cudaMemAllocationTypePinned) return cudaErrorInvalidValue;
  if (poolProps->location.type != cudaMemLocationTypeDevice) return cudaErrorNotSupported;
  if (!state().valid_device(poolProps->location.id)) return cudaErrorInvalidDevice;
  Pools& ps = pools();
  std::lock_guard lock(ps.mu);
  *memPool = reinterpret_cast<cudaMemPool_t>(make_pool(ps, poolProps->location.id));
  return cudaSuccess;
}

// Memory still allocated from the pool stays valid until freed, as CUDA defers a busy pool's end.
cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool) {
  Pools& ps = pools();
  std::lock_guard lock(ps.mu);
  Pool* p = find(ps, memPool);
  if (!p || p->is_default) return cudaErrorInvalidValue;
  if (ps.current[p->device] == p) ps.current.erase(p->device);
  for (auto& [ptr, owner] : ps.allocations)
    if (owner.first == p) owner.first = nullptr;
  ps.pools.erase(memPool);
  return cudaSuccess;
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void* value) {
  Pools& ps = pools();
  std::lock_guard lock(ps.mu);
  Pool* p = find(ps, memPool);
  if (!p || !value) return cudaErrorInvalidValue;
  const uint64_t v = attr >= cudaMemPoolAttrReleaseThreshold ? *static_cast<uint64_t*>(value) : 0;
  switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
      p->reuse[attr - cudaMemPoolReuseFollowEventDependencies] = *static_cast<int*>(value) != 0;
      return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold:
      p->release_threshold = v;
      settle(*p);
      return cudaSuccess;
    case cudaMemPoolAttrReservedMemHigh:  // only resets (to the current figure) are allowed
      if (v != 0) return cudaErrorInvalidValue;
      p->reserved_high = p->reserved;
      return cudaSuccess;
    case cudaMemPoolAttrUsedMemHigh:
      if (v != 0) return cudaErrorInvalidValue;
      p->used_high = p->used;
      return cudaSuccess;
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void* value) {
  Pools& ps = pools();
  std::lock_guard lock(ps.mu);
  Pool* p = find(ps, memPool);
  if (!p || !value) return cudaErrorInvalidValue;
  uint64_t v = 0;
  switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
      *static_cast<int*>(value) = p->reuse[attr - cudaMemPoolReuseFollowEventDependencies];
      return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold: v = p->release_threshold; break;
    case cudaMemPoolAttrReservedMemCurrent: v = p->reserved; break;
    case cudaMemPoolAttrReservedMemHigh: v = p->reserved_high; break;
    case cudaMemPoolAttrUsedMemCurrent: v = p->used; break;
    case cudaMemPoolAttrUsedMemHigh: v = p->used_high; break;
    default: return cudaErrorInvalidValue;
  }
  *static_cast<uint64_t*>(value) = v;
  return cudaSuccess;
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const struct cudaMemAccessDesc* descList, size_t count) {
  Pools& ps = pools();
  std::lock_guard lock(ps.mu);
  Pool* p = find(ps, memPool);
  if (!p || (count && !descList)) return cudaErrorInvalidValue;
  for (size_t i = 0; i < count; ++i) {
    const cudaMemAccessDesc& d = descList[i];
    if (d.location.type != cudaMemLocationTypeDevice || !state().valid_device(d.location.id)) return cudaErrorInvalidDevice;
    if (d.location.id == p->device && d.flags != cudaMemAccessFlagsProtReadWrite) return cudaErrorInvalidValue;
    p->access[static_cast<size_t>(d.location.id)] = d.flags;
  }
  return cudaSuccess;
}

cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags* flags, cudaMemPool_t memPool, struct cudaMemLocation* location) {
  Pools& ps = pools();
  std::lock_guard lock(ps.mu);
  Pool* p = find(ps, memPool);
  if (!p || !flags || !location || location->type != cudaMemLocationTypeDevice) return cudaErrorInvalidValue;
  if (!state().valid_device(location->id)) return cudaErrorInvalidDevice;
  *flags = p->access[static_cast<size_t>(location->id)];
  return cudaSuccess;
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep) {
  Pools& ps = pools();
  std::lock_guard lock(ps.mu);
  Pool* p = find(ps, memPool);
  if (!p) return cudaErrorInvalidValue;
  p->reserved = std::max<uint64_t>(p->used, std::min<uint64_t>(p->reserved, minBytesToKeep));
  return cudaSuccess;
}

cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
  if (!ptr) return cudaErrorInvalidValue;
  {
    RuntimeState& s = state();
    std::lock_guard lock(s.mu);
    Stream* st = nullptr;
    if (cudaError_t err = s.resolve_stream(stream, &st); err != cudaSuccess) return err;
    if (st && st->capture) return cudaErrorNotSupported;  // pool allocation nodes are not emulated
  }
  Pools& ps = pools();
  std::lock_guard lock(ps.mu);
  Pool* p = find(ps, memPool);
  if (!p) return cudaErrorInvalidValue;
  if (cudaError_t err = state().memory.allocate(p->device, size, ptr); err != cudaSuccess) return err;
  ps.allocations[*ptr] = {p, size};
  p->used += size;
  p->used_high = std::max(p->used_high, p->used);
  p->reserved = std::max(p->reserved, p->used);
  p->reserved_high = std::max(p->reserved_high, p->reserved);
  return cudaSuccess;
}

void forget_pool_allocation(const void* devPtr) {
  Pools& ps = pools();
  std::lock_guard lock(ps.mu);
  auto it = ps.allocations.find(devPtr);
  if (it == ps.allocations.end()) return;
  if (Pool* p = it->second.first) {
    p->used -= it->second.second;
    settle(*p);
  }
  ps.allocations.erase(it);
}

}  // namespace rgpu::server::emulated
