// Valid argument payloads of the two cuBLASLt calls that carry descriptors, as the client sends
// them (client/cublaslt/lt_matmul.cpp): the dispatch fuzzers start from them, the dispatch test
// changes and cuts them.
#pragma once

#include <cstdint>
#include <vector>

namespace rgpu::fuzz {

// cublasLtMatmulAlgoGetHeuristic or cublasLtMatmul on the cuBLASLt handle id `handle`.
std::vector<uint8_t> cublaslt_valid_payload(uint32_t id, uint64_t handle);

}  // namespace rgpu::fuzz
