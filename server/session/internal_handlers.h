// Handlers of rgpu's own protocol calls (common/wire/internal_calls.h), beside the generated and
// hand-written library handlers.
#pragma once

#include <cstdint>

#include "common/wire/codec.h"
#include "server/session/call_context.h"

namespace rgpu::server::handlers {

// kCallErrorText: the backend runtime's name and description of an error code.
bool error_text(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status);

}  // namespace rgpu::server::handlers
