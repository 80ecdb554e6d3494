// CudaBackend: cuFFT, dlopen()ed by the session's first cuFFT call. Without the library every
// cuFFT call answers CUFFT_NOT_SUPPORTED (the dispatch logs which, once).
#include "common/config.h"
#include "server/backends/cuda/cuda_backend.h"

namespace rgpu::server::cuda {
namespace {

const Tunable kCufftLibrary{"RGPU_CUFFT_LIBRARY", "libcufft.so.12:/usr/local/cuda/lib64/libcufft.so.12",
                            "cuFFT 12 library the cuda backend loads on a session's first cuFFT call "
                            "(':'-separated candidates)"};

constexpr const char* kCufftAdvice =
    "cuFFT calls need libcufft.so.12 on the GPU host: install the CUDA 13 toolkit's cuFFT, or put the folder "
    "holding libcufft.so.12 on LD_LIBRARY_PATH or name it in RGPU_CUFFT_LIBRARY.";

}  // namespace

void CudaBackend::load_cufft() { load_on_demand(cufft_, kCufftLibrary, kCufftAdvice, "cuFFT", gen::cufft::load_api); }

}  // namespace rgpu::server::cuda
