// The CUDA Runtime's error bookkeeping on the client: every stub returns through cudart_finish,
// which records a failure as the calling thread's last error (cudaGetLastError semantics).
#pragma once

#include <cuda_runtime_api.h>

namespace rgpu::client {

cudaError_t cudart_finish(cudaError_t status);

}  // namespace rgpu::client
