// Handlers of rgpu's own protocol calls (common/wire/internal_calls.h), beside the generated and
// hand-written library handlers.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/wire/codec.h"
#include "server/session/call_context.h"

namespace rgpu::server::handlers {

// Runs an internal call; *known is false when `id` is not one (then it is a library call).
bool dispatch_internal(CallContext& ctx, uint32_t id, wire::Decoder& in, wire::Encoder& out, int32_t& status,
                       bool* known);

// kCallErrorText: the backend runtime's name and description of an error code.
bool error_text(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status);
// kCallDeviceSnapshot: properties and every attribute of a device.
bool device_snapshot(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status);
// kCallCaptureCopy and kCallMirrorRefresh (server/session/graph.cpp).
bool capture_copy(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status);
bool mirror_refresh(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status);
// Whether `node` is rgpu's relay (the host node after a captured D2H copy, graph.cpp): not the
// program's, so hidden from every query that lists nodes (graph_queries.cpp). Needs the backend to
// answer host node queries; without that every node shows.
bool is_mirror_relay(const CallContext& ctx, cudaGraphNode_t node);
// kCallModuleGlobal and kCallModuleUnload (server/session/module_calls.cpp).
bool module_global(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status);
bool module_unload(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status);
// kCallShareHost, kCallUnshareHost and kCallSharedCopy (server/session/shared_copy.cpp).
bool share_host(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status);
bool unshare_host(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status);
bool shared_copy(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status);
// kCallMapped* (server/session/mapped_memory.cpp).
bool mapped_expose(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status);
bool mapped_write(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status);
bool mapped_read(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status);
bool mapped_release(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status);
// kCallReuseBarrier (server/session/memory.cpp).
bool reuse_barrier(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status);
// kCallLogsRead (server/session/logs.cpp).
bool logs_read(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status);
// kCallStreamSignal (server/session/stream_signal.cpp).
bool stream_signal(CallContext& ctx, wire::Decoder& in, wire::Encoder& out, int32_t& status);

}  // namespace rgpu::server::handlers
