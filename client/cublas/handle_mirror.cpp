// The client's mirror of cuBLAS handle settings (handle_mirror.h).
#include "client/cublas/handle_mirror.h"

namespace rgpu::client::cublas {

Mirror& mirror() {
  // Never destroyed: stubs may run from other libraries' exit handlers.
  static Mirror* m = new Mirror({CUBLAS_STATUS_SUCCESS, CUBLAS_STATUS_NOT_INITIALIZED, CUBLAS_STATUS_INVALID_VALUE});
  return *m;
}

bool host_pointer_mode(cublasHandle_t handle) {
  return mirror().holds(handle, true, [](const HandleSettings& s) { return s.pointer_mode == CUBLAS_POINTER_MODE_HOST; });
}

}  // namespace rgpu::client::cublas
