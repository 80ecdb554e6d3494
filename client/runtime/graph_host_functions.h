// The host functions behind client callbacks that graphs hold (graph_nodes.cpp keeps them), so that
// cudaGraphHostNodeGetParams can answer with the user's function and data: host nodes added by
// hand and host functions captured into graphs (callbacks.cpp) alike.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace rgpu::client {

void remember_host_function(uint64_t callback, cudaHostFn_t fn, void* user_data);

}  // namespace rgpu::client
