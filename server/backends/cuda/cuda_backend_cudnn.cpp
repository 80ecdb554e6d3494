// CudaBackend: cuDNN, dlopen()ed by the session's first cuDNN call. Without the library every
// cuDNN call answers CUDNN_STATUS_NOT_SUPPORTED (the generated dispatch logs which, once).
#include "common/config.h"
#include "common/log.h"
#include "server/backends/cuda/cuda_backend.h"

namespace rgpu::server::cuda {
namespace {

const Tunable kCudnnLibrary{"RGPU_CUDNN_LIBRARY", "libcudnn.so.9:/usr/local/cuda/lib64/libcudnn.so.9",
                            "cuDNN 9 library the cuda backend loads on a session's first cuDNN call "
                            "(':'-separated candidates)"};

constexpr const char* kCudnnAdvice =
    "cuDNN calls need libcudnn.so.9 on the GPU host: install cuDNN 9 (PyTorch wheels carry it in "
    "site-packages/nvidia/cudnn/lib), or put the folder holding libcudnn.so.9 on LD_LIBRARY_PATH or name it in "
    "RGPU_CUDNN_LIBRARY.";

void* resolve_cudnn_symbol(const char* name, void* library) {
  return static_cast<const SharedLibrary*>(library)->symbol(name);
}

}  // namespace

void CudaBackend::load_cudnn() {
  std::call_once(cudnn_once_, [this] {
    Result<SharedLibrary> library = SharedLibrary::open(split_candidates(kCudnnLibrary.get()), kCudnnAdvice);
    if (!library.is_ok()) {
      RGPU_LOG_ERROR("%s", library.status().to_string().c_str());
      return;
    }
    cudnn_library_ = library.value();
    gen::cudnn::load_api(cudnn_, resolve_cudnn_symbol, &cudnn_library_);
    RGPU_LOG_DEBUG("cuDNN loaded from %s", cudnn_library_.path().c_str());
  });
}

}  // namespace rgpu::server::cuda
