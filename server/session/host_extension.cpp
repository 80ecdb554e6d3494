// The memory extension (see host_extension.h).
#include "server/session/host_extension.h"

#include <cuda_runtime_api.h>

#include "common/host_memory.h"

#include "server/backends/backend.h"

namespace rgpu::server {

bool HostExtension::allocate(uint64_t size, void** out, int32_t* status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (size == 0 || size > limit_ - std::min(limit_, used_.load())) return false;
  // Its pages are made before they are pinned: one the host could not hold (less 1 GiB for the
  // rest of it) fails as on a full GPU, rather than waking the kernel's OOM killer.
  if (const std::optional<uint64_t> free_host = host_available_bytes(); free_host && *free_host < size + (1ull << 30)) {
    *status = cudaErrorMemoryAllocation;
    return true;
  }
  uint64_t address = 0;
  *status = backend_.host_mapped_alloc(size, 0, &address, nullptr);
  if (*status != cudaSuccess) return true;
  allocations_[address] = size;
  used_ += size;
  *out = reinterpret_cast<void*>(address);
  return true;
}

bool HostExtension::free(const void* p, int32_t* status) {
  if (used_.load() == 0) return false;  // every cudaFree asks: none of its own, no lock
  std::lock_guard<std::mutex> lock(mu_);
  auto it = allocations_.find(reinterpret_cast<uintptr_t>(p));
  if (it == allocations_.end()) return false;
  *status = backend_.host_mapped_free(it->first);
  if (*status == cudaSuccess) {
    used_ -= it->second;
    allocations_.erase(it);
  }
  return true;
}

}  // namespace rgpu::server
