// CudaBackend: cuBLASLt, dlopen()ed by the session's first cuBLASLt call. Without the library every
// cuBLASLt call answers CUBLAS_STATUS_NOT_SUPPORTED (the dispatch logs which, once).
#include "common/config.h"
#include "common/log.h"
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

void* resolve_symbol(const char* name, void* library) { return static_cast<const SharedLibrary*>(library)->symbol(name); }

}  // namespace

void CudaBackend::load_cublasLt() {
  std::call_once(cublasLt_once_, [this] {
    Result<SharedLibrary> library = SharedLibrary::open(split_candidates(kCublasLtLibrary.get()), kCublasLtAdvice);
    if (!library.is_ok()) {
      RGPU_LOG_ERROR("%s", library.status().to_string().c_str());
      return;
    }
    cublasLt_library_ = library.value();
    gen::cublasLt::load_api(cublasLt_, resolve_symbol, &cublasLt_library_);
    RGPU_LOG_DEBUG("cuBLASLt loaded from %s", cublasLt_library_.path().c_str());
  });
}

}  // namespace rgpu::server::cuda
