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
  // Everything the client caches about a device, in one round trip at its first query. in: i32
  // device; out: cudaDeviceProp (raw bytes), u32 n, then n pairs of i32 attribute, i32 value for
  // every attribute below kDeviceAttributeLimit the device answers.
  kCallDeviceSnapshot = 0x52470004,
  // A cudaMemcpy whose bytes travel over the stripe connections (StripedCopy in copy_args.h):
  // posted for H2D, waited for (the reply follows the last slice) for D2H.
  kCallStripedCopy = 0x52470005,
  // The driver API's modules (client/driver): a module-scope variable by name (sync; in: u64 module
  // id, string name; out: u64 address, u64 size), and the unload of a module (async; in: u64 id).
  kCallModuleGlobal = 0x52470006,
  kCallModuleUnload = 0x52470007,
  // Pinned host memory shared with the session (a Unix-socket client on the server's host; see
  // copy_args.h SharedCopy). kCallShareHost (sync; in: u64 allocation id, u64 size, u64 the client's
  // address of it; out: u64 the GPU's address of it) comes with the memory's descriptor (a sealed
  // memfd) on the connection: the server maps it (at the client's address when that is free there)
  // and pins it for the device.
  // kCallUnshareHost (sync; in: u64 id) unpins and unmaps it once the device's work before it is
  // done. kCallSharedCopy (SharedCopy): a copy between the device and such memory, posted when
  // asynchronous, waited for when not.
  kCallShareHost = 0x52470008,
  kCallUnshareHost = 0x52470009,
  kCallSharedCopy = 0x5247000a,
  // Mapped host memory (client/runtime/mapped_memory.h, server/session/mapped_mirrors.h): the
  // server's device-mapped mirror of a client's pinned range. Expose (sync; in: u64 wanted address,
  // the client's page-aligned base, u64 size; out: u64 address the GPU uses, the wanted one when it
  // was free on the server); write (async; in: u64 address, u32 n, n pairs of u64 offset and u64
  // length; as bulk the bytes each run replaces, then the runs' new bytes); read
  // (sync; in: u32 n, n triples of u64 address, u64 offset and u64 length, at most
  // kMaxMappedReadRanges; out: the ranges' bytes one after the other as reply bulk: one read-back
  // is one frame each way, however many allocations are exposed); release (async; in: u64 address).
  kCallMappedExpose = 0x52470010,
  kCallMappedWrite = 0x52470011,
  kCallMappedRead = 0x52470012,
  kCallMappedRelease = 0x52470013,
  // The session's copy of the driver's error log (cudaLogs*, client/runtime/logs.cpp,
  // server/session/logs.cpp); sync. in: u32 n, n strings (the client's own entries, appended first),
  // u8 LogsRead mode, u32 iterator (kLogsSince only); out: u32 iterator of the log's end, u32 entries
  // since the iterator that the log no longer holds, u32 n, n strings (the entries, oldest first).
  kCallLogsRead = 0x52470014,
  // A kept cudaFree block handed back by a cudaMalloc (client/runtime/freed_blocks.h), async, no
  // arguments: the session thread waits for the device, as the block's cudaFree would have, before
  // any later call can put work on the block.
  kCallReuseBarrier = 0x52470015,
  // A stream or event synchronisation (or a small synchronous D2H copy's) answered through shared
  // memory (client/runtime/stream_signals.h), async. in: u64 id, u8 SignalWaited (what the id
  // names), u64 shared allocation id (kCallShareHost), u64 offset of a 4-byte-aligned word in it,
  // u32 value (1..kSignalNever-1). The server puts a write of the value into that word behind the
  // waited-for work (on the stream, behind the work queued there so far; for an event, on a stream
  // of the session's own that waits for the event), so the client learns that the work is done from
  // the word alone; where a wait has more to learn than that (an asynchronous error told since the
  // last signal, a capturing stream) it writes value | kSignalAsk at once instead, and the client
  // asks with the synchronising call; where every wait of the session will (device printf output, a
  // compute gate), value | kSignalAsk | kSignalNever, and the client sends no more signals.
  kCallStreamSignal = 0x52470016,
};

enum SignalWaited : uint8_t {
  kSignalStream = 0,           // the work queued so far on a stream
  kSignalPerThreadStream = 1,  // likewise, a per-thread call's: its stream 0 is the thread's default stream
  kSignalEvent = 2,            // the work an event stands for
};

inline constexpr uint32_t kSignalAsk = 0x80000000u;
inline constexpr uint32_t kSignalNever = 0x40000000u;

inline constexpr uint32_t kMaxMappedReadRanges = 256;

enum LogsRead : uint8_t {
  kLogsEnd = 0,    // only where the log ends (cudaLogsCurrent): no entries
  kLogsSince = 1,  // the entries from the iterator on
  kLogsAll = 2,    // every entry the log holds (a null iterator)
};

// A name for messages, or nullptr for an id that is not one of these.
inline const char* internal_call_name(uint32_t id) {
  switch (id) {
    case kCallErrorText: return "rgpu's error-text query";
    case kCallCaptureCopy: return "rgpu's captured copy";
    case kCallMirrorRefresh: return "rgpu's graph mirror refresh";
    case kCallDeviceSnapshot: return "rgpu's device snapshot";
    case kCallStripedCopy: return "rgpu's striped copy";
    case kCallModuleGlobal: return "rgpu's module variable lookup";
    case kCallModuleUnload: return "rgpu's module unload";
    case kCallShareHost: return "rgpu's shared host memory";
    case kCallUnshareHost: return "rgpu's release of shared host memory";
    case kCallSharedCopy: return "rgpu's copy through shared memory";
    case kCallMappedExpose: return "rgpu's mapped-memory exposure";
    case kCallMappedWrite: return "rgpu's mapped-memory write";
    case kCallMappedRead: return "rgpu's mapped-memory read";
    case kCallMappedRelease: return "rgpu's mapped-memory release";
    case kCallLogsRead: return "rgpu's error log read";
    case kCallReuseBarrier: return "rgpu's barrier before a freed block's reuse";
    case kCallStreamSignal: return "rgpu's stream signal";
  }
  return nullptr;
}

// Attributes are numbered densely from 1; CUDA 13 has fewer than 160.
inline constexpr int32_t kDeviceAttributeLimit = 256;

// ModuleLoaded.status when the client sent only the image's key and the server's cache has no
// such image: the client sends the load again with the image.
inline constexpr int32_t kModuleImageNeeded = -1;

}  // namespace rgpu::wire
