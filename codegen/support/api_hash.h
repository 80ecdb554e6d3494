// The API hash client and server compare at hello: every forwarded library's generated kApiHash
// combined, so that a change to any library's marshalling makes the peers incompatible.
#pragma once

#include <cstdint>

#include "gen/cublas/cublas_ids.h"
#include "gen/cudart/cudart_ids.h"
#include "gen/cudnn/cudnn_ids.h"
#include "gen/nvml/nvml_ids.h"

namespace rgpu::gen {

// Folded in a fixed order (FNV-1a style), so that no two libraries' hashes can cancel out.
inline constexpr uint64_t kApiHash =
    (((cudart::kApiHash * 0x100000001b3ull) ^ cublas::kApiHash) * 0x100000001b3ull ^ nvml::kApiHash) *
        0x100000001b3ull ^
    cudnn::kApiHash;

}  // namespace rgpu::gen
