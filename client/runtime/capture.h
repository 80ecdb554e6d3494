// Stream capture on the client: which streams are capturing, and the host<->device copies
// captured into graphs, which travel through server-side mirrors (common/wire/graph_args.h).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace rgpu::client {

// Whether this process is capturing `stream` into a graph.
bool stream_capturing(cudaStream_t stream);
// Whether it is capturing any stream.
bool capture_under_way();

// An async H2D or D2H copy issued on a capturing stream: captured against a server mirror.
cudaError_t capture_host_copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream);

}  // namespace rgpu::client
