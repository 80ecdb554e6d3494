// Streams of the driver API are the runtime's: what a driver call's stream means to the runtime.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

namespace rgpu::client::driver {

// A _ptsz/_ptds entry point's null stream is the calling thread's default stream.
inline cudaStream_t runtime_stream(CUstream s, bool per_thread) {
  return per_thread && s == nullptr ? cudaStreamPerThread : s;
}

}  // namespace rgpu::client::driver
