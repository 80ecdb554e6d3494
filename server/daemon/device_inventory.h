// The GPUs rgpud pools, read once at start-up in a short-lived child process: rgpud's parent must
// never create a CUDA context itself, since it forks every session's worker and a forked child
// cannot use a context its parent made.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "server/pool/pool.h"

namespace rgpu::server {

// backend: "cuda" or "emulated".
Result<std::vector<pool::GpuInfo>> probe_devices(const std::string& backend);

}  // namespace rgpu::server
