// cuSPARSE handles on the client: creation (a client-chosen id, sent without waiting), destruction,
// the stream and pointer-mode setters (mirrored, then sent without waiting) and their getters
// (answered from the mirror).
#include <cusparse.h>

#include <cstring>
#include <type_traits>

#include "client/cusparse/handle_mirror.h"
#include "gen/cusparse/cusparse_remote.h"

namespace remote = rgpu::gen::cusparse::remote;
using rgpu::client::cusparse::HandleSettings;
using rgpu::client::cusparse::mirror;

extern "C" {  // exported by the shim's version script

cusparseStatus_t cusparseCreate(cusparseHandle_t* handle) {
  if (!handle) return CUSPARSE_STATUS_INVALID_VALUE;
  cusparseStatus_t status = remote::cusparseCreate(handle);
  if (status == CUSPARSE_STATUS_SUCCESS) mirror().add(*handle);
  return status;
}

cusparseStatus_t cusparseDestroy(cusparseHandle_t handle) {
  if (!mirror().remove(handle)) return CUSPARSE_STATUS_NOT_INITIALIZED;
  return remote::cusparseDestroy(handle);
}

cusparseStatus_t cusparseSetStream(cusparseHandle_t handle, cudaStream_t streamId) {
  return mirror().set(handle, [&](HandleSettings& s) { s.stream = streamId; },
                      [&] { return remote::cusparseSetStream(handle, streamId); });
}

cusparseStatus_t cusparseGetStream(cusparseHandle_t handle, cudaStream_t* streamId) {
  return mirror().read(handle, streamId, [](const HandleSettings& s) { return s.stream; });
}

cusparseStatus_t cusparseSetPointerMode(cusparseHandle_t handle, cusparsePointerMode_t mode) {
  // Checked here: a mode the server refused later would leave the mirror saying otherwise. Read as its bits,
  // since a C caller may pass any int and loading an out-of-range enum is undefined behaviour in C++.
  std::underlying_type_t<cusparsePointerMode_t> bits;
  std::memcpy(&bits, &mode, sizeof bits);
  if (bits != CUSPARSE_POINTER_MODE_HOST && bits != CUSPARSE_POINTER_MODE_DEVICE) return CUSPARSE_STATUS_INVALID_VALUE;
  return mirror().set(handle, [&](HandleSettings& s) { s.pointer_mode = mode; },
                      [&] { return remote::cusparseSetPointerMode(handle, mode); });
}

cusparseStatus_t cusparseGetPointerMode(cusparseHandle_t handle, cusparsePointerMode_t* mode) {
  return mirror().read(handle, mode, [](const HandleSettings& s) { return s.pointer_mode; });
}

}  // extern "C"
