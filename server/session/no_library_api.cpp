// The empty library tables a CallContext holds when it is made without a backend's (call_context.h).
// A file of its own: tests that make contexts link it without the rest of the session.
#include "gen/cublasLt/cublasLt_api.h"
#include "gen/cufft/cufft_api.h"
#include "gen/curand/curand_api.h"
#include "gen/cusolver/cusolver_api.h"
#include "gen/cusparse/cusparse_api.h"
#include "server/session/call_context.h"

namespace rgpu::server {

const gen::cublasLt::Api& no_cublasLt_api() {
  static const gen::cublasLt::Api empty{};
  return empty;
}

const gen::curand::Api& no_curand_api() {
  static const gen::curand::Api empty{};
  return empty;
}

const gen::cufft::Api& no_cufft_api() {
  static const gen::cufft::Api empty{};
  return empty;
}

const gen::cusparse::Api& no_cusparse_api() {
  static const gen::cusparse::Api empty{};
  return empty;
}

const gen::cusolver::Api& no_cusolver_api() {
  static const gen::cusolver::Api empty{};
  return empty;
}

}  // namespace rgpu::server
