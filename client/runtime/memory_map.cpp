// The client's memory map.
#include "client/runtime/memory_map.h"

#include <mutex>

namespace rgpu::client {

MemoryMap& MemoryMap::get() {
  static MemoryMap* map = new MemoryMap();  // outlives static destructors that may free memory
  return *map;
}

void MemoryMap::add_device(const void* base, size_t size, int device) {
  std::unique_lock lock(mu_);
  auto b = reinterpret_cast<uintptr_t>(base);
  device_[b] = Region{b, size == 0 ? 1 : size, device, 0, false};
}

bool MemoryMap::remove_device(const void* base) {
  std::unique_lock lock(mu_);
  return device_.erase(reinterpret_cast<uintptr_t>(base)) > 0;
}

void MemoryMap::remove_device_all(int device) {
  std::unique_lock lock(mu_);
  std::erase_if(device_, [device](const auto& kv) { return kv.second.device == device; });
}

std::optional<Region> MemoryMap::find_device(const void* p) const {
  std::shared_lock lock(mu_);
  return find_in(device_, p);
}

void MemoryMap::add_host(const void* base, size_t size, unsigned flags, bool owned, uint64_t shared) {
  std::unique_lock lock(mu_);
  auto b = reinterpret_cast<uintptr_t>(base);
  host_[b] = Region{b, size == 0 ? 1 : size, -1, flags, owned, shared};
  if (b < host_lo_.load(std::memory_order_relaxed)) host_lo_.store(b, std::memory_order_relaxed);
  const uintptr_t end = b + host_[b].size;
  if (end > host_hi_.load(std::memory_order_relaxed)) host_hi_.store(end, std::memory_order_relaxed);
}

std::optional<Region> MemoryMap::remove_host(const void* base) {
  std::unique_lock lock(mu_);
  auto it = host_.find(reinterpret_cast<uintptr_t>(base));
  if (it == host_.end()) return std::nullopt;
  Region r = it->second;
  host_.erase(it);
  return r;
}

std::optional<Region> MemoryMap::find_host(const void* p) const {
  std::shared_lock lock(mu_);
  return find_in(host_, p);
}

std::optional<Region> MemoryMap::find_in(const std::map<uintptr_t, Region>& m, const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p);
  auto it = m.upper_bound(a);
  if (it == m.begin()) return std::nullopt;
  --it;
  if (a >= it->second.base && a < it->second.base + it->second.size) return it->second;
  return std::nullopt;
}

}  // namespace rgpu::client
