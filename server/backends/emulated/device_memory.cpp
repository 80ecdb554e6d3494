// The allocation map of the virtual devices.
#include "server/backends/emulated/device_memory.h"

#include <sys/mman.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "server/backends/emulated/device_spec.h"

namespace rgpu::server::emulated {
namespace {

constexpr uint64_t kPage = 4096;

// The bytes an allocation of `size` accounts for.
uint64_t footprint_of(uint64_t size) { return (size + kAllocationAlignment - 1) / kAllocationAlignment * kAllocationAlignment; }

// The virtual devices' address window. A device address is where its backing lies in the worker,
// and a client keeps its device addresses clear of its own memory (client/runtime/memory_map.h).
// Backing mapped wherever the kernel chooses would land, in every process alike, where processes
// keep their heaps and libraries (the same places exactly when address randomisation is off), so
// it is mapped from here up instead: far below the top of the address space, where mappings
// grow down from, and above the program image and heap, as a GPU's range of the unified address
// space is its own. Addresses are not reused; the window has tens of TiB.
constexpr uint64_t kWindowBase = 0x200000000000;
std::atomic<uint64_t> window_next{kWindowBase};

// `want` when it is free, else the next free place in the window; elsewhere only when neither can
// be had (a kernel before 4.17 takes MAP_FIXED_NOREPLACE as a hint). Pages are committed when
// touched. With a `file`, its bytes from `offset` on, shared; else anonymous memory.
uint8_t* map_backing(uint64_t footprint, uint64_t want, int file, uint64_t offset) {
  const uint64_t length = (footprint + kPage - 1) & ~(kPage - 1);
  const int kind = file >= 0 ? MAP_SHARED : MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  const auto at_offset = static_cast<off_t>(offset);
  auto try_at = [&](uint64_t at, bool* taken) -> uint8_t* {
    void* p = mmap(reinterpret_cast<void*>(at), length, PROT_READ | PROT_WRITE, kind | MAP_FIXED_NOREPLACE, file,
                   at_offset);
    *taken = p == MAP_FAILED && errno == EEXIST;
    if (p == MAP_FAILED) return nullptr;
    if (reinterpret_cast<uint64_t>(p) == at) return static_cast<uint8_t*>(p);
    munmap(p, length);
    return nullptr;
  };
  bool taken = false;
  if (want) {
    if (uint8_t* p = try_at(want, &taken)) return p;
  }
  for (int tries = 0; tries < 16; ++tries) {
    if (uint8_t* p = try_at(window_next.fetch_add(length), &taken)) return p;
    if (!taken) break;
  }
  void* p = mmap(nullptr, length, PROT_READ | PROT_WRITE, kind, file, at_offset);
  return p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
}

}  // namespace

Allocation::Allocation(int dev, uint64_t bytes, uint64_t accounted, uint64_t want, int file, uint64_t offset)
    : data(map_backing(accounted, want, file, offset)), size(bytes), footprint(accounted), device(dev) {}

Allocation::~Allocation() {
  if (data) munmap(data, footprint);
}

void DeviceMemory::configure(int devices, uint64_t bytes_per_device) {
  std::lock_guard lock(mu_);
  by_address_.clear();
  used_.assign(static_cast<size_t>(devices), 0);
  capacity_ = bytes_per_device;
}

cudaError_t DeviceMemory::allocate(int device, uint64_t size, void** out, int file, uint64_t offset) {
  *out = nullptr;
  if (size == 0) return cudaSuccess;
  if (offset % kPage) return cudaErrorInvalidValue;
  if (size > capacity_) return cudaErrorMemoryAllocation;
  const uint64_t footprint = footprint_of(size);
  {
    std::lock_guard lock(mu_);
    if (device < 0 || static_cast<size_t>(device) >= used_.size()) return cudaErrorInvalidDevice;
    if (footprint > capacity_ - used_[device]) return cudaErrorMemoryAllocation;
    used_[device] += footprint;  // reserved before the (unlocked) host allocation
  }
  auto allocation = std::make_shared<Allocation>(device, size, footprint, 0, file, offset);
  std::lock_guard lock(mu_);
  if (!allocation->data) {
    used_[device] -= footprint;
    return cudaErrorMemoryAllocation;
  }
  *out = allocation->data;
  by_address_.emplace(reinterpret_cast<uintptr_t>(allocation->data), std::move(allocation));
  return cudaSuccess;
}

cudaError_t DeviceMemory::allocate_host_mapped(int device, uint64_t size, uint64_t want, void** out) {
  *out = nullptr;
  if (size == 0) return cudaSuccess;
  return add_uncounted(std::make_shared<Allocation>(device, size, footprint_of(size), want), out);
}

cudaError_t DeviceMemory::map_file(int device, int fd, uint64_t offset, uint64_t size, void** out, uint64_t want) {
  *out = nullptr;
  if (size == 0 || offset % kPage) return cudaErrorInvalidValue;
  return add_uncounted(std::make_shared<Allocation>(device, size, footprint_of(size), want, fd, offset), out);
}

cudaError_t DeviceMemory::add_uncounted(std::shared_ptr<Allocation> allocation, void** out) {
  if (!allocation->data) return cudaErrorMemoryAllocation;
  allocation->counted = false;
  std::lock_guard lock(mu_);
  if (allocation->device < 0 || static_cast<size_t>(allocation->device) >= used_.size()) return cudaErrorInvalidDevice;
  *out = allocation->data;
  by_address_.emplace(reinterpret_cast<uintptr_t>(allocation->data), std::move(allocation));
  return cudaSuccess;
}

cudaError_t DeviceMemory::free(const void* ptr, const Allocation* expected) {
  if (!ptr) return cudaSuccess;
  std::shared_ptr<Allocation> victim;  // destroyed after the lock is released
  std::lock_guard lock(mu_);
  auto it = by_address_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == by_address_.end() || (expected && it->second.get() != expected)) return cudaErrorInvalidValue;
  victim = std::move(it->second);
  by_address_.erase(it);
  if (victim->backed && victim->counted) used_[victim->device] -= victim->footprint;
  return cudaSuccess;
}

