// The host's free memory (see host_memory.h).
#include "common/host_memory.h"

#include <fstream>
#include <string>

namespace rgpu {

std::optional<uint64_t> host_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  uint64_t kib = 0;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return std::nullopt;
}

}  // namespace rgpu
