// The wire form of the hand-written copy calls (cudaMemcpy* family), shared by the client's
// memcpy.cpp and the server's memcpy.cpp. The direction is always resolved by the client
// (cudaMemcpyDefault becomes H2D, D2H or D2D from its memory map); H2H never leaves the client.
#pragma once

#include <cstdint>

namespace rgpu::wire {

// cudaMemcpy, cudaMemcpyAsync: H2D bytes travel as the call's bulk; D2H bytes come back as reply
// bulk (sync) or as a kData frame with the call's seq (async).
struct Copy1D {
  uint64_t dst;
  uint64_t src;
  uint64_t count;
  int32_t kind;    // cudaMemcpyKind, never Default or HostToHost
  int32_t device;  // for peer copies: the destination device (-1 otherwise)
  uint64_t stream; // client stream id
  int32_t src_device;  // for peer copies: the source device (-1 otherwise)
  uint32_t pad;
};

// A large cudaMemcpy or cudaMemcpyAsync split over the session's stripe connections (internal call
// kCallStripedCopy). The call travels on the pipe in order; its bytes travel as one kData frame per
// stripe (seq = transfer, payload = the u64 offset of its slice in the copy, bulk = the slice), H2D
// from the client right behind the call; D2H from the server once the copy's stream has reached it,
// announced by a StripedLanding on the pipe (none when the copy failed before any byte moved: a
// synchronous copy's reply says so, an async one's landing ends with an empty kData frame).
struct StripedCopy {
  Copy1D copy;
  uint64_t transfer;   // client-chosen, names the slices of this copy
  uint32_t stripes;    // how many stripes carry a slice
  uint32_t on_stream;  // 1: a cudaMemcpyAsync on copy.stream; 0: a cudaMemcpy (the legacy default stream)
};

// How many stripe connections a large copy is spread over unless RGPU_STRIPES says otherwise (the
// client's default; `rgpu bench` probes the raw stream over as many).
inline constexpr char kDefaultStripes[] = "12";

// The payload of the kData frame (seq = the kCallStripedCopy call's) that announces a striped D2H
// copy's slices: the client's receiver reads them off every stripe before it reads on, so whatever
// follows on the pipe (a synchronisation's reply) finds the bytes landed.
struct StripedLanding {
  uint64_t transfer;
  uint64_t count;
  uint32_t stripes;
  uint32_t pad;
};

// A cudaMemcpy / cudaMemcpyAsync between the device and host memory the client shares with its
// session (kCallShareHost): only where the bytes are travels; the server's copy engine moves them
// between the device and the client's own pages (its pinned memory, or a chunk of its staging ring
// for pageable memory: client/runtime/staged_copy.h).
struct SharedCopy {
  uint64_t device;      // the device address
  uint64_t shared;      // the shared allocation's id
  uint64_t offset;      // of the host range in the allocation
  uint64_t count;
  uint64_t stream;      // client stream id (async)
  int32_t kind;         // cudaMemcpyHostToDevice or cudaMemcpyDeviceToHost
  uint8_t async;        // 1: cudaMemcpyAsync on `stream`; 0: cudaMemcpy
  uint8_t per_thread;   // the _ptds / _ptsz variant (the per-thread default stream)
  uint8_t wait_stream;  // async: the reply waits for the stream (a staging chunk is free again after it)
  uint8_t pad;
};

// cudaMemcpy2D / 3D with pitched pointers or CUDA arrays, and cudaMemcpy3DPeer. Host data travels
// packed (rows of `width` bytes, `height` rows per slice, `depth` slices); device sides keep their
// own pitch and position. An array side has its client id in `*_array` (0: pitched memory, whose
// position is already in its address) and its position in elements in `*_pos`.
struct Copy3D {
  uint64_t dst;
  uint64_t dst_pitch;
  uint64_t dst_ysize;  // rows per slice of the destination allocation
  uint64_t src;
  uint64_t src_pitch;
  uint64_t src_ysize;
  uint64_t width;      // bytes per row
  uint64_t height;
  uint64_t depth;
  int32_t kind;
  int32_t is_3d;       // 0: cudaMemcpy2D (depth 1), 1: cudaMemcpy3D
  uint64_t stream;
  uint64_t dst_array;
  uint64_t src_array;
  uint64_t dst_pos[3];  // x (elements), y, z
  uint64_t src_pos[3];
  uint64_t elem;        // bytes per array element (width is a multiple of it); 1 without arrays
  int32_t dst_device;   // cudaMemcpy3DPeer: the devices (-1 otherwise)
  int32_t src_device;
};

}  // namespace rgpu::wire
