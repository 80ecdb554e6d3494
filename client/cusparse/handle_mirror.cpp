// The client's mirror of cuSPARSE handle settings (handle_mirror.h).
#include "client/cusparse/handle_mirror.h"

namespace rgpu::client::cusparse {

Mirror& mirror() {
  // Never destroyed: stubs may run from other libraries' exit handlers.
  static Mirror* m = new Mirror({CUSPARSE_STATUS_SUCCESS, CUSPARSE_STATUS_NOT_INITIALIZED, CUSPARSE_STATUS_INVALID_VALUE});
  return *m;
}

bool host_pointer_mode(cusparseHandle_t handle) {
  return mirror().holds(handle, true, [](const HandleSettings& s) { return s.pointer_mode == CUSPARSE_POINTER_MODE_HOST; });
}

}  // namespace rgpu::client::cusparse
