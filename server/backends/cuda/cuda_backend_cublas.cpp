// CudaBackend: cuBLAS, dlopen()ed by the session's first cuBLAS call. Without the library every
// cuBLAS call answers CUBLAS_STATUS_NOT_SUPPORTED (the generated dispatch logs which, once).
#include "common/config.h"
#include "common/log.h"
#include "server/backends/cuda/cuda_backend.h"

namespace rgpu::server::cuda {
namespace {

const Tunable kCublasLibrary{"RGPU_CUBLAS_LIBRARY", "libcublas.so.13:/usr/local/cuda/lib64/libcublas.so.13",
                             "cuBLAS 13 library the cuda backend loads on a session's first cuBLAS call "
                             "(':'-separated candidates)"};

constexpr const char* kCublasAdvice =
    "cuBLAS calls need libcublas.so.13 on the GPU host: install the CUDA 13 toolkit's cuBLAS, or put the folder "
    "holding libcublas.so.13 on LD_LIBRARY_PATH or name it in RGPU_CUBLAS_LIBRARY.";

void* resolve_cublas_symbol(const char* name, void* library) {
  return static_cast<const SharedLibrary*>(library)->symbol(name);
}

}  // namespace

void CudaBackend::load_cublas() {
  std::call_once(cublas_once_, [this] {
    Result<SharedLibrary> library = SharedLibrary::open(split_candidates(kCublasLibrary.get()), kCublasAdvice);
    if (!library.is_ok()) {
      RGPU_LOG_ERROR("%s", library.status().to_string().c_str());
      return;
    }
    cublas_library_ = library.value();
    gen::cublas::load_api(cublas_, resolve_cublas_symbol, &cublas_library_);
    RGPU_LOG_DEBUG("cuBLAS loaded from %s", cublas_library_.path().c_str());
  });
}

}  // namespace rgpu::server::cuda
