// The kernelParams array of a launch: one pointer per parameter into the client-packed argument
// buffer, at that parameter's offset in the layout load_module returned.
#pragma once

#include <driver_types.h>

#include <cstdint>
#include <span>
#include <vector>

#include "server/backends/backend.h"

namespace rgpu::server::cuda {

// Fills `pointers` (reusing its capacity) with &args[param.offset] for each parameter. Returns
// cudaErrorInvalidValue, and leaves `pointers` empty, when a parameter does not lie wholly inside
// `args`, so the driver never reads past the buffer. The pointers are non-const because
// cuLaunchKernelEx takes void**; the driver only reads through them.
cudaError_t build_kernel_params(std::span<const KernelParam> layout, std::span<const uint8_t> args,
                                std::vector<void*>& pointers);

}  // namespace rgpu::server::cuda
