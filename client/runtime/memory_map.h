// The client's map of memory it knows: device allocations (made through this process's session)
// and pinned host ranges (cudaMallocHost, cudaHostAlloc, cudaHostRegister). It lets
// cudaMemcpyDefault and cudaPointerGetAttributes be answered without a round trip.
//
// Device addresses are the server's, so nothing but this map keeps them apart from the client's own
// memory: each device allocation's pages are reserved in this process too (PROT_NONE, no memory
// behind), as CUDA's unified addressing reserves them in a local program, so that no host memory
// the program gets later lies at a device address. An allocation that lands on memory the program
// already has is refused (add_device) and the caller asks the server for another; one that cannot
// be had elsewhere is recorded unreserved, and device memory wins the lookups there.
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
  bool reusable = false;    // a cudaMalloc block, which its cudaFree may keep for reuse (freed_blocks.h)
  unsigned host_flags = 0;  // pinned host ranges: the cudaHostAlloc / cudaHostRegister flags
  bool owned_host = false;  // allocated by us (cudaMallocHost / cudaHostAlloc), freed by cudaFreeHost
  uint64_t shared = 0;      // owned host memory shared with the session (shared_host.h): its id, else 0
  uint64_t shared_device = 0;  // and the GPU's address of its start (the base, when the worker could map it there)
  // Device allocations: the pages [reserved_lo, reserved_hi) it holds reserved in this process (a
  // page two allocations share is held by one of them).
  uintptr_t reserved_lo = 0, reserved_hi = 0;

  // The GPU's address of `a` (inside this range) when it is shared memory, which the worker maps
  // for the device where it is (no mirror: mapped_memory.h); 0 when it is not.
  uint64_t shared_address(uintptr_t a) const { return shared ? shared_device + (a - base) : 0; }
};

class MemoryMap {
 public:
  static MemoryMap& get();

  // Records a device allocation and reserves its pages here. When this process has memory of its
  // own in the range: false, recording nothing, unless `overlap_ok` (then recorded unreserved).
  [[nodiscard]] bool add_device(const void* base, size_t size, int device, bool overlap_ok = false,
                                bool reusable = false);
  // Forgets the device allocation starting at `base`: what it was, or nothing if none starts there.
  std::optional<Region> remove_device(const void* base);
  // Forgets every allocation of `device` (cudaDeviceReset freed them).
  void remove_device_all(int device);
  // The device allocation containing p, if any.
  std::optional<Region> find_device(const void* p) const;

  void add_host(const void* base, size_t size, unsigned flags, bool owned, uint64_t shared = 0,
                uint64_t shared_device = 0);
  std::optional<Region> remove_host(const void* base);
  std::optional<Region> find_host(const void* p) const;
  // False when no pinned host range ever held `a`: a launch's arguments are looked up only past
  // this check (two relaxed loads, no lock).
  bool may_be_host(uintptr_t a) const {
    return a >= host_lo_.load(std::memory_order_relaxed) && a < host_hi_.load(std::memory_order_relaxed);
  }

 private:
  static std::optional<Region> find_in(const std::map<uintptr_t, Region>& m, const void* p);
  // Forgets device allocation `it`, releasing the pages it held but passing a page it shares with a
  // neighbour to that neighbour.
  void erase_device(std::map<uintptr_t, Region>::iterator it);
  mutable std::shared_mutex mu_;
  std::map<uintptr_t, Region> device_;
  std::map<uintptr_t, Region> host_;
  std::atomic<uintptr_t> host_lo_{UINTPTR_MAX}, host_hi_{0};  // every host range ever added lies within
};

}  // namespace rgpu::client
