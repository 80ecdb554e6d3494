// The host's free memory as the kernel estimates it (/proc/meminfo's MemAvailable): what a swap-out
// may fill (server/session/swap_space.h) and what `rgpu bench pool --overcommit` sizes its tenants by.
#pragma once

#include <cstdint>
#include <optional>

namespace rgpu {

// Bytes; nullopt when /proc/meminfo cannot say.
std::optional<uint64_t> host_available_bytes();

}  // namespace rgpu
