// CudaBackend: cuBLAS, dlopen()ed by the session's first cuBLAS call. Without the library every
// cuBLAS call answers CUBLAS_STATUS_NOT_SUPPORTED (the generated dispatch logs which, once).
#include "common/config.h"
#include "server/backends/cuda/cuda_backend.h"

namespace rgpu::server::cuda {
namespace {

const Tunable kCublasLibrary{"RGPU_CUBLAS_LIBRARY", "libcublas.so.13:/usr/local/cuda/lib64/libcublas.so.13",
                             "cuBLAS 13 library the cuda backend loads on a session's first cuBLAS call "
                             "(':'-separated candidates)"};

constexpr const char* kCublasAdvice =
    "cuBLAS calls need libcublas.so.13 on the GPU host: install the CUDA 13 toolkit's cuBLAS, or put the folder "
    "holding libcublas.so.13 on LD_LIBRARY_PATH or name it in RGPU_CUBLAS_LIBRARY.";

}  // namespace

void CudaBackend::load_cublas() { load_on_demand(cublas_, kCublasLibrary, kCublasAdvice, "cuBLAS", gen::cublas::load_api); }

}  // namespace rgpu::server::cuda
