// The client's mirrors of cuSOLVER handle settings (handle_mirror.h).
#include "client/cusolver/handle_mirror.h"

namespace rgpu::client::cusolver {
namespace {

// Never destroyed: stubs may run from other libraries' exit handlers.
template <typename Handle>
Mirror<Handle>& make_mirror() {
  static Mirror<Handle>* m = new Mirror<Handle>(
      {CUSOLVER_STATUS_SUCCESS, CUSOLVER_STATUS_NOT_INITIALIZED, CUSOLVER_STATUS_INVALID_VALUE});
  return *m;
}

}  // namespace

Mirror<cusolverDnHandle_t>& dense_mirror() { return make_mirror<cusolverDnHandle_t>(); }
Mirror<cusolverSpHandle_t>& sparse_mirror() { return make_mirror<cusolverSpHandle_t>(); }

}  // namespace rgpu::client::cusolver
