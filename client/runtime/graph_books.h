// What other files keep about graphs, told by graph.cpp of each graph's and executable graph's
// life: the kernel nodes' parameters (graph_nodes.cpp) and the user-object references graphs and
// executable graphs own (user_objects.cpp). graph.cpp calls each from the one place where that
// event happens.
#pragma once

#include <cuda_runtime_api.h>

namespace rgpu::client {

void forget_kernel_nodes(cudaGraph_t graph);

// CUDA's rules for user-object references: a clone, and a child graph node's embedded clone, copy
// the graph's; instantiation gives the executable graph its own copies; cudaGraphExecUpdate
// replaces them with the new graph's; a graph's are released when it is destroyed, an executable
// graph's once the work launched from it has completed.
void user_objects_graph_destroyed(cudaGraph_t graph);
void user_objects_graph_copied(cudaGraph_t to, cudaGraph_t from);
void user_objects_instantiated(cudaGraphExec_t exec, cudaGraph_t graph);
void user_objects_exec_updated(cudaGraphExec_t exec, cudaGraph_t graph);
void user_objects_launched(cudaGraphExec_t exec, cudaStream_t stream);
void user_objects_exec_destroyed(cudaGraphExec_t exec);

}  // namespace rgpu::client
