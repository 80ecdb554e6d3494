// The bulk path of linear host<->device copies: from kStreamedCopyFrom bytes, H2D data is read from
// the connection piece by piece into a staging ring and copied to the device while the next piece
// arrives; a synchronous D2H copy is copied off the device piece by piece and each piece is sent
// while the device copies the next. A striped H2D copy (kCallStripedCopy) does the same on every
// stripe connection at once, one slice each; a striped D2H copy, like every async D2H copy, leaves
// through async_landings.h. Smaller copies take the plain path in memcpy.cpp.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <span>

#include "common/status.h"
#include "common/wire/codec.h"
#include "common/wire/copy_args.h"
#include "common/wire/frame.h"
#include "server/session/call_context.h"
#include "transports/transport.h"

namespace rgpu::server {

inline constexpr uint64_t kStreamedCopyFrom = 1u << 20;

// Whether a call's bulk data is left for its handler to read (large linear H2D copies).
bool streams_bulk(uint32_t method, uint64_t bulk_len);

// Sends a frame whose bulk is produced piece by piece: `next_piece` is called until it has given
// the header's bulk_len bytes. The caller serialises senders.
Status send_pieces(transport::Connection& conn, const wire::FrameHeader& h, std::span<const uint8_t> payload,
                   const std::function<std::span<const uint8_t>()>& next_piece);

namespace handlers {

// Both set `status` (the call's CUDA status) and return false only for malformed arguments.
bool streamed_h2d(CallContext& ctx, const wire::Copy1D& a, cudaStream_t stream, int32_t& status);
bool streamed_d2h(CallContext& ctx, const wire::Copy1D& a, cudaStream_t stream, int32_t& status);  // synchronous
// kCallStripedCopy.
bool striped_copy(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status);

}  // namespace handlers
}  // namespace rgpu::server
