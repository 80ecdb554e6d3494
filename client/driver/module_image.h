// A module image handed to the driver API (cuModuleLoadData, cuLibraryLoadData) as a bare
// pointer: how long it is, and which kernels it holds, read on the client so that the module's
// one upload round trip returns every kernel's parameter layout (cuModuleGetFunction is then local).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

namespace rgpu::client::driver {

struct GivenImage {
  std::vector<uint8_t> bytes;        // a copy: the caller may free its buffer after the load
  std::vector<std::string> kernels;  // device (mangled) names
};

// Reads a fatbin container, a fatbin wrapper (what nvcc registers), a cubin (ELF) or NUL-terminated
// PTX. Every read is bounded by the readable mapping that holds `image`. CUDA_ERROR_INVALID_IMAGE
// (CUDA_ERROR_INVALID_PTX for PTX) when the image cannot be read.
CUresult read_given_image(const void* image, GivenImage* out);

}  // namespace rgpu::client::driver
