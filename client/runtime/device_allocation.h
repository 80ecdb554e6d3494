// Device memory the server allocates, recorded in the client's memory map. A device address is the
// server's, so it may fall where this program already has memory of its own (then neither
// cudaMemcpyDefault nor cudaPointerGetAttributes could tell the two apart): such an allocation is
// kept aside while the server is asked for another, and freed once one lands clear (memory_map.h).
// When a few tries all land on the program's memory, the last is kept as it is, said once: device
// memory wins the lookups there, as before address reservations.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>

namespace rgpu::client {

// `alloc` makes one allocation on the server: its status, *p and the allocation's extent in bytes
// (*size). The result is the last allocation's status.
cudaError_t allocate_device(void** p, const std::function<cudaError_t(void** p, size_t* size)>& alloc);

}  // namespace rgpu::client
