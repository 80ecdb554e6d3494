// The client side of every copy: resolves the direction, moves host bytes as bulk data, and
// chunks large copies. Also used by symbols.cpp (symbol copies are copies to a device address).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace rgpu::client {

// One linear copy. `async` selects cudaMemcpyAsync semantics on `stream`; `per_thread` maps the
// null stream to the per-thread default stream (the _ptds/_ptsz entry points).
cudaError_t copy_linear(void* dst, const void* src, size_t count, cudaMemcpyKind kind, bool async,
                        cudaStream_t stream, bool per_thread);

}  // namespace rgpu::client
