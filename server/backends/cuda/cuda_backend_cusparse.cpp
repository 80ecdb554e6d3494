// CudaBackend: cuSPARSE, dlopen()ed by the session's first cuSPARSE call. Without the library every
// cuSPARSE call answers CUSPARSE_STATUS_NOT_SUPPORTED (the dispatch logs which, once).
#include "common/config.h"
#include "server/backends/cuda/cuda_backend.h"

namespace rgpu::server::cuda {
namespace {

const Tunable kCusparseLibrary{"RGPU_CUSPARSE_LIBRARY", "libcusparse.so.12:/usr/local/cuda/lib64/libcusparse.so.12",
                               "cuSPARSE 12 library the cuda backend loads on a session's first cuSPARSE call "
                               "(':'-separated candidates)"};

constexpr const char* kCusparseAdvice =
    "cuSPARSE calls need libcusparse.so.12 on the GPU host: install the CUDA 13 toolkit's cuSPARSE, or put the "
    "folder holding libcusparse.so.12 on LD_LIBRARY_PATH or name it in RGPU_CUSPARSE_LIBRARY.";

}  // namespace

void CudaBackend::load_cusparse() {
  load_on_demand(cusparse_, kCusparseLibrary, kCusparseAdvice, "cuSPARSE", gen::cusparse::load_api);
}

}  // namespace rgpu::server::cuda
