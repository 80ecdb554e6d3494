// The host function that runs a client's callback at each launch of a graph (callbacks.cpp):
// captured host functions and host nodes added by hand (graph_nodes.cpp) both hold it, with a
// Session::HostCallback (Session::keep_host_callback) as its data.
#pragma once

#include <cuda_runtime_api.h>

namespace rgpu::server::handlers {

void CUDART_CB run_each_launch(void* data);

}  // namespace rgpu::server::handlers
