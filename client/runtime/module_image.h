// A module image handed over as a bare pointer (cudaLibraryLoadData, the driver API's
// cuModuleLoadData and cuLibraryLoadData): how long it is, and which kernels it holds, read on the
// client so that the module's one upload round trip returns every kernel's parameter layout
// (looking a kernel up by name is then local).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

namespace rgpu::client {

struct GivenImage {
  std::vector<uint8_t> bytes;        // a copy: the caller may free its buffer after the load
  std::vector<std::string> kernels;  // device (mangled) names
};

// Reads a fatbin container, a fatbin wrapper (what nvcc registers), a cubin (ELF) or NUL-terminated
// PTX. Every read is bounded by the readable mapping that holds `image`. cudaErrorInvalidKernelImage
// (cudaErrorInvalidPtx for PTX) when the image cannot be read.
cudaError_t read_given_image(const void* image, GivenImage* out);

}  // namespace rgpu::client
