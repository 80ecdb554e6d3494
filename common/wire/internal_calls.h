// Call ids of rgpu's own protocol calls, beside the generated library call ids (FNV-1a hashes of
// function names). The server's dispatch checks these first.
#pragma once

#include <cstdint>

namespace rgpu::wire {

enum InternalCall : uint32_t {
  // in: i32 error code; out: name string, description string (the server's library's own text).
  kCallErrorText = 0x52470001,
  // A host<->device copy issued on a capturing stream (async, CaptureCopy + H2D bytes as bulk):
  // the server captures it against a pinned mirror buffer of its own (common/wire/graph_args.h).
  kCallCaptureCopy = 0x52470002,
  // Before a graph launch: new contents for an H2D mirror (async, MirrorRefresh + bytes as bulk),
  // written in stream order ahead of the launch.
  kCallMirrorRefresh = 0x52470003,
};

// ModuleLoaded.status when the client sent only the image's key and the server's cache has no
// such image: the client sends the load again with the image.
inline constexpr int32_t kModuleImageNeeded = -1;

}  // namespace rgpu::wire
