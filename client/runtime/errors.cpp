// cudaGetLastError, cudaPeekAtLastError, cudaGetErrorName, cudaGetErrorString: answered locally.
// Errors of asynchronous calls reported by the server join the last error when they arrive, as
// CUDA's asynchronous errors do. Error texts come from the server's own runtime, once per code.
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>

#include "client/runtime/call.h"
#include "client/runtime/cudart_errors.h"
#include "client/runtime/logs.h"
#include "client/runtime/pipe.h"
#include "common/wire/internal_calls.h"

namespace rgpu::client {
namespace {

thread_local cudaError_t t_last_error = cudaSuccess;

struct ErrorText {
  std::string name;
  std::string text;
};

// Texts by code, fetched from the server on first use; the fallback when there is no session.
const ErrorText& error_text(cudaError_t code) {
  static std::mutex mu;
  static auto& cache = *new std::unordered_map<int, ErrorText>();  // leaked: asked from static destructors too
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(code);
  if (it != cache.end()) return it->second;
  ErrorText t;
  if (Pipe::get().available()) {
    Call call(wire::kCallErrorText, CallClass::kSync);
    call.args().put<int32_t>(code);
    if (call.invoke() == 0 && call.replied()) {
      t.name = std::string(call.results().get_string());
      t.text = std::string(call.results().get_string());
    }
  }
  if (t.name.empty()) {
    if (code == cudaSuccess) t = {"cudaSuccess", "no error"};
    else if (code == cudaErrorNoDevice) t = {"cudaErrorNoDevice", "no CUDA-capable device is detected"};
    else if (code == cudaErrorInitializationError) t = {"cudaErrorInitializationError", "initialization error"};
    else if (code == cudaErrorNotSupported) t = {"cudaErrorNotSupported", "operation not supported"};
    else if (code == cudaErrorDevicesUnavailable)
      t = {"cudaErrorDevicesUnavailable", "CUDA-capable device(s) is/are busy or unavailable"};
    else t = {"cudaErrorUnknown", "unrecognized error code"};
  }
  return cache.emplace(code, std::move(t)).first->second;
}

// Folds an error reported by an earlier asynchronous call into this thread's last error.
void absorb_async_error() {
  int32_t async = Pipe::get().take_async_error();
  if (async != 0 && t_last_error == cudaSuccess) t_last_error = static_cast<cudaError_t>(async);
}

}  // namespace

cudaError_t cudart_finish(cudaError_t status) {
  if (status == static_cast<cudaError_t>(kStatusUnavailable)) status = cudaErrorNoDevice;
  // No session ever: no device. A session lost (its server went away or stopped answering): the
  // devices are unavailable, as CUDA says of a GPU that is there but cannot be used.
  if (status == cudaErrorNoDevice && Pipe::get().lost()) status = cudaErrorDevicesUnavailable;
  // A fork() child of a process that used CUDA: CUDA's own answer there, said once.
  if (status == cudaErrorNoDevice && Pipe::get().forked_child()) {
    static std::once_flag said;
    std::call_once(said, [] {
      std::fprintf(stderr,
                   "rgpu: CUDA cannot be used in a child forked after its parent used CUDA (the session is the "
                   "parent's): start the child with exec, or multiprocessing's 'spawn' method\n");
    });
    status = cudaErrorInitializationError;
  }
  // cudaErrorNotReady (a query of unfinished work) is an answer, not an error: CUDA does not record it.
  if (status != cudaSuccess && status != cudaErrorNotReady) {
    t_last_error = status;
    deliver_error_logs();  // the error path only: registered log callbacks hear of it (logs.cpp)
  }
  return status;
}

}  // namespace rgpu::client

using rgpu::client::absorb_async_error;
using rgpu::client::t_last_error;

extern "C" cudaError_t cudaGetLastError(void) {
  absorb_async_error();
  cudaError_t e = t_last_error;
  t_last_error = cudaSuccess;
  return e;
}

extern "C" cudaError_t cudaPeekAtLastError(void) {
  absorb_async_error();
  return t_last_error;
}

extern "C" const char* cudaGetErrorName(cudaError_t error) { return rgpu::client::error_text(error).name.c_str(); }

extern "C" const char* cudaGetErrorString(cudaError_t error) { return rgpu::client::error_text(error).text.c_str(); }
