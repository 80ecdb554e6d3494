// cudnnSetCallback/GetCallback: kept in the calling process and read back. cuDNN calls the
// callback with its own log messages, which the server's cuDNN writes there: they are not relayed,
// so a callback set here is never called. Before any cudnnSetCallback, the getter answers mask 0,
// no data and no function.
#include <cudnn.h>

#include <mutex>

namespace {

struct Callback {
  std::mutex mu;
  unsigned mask = 0;
  void* udata = nullptr;
  cudnnCallback_t fptr = nullptr;
};

Callback& callback() {
  static Callback* c = new Callback;  // never destroyed: calls may come from exit handlers
  return *c;
}

}  // namespace

extern "C" {  // exported by the shim's version script

cudnnStatus_t cudnnSetCallback(unsigned mask, void* udata, cudnnCallback_t fptr) {
  std::lock_guard lock(callback().mu);
  callback().mask = mask;
  callback().udata = udata;
  callback().fptr = fptr;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetCallback(unsigned* mask, void** udata, cudnnCallback_t* fptr) {
  if (!mask || !udata || !fptr) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  std::lock_guard lock(callback().mu);
  *mask = callback().mask;
  *udata = callback().udata;
  *fptr = callback().fptr;
  return CUDNN_STATUS_SUCCESS;
}

}  // extern "C"
