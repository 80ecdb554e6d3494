// Client functions run in a stream's order, as cudaLaunchHostFunc's are (callbacks.cpp): for rgpu's
// own work that must wait for what was enqueued before it (user_objects.cpp releases an executable
// graph's references after its launched work).
#pragma once

#include <cuda_runtime_api.h>

#include <functional>

namespace rgpu::client {

// Runs `fn` once on the client when `stream` reaches this point. The status is the call's, not
// yet given to cudart_finish (the caller decides whether the program sees it).
cudaError_t run_in_stream_order(cudaStream_t stream, std::function<void()> fn);

}  // namespace rgpu::client