DeviceRange DeviceMemory::find(const void* address, uint64_t length, int device) const {
  uintptr_t start = reinterpret_cast<uintptr_t>(address);
  std::lock_guard lock(mu_);
  auto it = by_address_.upper_bound(start);
  if (it == by_address_.begin()) return {};
  --it;
  const Allocation& a = *it->second;
  uint64_t offset = start - it->first;
  if (offset >= a.size || length > a.size - offset) return {};
  if (device >= 0 && a.device != device) return {};
  if (!a.backed) return {};
  return {it->second, a.data + offset};
}

cudaError_t DeviceMemory::release_backing(const void* ptr) {
  std::lock_guard lock(mu_);
  auto it = by_address_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == by_address_.end()) return cudaErrorInvalidValue;
  Allocation& a = *it->second;
  if (!a.backed) return cudaSuccess;
  if (madvise(a.data, a.footprint, MADV_DONTNEED) != 0) std::memset(a.data, 0, a.footprint);
  a.backed = false;
  used_[a.device] -= a.footprint;
  return cudaSuccess;
}

cudaError_t DeviceMemory::restore_backing(const void* ptr) {
  std::lock_guard lock(mu_);
  auto it = by_address_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == by_address_.end()) return cudaErrorInvalidValue;
  Allocation& a = *it->second;
  if (a.backed) return cudaSuccess;
  if (a.footprint > capacity_ - used_[a.device]) return cudaErrorMemoryAllocation;
  used_[a.device] += a.footprint;
  a.backed = true;
  return cudaSuccess;
}

bool DeviceMemory::is_device_pointer(const void* address) const { return static_cast<bool>(find(address, 0)); }

uint64_t DeviceMemory::used(int device) const {
  std::lock_guard lock(mu_);
  return device >= 0 && static_cast<size_t>(device) < used_.size() ? used_[device] : 0;
}

uint64_t DeviceMemory::used_total() const {
  std::lock_guard lock(mu_);
  uint64_t total = 0;
  for (uint64_t u : used_) total += u;
  return total;
}

uint64_t DeviceMemory::capacity() const {
  std::lock_guard lock(mu_);
  return capacity_;
}

void DeviceMemory::release_device(int device) {
  std::vector<std::shared_ptr<Allocation>> victims;  // destroyed after the lock is released
  std::lock_guard lock(mu_);
  for (auto it = by_address_.begin(); it != by_address_.end();) {
    if (it->second->device == device) {
      if (it->second->backed && it->second->counted) used_[device] -= it->second->footprint;
      victims.push_back(std::move(it->second));
      it = by_address_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace rgpu::server::emulated
