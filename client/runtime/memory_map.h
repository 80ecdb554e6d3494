// The client's map of memory it knows: device allocations (made through this process's session)
// and pinned host ranges (cudaMallocHost, cudaHostAlloc, cudaHostRegister). It lets
// cudaMemcpyDefault and cudaPointerGetAttributes be answered without a round trip.
#pragma once

#include <cstddef>
#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <shared_mutex>

namespace rgpu::client {

struct Region {
  uintptr_t base = 0;
  size_t size = 0;
  int device = -1;          // device allocations
  unsigned host_flags = 0;  // pinned host ranges: the cudaHostAlloc / cudaHostRegister flags
  bool owned_host = false;  // allocated by us (cudaMallocHost / cudaHostAlloc), freed by cudaFreeHost
  uint64_t shared = 0;      // owned host memory shared with the session (shared_host.h): its id, else 0
};

class MemoryMap {
 public:
  static MemoryMap& get();

  void add_device(const void* base, size_t size, int device);
  bool remove_device(const void* base);
  // Forgets every allocation of `device` (cudaDeviceReset freed them).
  void remove_device_all(int device);
  // The device allocation containing p, if any.
  std::optional<Region> find_device(const void* p) const;

  void add_host(const void* base, size_t size, unsigned flags, bool owned, uint64_t shared = 0);
  std::optional<Region> remove_host(const void* base);
  std::optional<Region> find_host(const void* p) const;
  // False when no pinned host range ever held `a`: a launch's arguments are looked up only past
  // this check (two relaxed loads, no lock).
  bool may_be_host(uintptr_t a) const {
    return a >= host_lo_.load(std::memory_order_relaxed) && a < host_hi_.load(std::memory_order_relaxed);
  }

 private:
  static std::optional<Region> find_in(const std::map<uintptr_t, Region>& m, const void* p);
  mutable std::shared_mutex mu_;
  std::map<uintptr_t, Region> device_;
  std::map<uintptr_t, Region> host_;
  std::atomic<uintptr_t> host_lo_{UINTPTR_MAX}, host_hi_{0};  // every host range ever added lies within
};

}  // namespace rgpu::client
