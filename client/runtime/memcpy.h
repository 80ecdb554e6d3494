// The client side of every copy: resolves the direction, moves host bytes as bulk data, and
// chunks large copies. Also used by symbols.cpp (symbol copies are copies to a device address).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace rgpu::client {

// One linear copy. `async` selects cudaMemcpyAsync semantics on `stream`; `per_thread` maps the
// null stream to the per-thread default stream (the _ptds/_ptsz entry points).
cudaError_t copy_linear(void* dst, const void* src, size_t count, cudaMemcpyKind kind, bool async,
                        cudaStream_t stream, bool per_thread);

// A copy to (`to`) or from a __device__/__constant__ variable: its device address at `offset` once
// `count` bytes are checked to fit, and the direction (cudaMemcpyDefault taken as from or to host
// memory; only that and device-to-device are valid). In symbols.cpp.
cudaError_t symbol_copy(const void* symbol, size_t count, size_t offset, bool to, cudaMemcpyKind* kind,
                        uintptr_t* address);

}  // namespace rgpu::client
