// A session's memory extension (the tenant's `memory_host`): an allocation its device slice
// refuses is served instead from pinned, device-mapped host memory (Backend::host_mapped_alloc),
// up to the extension's size, so a program that needs more memory than its slice still runs, its
// kernels reading that memory across the bus (slower). Freed with cudaFree as any allocation.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace rgpu::server {

class Backend;

class HostExtension {
 public:
  // limit 0: no extension; allocate() never takes anything.
  HostExtension(Backend& backend, uint64_t limit) : backend_(backend), limit_(limit) {}

  // An allocation past the device slice: false when the extension cannot take it (the caller
  // answers cudaErrorMemoryAllocation); true with the cudaError_t in *status otherwise.
  bool allocate(uint64_t size, void** out, int32_t* status);
  // Frees one of its allocations: false when `p` is not one.
  bool free(const void* p, int32_t* status);
  uint64_t used() const { return used_.load(); }  // bytes allocated from it now

 private:
  Backend& backend_;
  const uint64_t limit_;
  std::mutex mu_;
  std::unordered_map<uintptr_t, uint64_t> allocations_;  // size by address
  std::atomic<uint64_t> used_{0};
};

}  // namespace rgpu::server
