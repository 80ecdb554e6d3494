// Device memory the server allocates, recorded in the client's memory map. A device address is the
// server's, so it may fall where this program already has memory of its own (then neither
// cudaMemcpyDefault nor cudaPointerGetAttributes could tell the two apart): such an allocation is
// kept aside while the server is asked for another, and freed once one lands clear (memory_map.h).
// When a few tries all land on the program's memory, the last is kept as it is, said once: device
// memory wins the lookups there, as before address reservations.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

namespace rgpu::client {

// Records the allocation at `p` (`size` bytes; `reusable`: a cudaMalloc block, see freed_blocks.h)
// and says true, or, when it lies on the program's memory and more tries are left, holds it in
// `misses` and says false (ask again).
bool record_or_hold(void* p, size_t size, std::vector<void*>& misses, bool reusable);
// Records memory the server maps rather than allocates (opened from an IPC handle, mapped from
// external memory): its address cannot be asked for again, so one that lies on the program's memory
// is recorded there all the same, and said (`what` names the mapping).
void record_mapping(const void* p, size_t size, const char* what);
// Frees the held misses; the allocation's status, finished as CUDA's.
cudaError_t finish_allocation(cudaError_t status, const std::vector<void*>& misses);

// `alloc(void** p, size_t* size)` makes one allocation on the server: its status, *p and the
// allocation's extent in bytes. The result is the last allocation's status.
template <typename Alloc>
cudaError_t allocate_device(void** p, Alloc&& alloc, bool reusable = false) {
  std::vector<void*> misses;  // empty unless an allocation lands on the program's memory
  cudaError_t st;
  size_t size = 0;
  while ((st = alloc(p, &size)) == cudaSuccess && p && *p && !record_or_hold(*p, size, misses, reusable)) {
  }
  return finish_allocation(st, misses);
}

}  // namespace rgpu::client
