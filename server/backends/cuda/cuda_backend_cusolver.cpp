// CudaBackend: cuSOLVER, dlopen()ed by the session's first cuSOLVER call. Without the library every
// cuSOLVER call answers CUSOLVER_STATUS_NOT_SUPPORTED (the dispatch logs which, once).
//
// libcusolver.so.12 needs cuBLAS, cuBLASLt, cuSPARSE and nvJitLink: its DT_NEEDED entries name them
// and its RUNPATH ($ORIGIN) finds them beside it, so RTLD_LOCAL suffices (a cuBLAS the session
// loaded already is the same object, by its SONAME).
#include "common/config.h"
#include "server/backends/cuda/cuda_backend.h"

namespace rgpu::server::cuda {
namespace {

const Tunable kCusolverLibrary{"RGPU_CUSOLVER_LIBRARY", "libcusolver.so.12:/usr/local/cuda/lib64/libcusolver.so.12",
                               "cuSOLVER 12 library the cuda backend loads on a session's first cuSOLVER call "
                               "(':'-separated candidates)"};

constexpr const char* kCusolverAdvice =
    "cuSOLVER calls need libcusolver.so.12 on the GPU host, with the libcublas.so.13, libcublasLt.so.13, "
    "libcusparse.so.12 and libnvJitLink.so.13 it links: install the CUDA 13 toolkit's cuSOLVER, or put the folder "
    "holding them on LD_LIBRARY_PATH or name libcusolver.so.12 in RGPU_CUSOLVER_LIBRARY.";

}  // namespace

void CudaBackend::load_cusolver() {
  load_on_demand(cusolver_, kCusolverLibrary, kCusolverAdvice, "cuSOLVER", gen::cusolver::load_api);
}

}  // namespace rgpu::server::cuda
