// Host memory for the GPU's bulk use: the host's free memory as the kernel estimates it
// (/proc/meminfo's MemAvailable: what a swap-out may fill, server/session/swap_space.h, and what
// `rgpu bench pool --overcommit` sizes its tenants by), and large mappings made ready to pin.
#pragma once

#include <cstdint>
#include <optional>

namespace rgpu {

// Bytes; nullopt when /proc/meminfo cannot say.
std::optional<uint64_t> host_available_bytes();

// `size` bytes of anonymous memory, 2 MiB aligned and advised for transparent huge pages, every page
// made by several threads at once, for the driver to pin (cuMemHostRegister) at its full rate: on
// the H200 host 16 threads made pages at 31 GB/s and registering them ran at 35 GB/s, where
// cuMemHostAlloc, which makes and pins its pages itself, ran at 1.9 GB/s, holding the process's
// address space meanwhile (its other threads stalled on their page faults). Null when it cannot
// be mapped. Give it back with munmap(p, size).
uint8_t* map_populated(uint64_t size);

}  // namespace rgpu
