// The client's map of memory it knows: device allocations (made through this process's session)
// and pinned host ranges (cudaMallocHost, cudaHostAlloc, cudaHostRegister). It lets
// cudaMemcpyDefault and cudaPointerGetAttributes be answered without a round trip.
#pragma once

#include <cstddef>
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

 private:
  static std::optional<Region> find_in(const std::map<uintptr_t, Region>& m, const void* p);
  mutable std::shared_mutex mu_;
  std::map<uintptr_t, Region> device_;
  std::map<uintptr_t, Region> host_;
};

}  // namespace rgpu::client
