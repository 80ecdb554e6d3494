// Memory sizes as people write them: "4096" (MiB), "4096M", "4096MiB", "4G", "4GiB"
// (case-insensitive). MiB is the unit of slices, so a fraction of a MiB is refused. Shared by
// rgpud's configuration file, the client's RGPU_MEMORY and `rgpu run --memory` / `rgpu pool set`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace rgpu {

Result<uint64_t> parse_memory_size(std::string_view text);  // bytes
std::string format_mib(uint64_t bytes);                     // "4096 MiB"

}  // namespace rgpu
