// Kernel attributes between the runtime's and the driver's vocabulary: cudaFuncAttributes filled
// from cuFuncGetAttribute values, and cudaFuncAttribute mapped to CUfunction_attribute.
#pragma once

#include <cuda.h>
#include <driver_types.h>

#include <functional>
#include <optional>

namespace rgpu::server::cuda {

// Reads one attribute of one kernel (cuFuncGetAttribute bound to the function).
using AttributeReader = std::function<CUresult(CUfunction_attribute, int*)>;

// Fills every field of `out` through `read`. The first failure of a field every GPU has is
// returned; the cluster fields (Hopper and later) read as 0 where the driver does not answer.
CUresult fill_function_attributes(const AttributeReader& read, cudaFuncAttributes* out);

// The driver attribute that cudaFuncSetAttribute's `attribute` sets, or nothing when the
// runtime has no such settable attribute (the caller answers cudaErrorInvalidValue).
std::optional<CUfunction_attribute> settable_function_attribute(int attribute);

}  // namespace rgpu::server::cuda
