// The fatbins and host images that nvcc builds from tests/fixtures/fatbin, and what the tests
// expect of them (from the build flags and the kernels' C++ signatures).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/fatbin/fatbin.h"

namespace rgpu::fatbin::testing {

// Path of a file that the build made (e.g. "default.fatbin", "rdc.so").
std::string fixture_path(const std::string& name);
// The file's bytes, read once and kept for the whole run (containers parsed from them hold spans).
const std::vector<uint8_t>& load_fixture(const std::string& name);

// (offset, size) of each parameter, in order.
using Layout = std::vector<std::pair<uint32_t, uint32_t>>;
Layout layout_of(const KernelParams& kernel);
std::map<std::string, Layout> layouts_by_name(const std::vector<KernelParams>& kernels);

// Every kernel of kernels.cu with its layout under the x86-64 / CUDA ABI.
const std::map<std::string, Layout>& expected_kernels_cu_layouts();

}  // namespace rgpu::fatbin::testing
