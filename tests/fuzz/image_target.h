// Module images a client uploads (cuModuleLoadData, a fatbin registration): a fatbin container, a
// cubin or PTX text, through every reader rgpud has for them: the CUDA backend's bounds checks
// before cuModuleLoadData, the emulated backend's reading of kernels, shared memory and variables,
// and the fatbin reader's container walk, decompression, architecture selection and parameter
// layouts.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace rgpu::fuzz {

// Empty when every reader answered with a clean error or a consistent result.
std::string image_violation(std::span<const uint8_t> image);

}  // namespace rgpu::fuzz
