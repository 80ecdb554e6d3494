// The client's memory map.
#include "client/runtime/memory_map.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <mutex>

namespace rgpu::client {
namespace {

constexpr uintptr_t kPage = 4096;

uintptr_t page_down(uintptr_t a) { return a & ~(kPage - 1); }
uintptr_t page_up(uintptr_t a) { return (a + kPage - 1) & ~(kPage - 1); }

// The pages of the device range [base, base + size) that no other allocation in `m` holds, to be
// reserved with it. Allocations never overlap, so only the first page (with the one before) and the
// last (with the one after) can be shared.
std::pair<uintptr_t, uintptr_t> own_pages(const std::map<uintptr_t, Region>& m, uintptr_t base, size_t size) {
  uintptr_t lo = page_down(base);
  uintptr_t hi = page_up(base + size);
  auto next = m.upper_bound(base);
  if (next != m.end() && next->first < hi) hi -= kPage;
  auto prev = m.lower_bound(base);
  if (prev != m.begin() && std::prev(prev)->second.base + std::prev(prev)->second.size > lo) lo += kPage;
  return {lo, hi};
}

enum class Reserve { kDone, kTaken, kUnavailable };

// PROT_NONE pages at [lo, hi), only if nothing is mapped there. kUnavailable: the kernel cannot
// reserve there (an address past this process's reach, or a kernel before 4.17, which takes the
// address as a hint); nothing of the program's can be in the way then either way, so the range is
// used unreserved.
Reserve reserve(uintptr_t lo, uintptr_t hi) {
  if (lo >= hi) return Reserve::kDone;
  void* want = reinterpret_cast<void*>(lo);
  void* got = mmap(want, hi - lo, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (got == want) return Reserve::kDone;
  if (got != MAP_FAILED) {
    munmap(got, hi - lo);
    return Reserve::kUnavailable;
  }
  return errno == EEXIST ? Reserve::kTaken : Reserve::kUnavailable;
}

}  // namespace

MemoryMap& MemoryMap::get() {
  static MemoryMap* map = new MemoryMap();  // outlives static destructors that may free memory
  return *map;
}

bool MemoryMap::add_device(const void* base, size_t size, int device, bool overlap_ok, bool reusable) {
  std::unique_lock lock(mu_);
  auto b = reinterpret_cast<uintptr_t>(base);
  Region r{.base = b, .size = size == 0 ? 1 : size, .device = device, .reusable = reusable};
  auto [lo, hi] = own_pages(device_, r.base, r.size);
  const Reserve got = reserve(lo, hi);
  if (got == Reserve::kTaken && !overlap_ok) return false;
  if (got == Reserve::kDone && lo < hi) r.reserved_lo = lo, r.reserved_hi = hi;
  device_[b] = r;
  return true;
}

std::optional<Region> MemoryMap::remove_device(const void* base) {
  std::unique_lock lock(mu_);
  auto it = device_.find(reinterpret_cast<uintptr_t>(base));
  if (it == device_.end()) return std::nullopt;
  const Region r = it->second;
  erase_device(it);
  return r;
}

void MemoryMap::remove_device_all(int device) {
  std::unique_lock lock(mu_);
  for (auto it = device_.begin(); it != device_.end();) {
    auto next = std::next(it);
    if (it->second.device == device) erase_device(it);
    it = next;
  }
}

void MemoryMap::erase_device(std::map<uintptr_t, Region>::iterator it) {
  const Region r = it->second;
  uintptr_t lo = r.reserved_lo, hi = r.reserved_hi;
  // A held page a neighbour also lies on stays reserved, held by the neighbour now.
  auto pass = [](Region& to, uintptr_t page) {
    if (to.reserved_lo == to.reserved_hi) {
      to.reserved_lo = page, to.reserved_hi = page + kPage;
    } else {
      to.reserved_lo = std::min(to.reserved_lo, page), to.reserved_hi = std::max(to.reserved_hi, page + kPage);
    }
  };
  if (lo < hi && it != device_.begin()) {
    Region& prev = std::prev(it)->second;
    if (prev.base + prev.size > lo) pass(prev, lo), lo += kPage;
  }
  auto next = std::next(it);
  if (lo < hi && next != device_.end() && next->first < hi) pass(next->second, hi - kPage), hi -= kPage;
  device_.erase(it);
  if (lo < hi) munmap(reinterpret_cast<void*>(lo), hi - lo);
}

std::optional<Region> MemoryMap::find_device(const void* p) const {
  std::shared_lock lock(mu_);
  return find_in(device_, p);
}

void MemoryMap::add_host(const void* base, size_t size, unsigned flags, bool owned, uint64_t shared,
                         uint64_t shared_device) {
  std::unique_lock lock(mu_);
  auto b = reinterpret_cast<uintptr_t>(base);
  host_[b] = Region{.base = b,
                    .size = size == 0 ? 1 : size,
                    .host_flags = flags,
                    .owned_host = owned,
                    .shared = shared,
                    .shared_device = shared_device};
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
