// CudaBackend: cuBLASLt, dlopen()ed by the session's first cuBLASLt call. Without the library every
// cuBLASLt call answers CUBLAS_STATUS_NOT_SUPPORTED (the dispatch logs which, once).
#include "common/config.h"
#include "server/backends/cuda/cuda_backend.h"

namespace rgpu::server::cuda {
namespace {

const Tunable kCublasLtLibrary{"RGPU_CUBLASLT_LIBRARY",
                               "libcublasLt.so.13:/usr/local/cuda/lib64/libcublasLt.so.13",
                               "cuBLASLt 13 library the cuda backend loads on a session's first cuBLASLt call "
                               "(':'-separated candidates)"};

constexpr const char* kCublasLtAdvice =
    "cuBLASLt calls need libcublasLt.so.13 on the GPU host: install the CUDA 13 toolkit's cuBLAS, or put the folder "
    "holding libcublasLt.so.13 on LD_LIBRARY_PATH or name it in RGPU_CUBLASLT_LIBRARY.";

}  // namespace

void CudaBackend::load_cublasLt() { load_on_demand(cublasLt_, kCublasLtLibrary, kCublasLtAdvice, "cuBLASLt", gen::cublasLt::load_api); }

}  // namespace rgpu::server::cuda
