// CudaBackend: cuRAND, dlopen()ed by the session's first cuRAND call. Without the library every
// cuRAND call answers CURAND_STATUS_INTERNAL_ERROR (the dispatch logs which, once).
#include "common/config.h"
#include "server/backends/cuda/cuda_backend.h"

namespace rgpu::server::cuda {
namespace {

const Tunable kCurandLibrary{"RGPU_CURAND_LIBRARY", "libcurand.so.10:/usr/local/cuda/lib64/libcurand.so.10",
                             "cuRAND 10 library the cuda backend loads on a session's first cuRAND call "
                             "(':'-separated candidates)"};

constexpr const char* kCurandAdvice =
    "cuRAND calls need libcurand.so.10 on the GPU host: install the CUDA 13 toolkit's cuRAND, or put the folder "
    "holding libcurand.so.10 on LD_LIBRARY_PATH or name it in RGPU_CURAND_LIBRARY.";

}  // namespace

void CudaBackend::load_curand() { load_on_demand(curand_, kCurandLibrary, kCurandAdvice, "cuRAND", gen::curand::load_api); }

}  // namespace rgpu::server::cuda
