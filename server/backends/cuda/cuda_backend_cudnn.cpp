// CudaBackend: cuDNN, dlopen()ed by the session's first cuDNN call. Without the library every
// cuDNN call answers CUDNN_STATUS_NOT_SUPPORTED (the generated dispatch logs which, once).
#include "common/config.h"
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

}  // namespace

void CudaBackend::load_cudnn() { load_on_demand(cudnn_, kCudnnLibrary, kCudnnAdvice, "cuDNN", gen::cudnn::load_api); }

}  // namespace rgpu::server::cuda
