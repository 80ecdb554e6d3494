// The API hash client and server compare at hello: every forwarded library's generated kApiHash
// combined, so that a change to any library's marshalling makes the peers incompatible.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "gen/cublas/cublas_ids.h"
#include "gen/cublasLt/cublasLt_ids.h"
#include "gen/cuda/cuda_ids.h"
#include "gen/cudart/cudart_ids.h"
#include "gen/cudnn/cudnn_ids.h"
#include "gen/cufft/cufft_ids.h"
#include "gen/curand/curand_ids.h"
#include "gen/cusolver/cusolver_ids.h"
#include "gen/cusparse/cusparse_ids.h"
#include "gen/nvml/nvml_ids.h"

namespace rgpu::gen {

// Folded in a fixed order (FNV-1a style), so that no two libraries' hashes can cancel out.
constexpr uint64_t fold_api_hashes(std::initializer_list<uint64_t> hashes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint64_t x : hashes) h = (h ^ x) * 0x100000001b3ull;
  return h;
}

inline constexpr uint64_t kApiHash =
    fold_api_hashes({cudart::kApiHash, cublas::kApiHash, nvml::kApiHash, cublasLt::kApiHash, cuda::kApiHash,
                     cudnn::kApiHash, curand::kApiHash, cufft::kApiHash, cusparse::kApiHash,
                     cusolver::kApiHash});

}  // namespace rgpu::gen
