// The client side of every copy: resolves the direction, moves host bytes as bulk data, and
// chunks large copies. Also used by symbols.cpp (symbol copies are copies to a device address).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "client/runtime/host_rows.h"
#include "common/wire/copy_args.h"

namespace rgpu::client {

// One linear copy. `async` selects cudaMemcpyAsync semantics on `stream`; `per_thread` maps the
// null stream to the per-thread default stream (the _ptds/_ptsz entry points).
cudaError_t copy_linear(void* dst, const void* src, size_t count, cudaMemcpyKind kind, bool async,
                        cudaStream_t stream, bool per_thread);

// The devices of a cudaMemcpy3DPeer (-1: not a peer copy).
struct PeerDevices {
  int dst = -1;
  int src = -1;
};

// A 2D or 3D copy's parameters checked as cudaMemcpy3D checks them (extent and array x positions
// in elements when an array takes part) and put in their wire form, the direction resolved (never
// cudaMemcpyDefault); the stream, is_3d and peer devices are the caller's to fill. The rows of
// each side that is memory come with it.
struct PitchedCopy {
  wire::Copy3D args{};
  HostRows dst;
  HostRows src;
};
cudaError_t describe_pitched(const cudaMemcpy3DParms& p, PitchedCopy* out);

// One 2D or 3D copy between pitched memory and CUDA arrays (client ids), as cudaMemcpy3D reads
// its parameters (extent and array x positions in elements when an array takes part), sent as
// call `id`: also array_copy.cpp's legacy array copies and cudaMemcpy3DPeer.
cudaError_t copy_pitched(const cudaMemcpy3DParms& p, bool is_3d, bool async, cudaStream_t stream, bool per_thread,
                         uint32_t id, const PeerDevices& peer);
// As cudaMemcpy3D / cudaMemcpy3DAsync (and their per-thread variants) do it.
cudaError_t copy_3d_parms(const cudaMemcpy3DParms& p, bool async, cudaStream_t stream, bool per_thread);

// A copy to (`to`) or from a __device__/__constant__ variable: its device address at `offset` once
// `count` bytes are checked to fit, and the direction (cudaMemcpyDefault taken as from or to host
// memory; only that and device-to-device are valid). In symbols.cpp.
cudaError_t symbol_copy(const void* symbol, size_t count, size_t offset, bool to, cudaMemcpyKind* kind,
                        uintptr_t* address);

}  // namespace rgpu::client
