// Routes a call id to the generated dispatch of its library (cuBLAS, NVML, cuDNN or the CUDA Runtime).
#pragma once

#include <cstdint>

#include "common/wire/codec.h"
#include "server/session/call_context.h"

namespace rgpu::server {

class Backend;

// As gen::<lib>::dispatch: false for malformed input (or an id no library knows).
bool dispatch_library(Backend& backend, CallContext& ctx, uint32_t id, wire::Decoder& in, wire::Encoder& out,
                      int32_t& status);

// Calls that make a library take device memory of its own (handle creation and its workspace).
bool allocates_inside_library(uint32_t id);

}  // namespace rgpu::server
