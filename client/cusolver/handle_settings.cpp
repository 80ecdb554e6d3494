// cuSOLVER dense and sparse handles on the client: creation (a client-chosen id, sent without
// waiting), destruction, the stream setter (mirrored, then sent without waiting) and its getter
// (answered from the mirror). The two families behave alike, so each export is one line over the
// templates below.
#include <cusolverDn.h>
#include <cusolverSp.h>

#include "client/cusolver/handle_mirror.h"
#include "gen/cusolver/cusolver_remote.h"

namespace remote = rgpu::gen::cusolver::remote;
using rgpu::client::cusolver::dense_mirror;
using rgpu::client::cusolver::HandleSettings;
using rgpu::client::cusolver::Mirror;
using rgpu::client::cusolver::sparse_mirror;

namespace {

template <typename Handle, typename Create>
cusolverStatus_t create(Mirror<Handle>& mirror, Handle* handle, Create forward) {
  if (!handle) return CUSOLVER_STATUS_INVALID_VALUE;
  const cusolverStatus_t status = forward(handle);
  if (status == CUSOLVER_STATUS_SUCCESS) mirror.add(*handle);
  return status;
}

template <typename Handle, typename Destroy>
cusolverStatus_t destroy(Mirror<Handle>& mirror, Handle handle, Destroy forward) {
  if (!mirror.remove(handle)) return CUSOLVER_STATUS_NOT_INITIALIZED;
  return forward(handle);
}

template <typename Handle, typename SetStream>
cusolverStatus_t set_stream(Mirror<Handle>& mirror, Handle handle, cudaStream_t stream, SetStream forward) {
  return mirror.set(handle, [&](HandleSettings& s) { s.stream = stream; }, [&] { return forward(handle, stream); });
}

template <typename Handle>
cusolverStatus_t get_stream(const Mirror<Handle>& mirror, Handle handle, cudaStream_t* stream) {
  return mirror.read(handle, stream, [](const HandleSettings& s) { return s.stream; });
}

}  // namespace

extern "C" {  // exported by the shim's version script

cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t* handle) {
  return create(dense_mirror(), handle, remote::cusolverDnCreate);
}
cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t handle) {
  return destroy(dense_mirror(), handle, remote::cusolverDnDestroy);
}
cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t handle, cudaStream_t streamId) {
  return set_stream(dense_mirror(), handle, streamId, remote::cusolverDnSetStream);
}
cusolverStatus_t cusolverDnGetStream(cusolverDnHandle_t handle, cudaStream_t* streamId) {
  return get_stream(dense_mirror(), handle, streamId);
}

cusolverStatus_t cusolverSpCreate(cusolverSpHandle_t* handle) {
  return create(sparse_mirror(), handle, remote::cusolverSpCreate);
}
cusolverStatus_t cusolverSpDestroy(cusolverSpHandle_t handle) {
  return destroy(sparse_mirror(), handle, remote::cusolverSpDestroy);
}
cusolverStatus_t cusolverSpSetStream(cusolverSpHandle_t handle, cudaStream_t streamId) {
  return set_stream(sparse_mirror(), handle, streamId, remote::cusolverSpSetStream);
}
cusolverStatus_t cusolverSpGetStream(cusolverSpHandle_t handle, cudaStream_t* streamId) {
  return get_stream(sparse_mirror(), handle, streamId);
}

}  // extern "C"
