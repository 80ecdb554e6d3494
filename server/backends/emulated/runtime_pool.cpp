// Emulated CUDA Runtime: memory pools. A pool hands out ordinary emulated device memory (so it
// counts in the device's use, and in a session's slice, like any allocation) and keeps the figures
// CUDA reports: bytes in use, bytes reserved and their high marks. Reserved memory is modelled,
// not held: what a pool keeps after frees is its release threshold at most (CUDA releases the rest
// at the next synchronisation; here at once), and cudaMemPoolTrimTo lowers it.
//
// A pool created exportable (handle type: a POSIX descriptor) keeps its memory in a memfd, so
// another process can map it: the export is a duplicate of the descriptor, an exported pointer
// names its allocation's place in the file, and an importing process maps that place. The file's
// first page says which device the pool is of.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

#include "common/shared_file.h"
#include "server/backends/emulated/runtime.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
namespace {

constexpr uint64_t kPage = 4096;
constexpr char kFileMagic[8] = {'r', 'g', 'p', 'u', 'p', 'o', 'o', 'l'};

// The first page of an exportable pool's file.
struct FileHeader {
  char magic[8];
  int32_t device;
};

// What cudaMemPoolExportPointer writes into cudaMemPoolPtrExportData.
struct ExportedPointer {
  char magic[8];
  uint64_t offset, size;
};
static_assert(sizeof(ExportedPointer) <= sizeof(cudaMemPoolPtrExportData));

struct Pool {
  Pool() = default;
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;
  ~Pool() {
    if (file >= 0) ::close(file);
  }
  int device = 0;
  bool is_default = false;
  int file = -1;            // exportable or imported: the memfd behind its memory
  bool imported = false;    // opened from another process's export: its memory is that process's
  uint64_t file_end = kPage;  // where the next allocation goes in `file` (after the header page)
  int reuse[3] = {1, 1, 1};  // cudaMemPoolReuseFollowEventDependencies .. ReuseAllowInternalDependencies
  uint64_t release_threshold = 0;
  uint64_t used = 0, used_high = 0, reserved = 0, reserved_high = 0;
  std::vector<cudaMemAccessFlags> access;  // by device: the owner's is read-write
};

struct Pools {
  std::mutex mu;
  std::unordered_map<void*, std::unique_ptr<Pool>> pools;  // the cudaMemPool_t is the Pool's address
  std::unordered_map<int, Pool*> defaults, current;         // by device
  struct Allocation {
    Pool* pool;  // null once the pool is destroyed
    uint64_t size;
    uint64_t offset;  // in the pool's file
  };
  std::unordered_map<const void*, Allocation> allocations;
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
  if (poolProps->handleTypes & ~cudaMemHandleTypePosixFileDescriptor) return cudaErrorNotSupported;
  int file = -1;
  if (poolProps->handleTypes == cudaMemHandleTypePosixFileDescriptor) {
    // Sealed against shrinking, so that every process that maps it may touch what it mapped.
    file = memfd_create("rgpu-emulated-pool", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    FileHeader header{};
    std::memcpy(header.magic, kFileMagic, sizeof header.magic);
    header.device = poolProps->location.id;
    if (file < 0 || pwrite(file, &header, sizeof header, 0) != sizeof header || ftruncate(file, kPage) != 0 ||
        fcntl(file, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) != 0) {
      if (file >= 0) ::close(file);
      return cudaErrorMemoryAllocation;
    }
  }
  Pools& ps = pools();
  std::lock_guard lock(ps.mu);
  Pool* p = make_pool(ps, poolProps->location.id);
  p->file = file;
  *memPool = reinterpret_cast<cudaMemPool_t>(p);
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
    if (owner.pool == p) owner.pool = nullptr;
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
  if (!p || p->imported) return cudaErrorInvalidValue;  // an imported pool's memory is the exporter's to allocate
  uint64_t offset = 0;
  if (p->file >= 0) {
    offset = p->file_end;
    const uint64_t end = offset + ((size + kPage - 1) & ~(kPage - 1));
    if (ftruncate(p->file, static_cast<off_t>(end)) != 0) return cudaErrorMemoryAllocation;
    p->file_end = end;
  }
  if (cudaError_t err = state().memory.allocate(p->device, size, ptr, p->file, offset); err != cudaSuccess) return err;
  ps.allocations[*ptr] = {p, size, offset};
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
  if (Pool* p = it->second.pool) {
    p->used -= it->second.size;
    settle(*p);
    // The exporter gives the pages back (an importer's free only unmaps its view of them).
    if (p->file >= 0 && !p->imported)
      (void)fallocate(p->file, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(it->second.offset),
                      static_cast<off_t>((it->second.size + kPage - 1) & ~(kPage - 1)));
  }
  ps.allocations.erase(it);
}

cudaError_t cudaMemPoolExportToShareableHandle(void* shareableHandle, cudaMemPool_t memPool,
                                               enum cudaMemAllocationHandleType handleType, unsigned int flags) {
  Pools& ps = pools();
  std::lock_guard lock(ps.mu);
  Pool* p = find(ps, memPool);
  if (!p || !shareableHandle || flags || handleType != cudaMemHandleTypePosixFileDescriptor || p->file < 0 ||
      p->imported)
    return cudaErrorInvalidValue;
  const int fd = fcntl(p->file, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return cudaErrorOperatingSystem;
  *static_cast<int*>(shareableHandle) = fd;
  return cudaSuccess;
}

// The caller keeps its descriptor (the pool holds a duplicate), as CUDA lets an importer close it.
cudaError_t cudaMemPoolImportFromShareableHandle(cudaMemPool_t* memPool, void* shareableHandle,
                                                 enum cudaMemAllocationHandleType handleType, unsigned int flags) {
  if (!memPool || flags || handleType != cudaMemHandleTypePosixFileDescriptor) return cudaErrorInvalidValue;
  const int given = static_cast<int>(reinterpret_cast<intptr_t>(shareableHandle));
  FileHeader header{};
  if (!is_sealed_file_of(given, kPage) || pread(given, &header, sizeof header, 0) != sizeof header ||
      std::memcmp(header.magic, kFileMagic, sizeof header.magic) != 0 || !state().valid_device(header.device))
    return cudaErrorInvalidValue;
  const int file = fcntl(given, F_DUPFD_CLOEXEC, 0);
  if (file < 0) return cudaErrorOperatingSystem;
  Pools& ps = pools();
  std::lock_guard lock(ps.mu);
  Pool* p = make_pool(ps, header.device);
  p->file = file;
  p->imported = true;
  *memPool = reinterpret_cast<cudaMemPool_t>(p);
  return cudaSuccess;
}

cudaError_t cudaMemPoolExportPointer(struct cudaMemPoolPtrExportData* exportData, void* ptr) {
  Pools& ps = pools();
  std::lock_guard lock(ps.mu);
  auto it = ps.allocations.find(ptr);
  if (!exportData || it == ps.allocations.end() || !it->second.pool || it->second.pool->file < 0 ||
      it->second.pool->imported)
    return cudaErrorInvalidValue;
  ExportedPointer e{};
  std::memcpy(e.magic, kFileMagic, sizeof e.magic);
  e.offset = it->second.offset;
  e.size = it->second.size;
  *exportData = {};
  std::memcpy(exportData, &e, sizeof e);
  return cudaSuccess;
}

// Maps the exported allocation's bytes: memory of the exporter's device, not counted in this
// process's use; cudaFree unmaps it.
cudaError_t cudaMemPoolImportPointer(void** ptr, cudaMemPool_t memPool, struct cudaMemPoolPtrExportData* exportData) {
  if (!ptr || !exportData) return cudaErrorInvalidValue;
  ExportedPointer e{};
  std::memcpy(&e, exportData, sizeof e);
  Pools& ps = pools();
  std::lock_guard lock(ps.mu);
  Pool* p = find(ps, memPool);
  if (!p || !p->imported || std::memcmp(e.magic, kFileMagic, sizeof e.magic) != 0 || e.offset % kPage ||
      e.offset < kPage || e.size == 0 || e.size > UINT64_MAX - e.offset || !is_sealed_file_of(p->file, e.offset + e.size))
    return cudaErrorInvalidValue;
  if (cudaError_t err = state().memory.map_file(p->device, p->file, e.offset, e.size, ptr); err != cudaSuccess)
    return err;
  ps.allocations[*ptr] = {p, e.size, e.offset};
  p->used += e.size;
  return cudaSuccess;
}

}  // namespace rgpu::server::emulated
