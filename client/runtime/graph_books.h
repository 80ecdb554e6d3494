// What other files keep about graphs, told by graph.cpp of each graph's and executable graph's
// life: the kernel nodes' parameters (graph_nodes.cpp). graph.cpp calls each from the one place
// where that event happens.
#pragma once

#include <cuda_runtime_api.h>

namespace rgpu::client {

void forget_kernel_nodes(cudaGraph_t graph);

}  // namespace rgpu::client
