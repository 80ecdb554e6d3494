// Device allocations clear of the program's own memory.
#include "client/runtime/device_allocation.h"

#include <mutex>

#include "client/runtime/cudart_errors.h"
#include "client/runtime/device.h"
#include "client/runtime/memory_map.h"
#include "common/log.h"
#include "gen/cudart/cudart_remote.h"

namespace rgpu::client {
namespace {

// Each miss is held while asking again, so the server cannot hand the same range back; a handful
// of misses in a row means the server's addresses are where the program's memory is, not chance.
constexpr size_t kTries = 8;

}  // namespace

bool record_or_hold(void* p, size_t size, std::vector<void*>& misses, bool reusable) {
  const bool last = misses.size() + 1 == kTries;
  if (!MemoryMap::get().add_device(p, size, current_device(), last, reusable)) {
    misses.push_back(p);
    return false;
  }
  if (last) {
    static std::once_flag said;
    std::call_once(said, [&] {
      RGPU_LOG_WARN("the server's device memory lands on this program's own memory (%p, %zu bytes, after %zu tries); "
                    "kept there: cudaMemcpyDefault and cudaPointerGetAttributes take such addresses as device memory",
                    p, size, kTries);
    });
  }
  return true;
}

void record_mapping(const void* p, size_t size, const char* what) {
  if (MemoryMap::get().add_device(p, size, current_device())) return;
  RGPU_LOG_WARN("%s lies on this program's own memory (%p, %zu bytes); cudaMemcpyDefault and "
                "cudaPointerGetAttributes take those addresses as device memory",
                what, p, size);
  (void)MemoryMap::get().add_device(p, size, current_device(), true);
}

cudaError_t finish_allocation(cudaError_t status, const std::vector<void*>& misses) {
  for (void* miss : misses) gen::cudart::remote::cudaFree(miss);
  return cudart_finish(status);
}

}  // namespace rgpu::client
