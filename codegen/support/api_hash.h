// The API hash client and server compare at hello: every forwarded library's generated kApiHash
// combined, so that a change to any library's marshalling makes the peers incompatible.
#pragma once

#include <cstdint>

#include "gen/cublas/cublas_ids.h"
#include "gen/cudart/cudart_ids.h"

namespace rgpu::gen {

inline constexpr uint64_t kApiHash = cudart::kApiHash ^ (cublas::kApiHash * 0x100000001b3ull);

}  // namespace rgpu::gen
