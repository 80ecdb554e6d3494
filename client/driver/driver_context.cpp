// Primary contexts: a CUcontext is a client-side token per device (no traffic). The calling
// thread's current context is the primary context of the runtime's current device, as CUDA
// binds them: cuCtxSetCurrent(primary of d) is cudaSetDevice(d). Only primary contexts exist.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdio>

#include "client/driver/driver_errors.h"
#include "client/runtime/device.h"
#include "client/runtime/pipe.h"
#include "common/fixed_stack.h"

// The token behind a CUcontext (cuda.h leaves the struct undefined).
struct CUctx_st {
  int device;
};

namespace {

constexpr int kMaxDevices = 64;  // Pipe::device_used's bound

struct PrimaryContexts {
  CUctx_st ctx[kMaxDevices];
  std::atomic<int> retains[kMaxDevices] = {};
  std::atomic<unsigned> flags[kMaxDevices] = {};
  PrimaryContexts() {
    for (int d = 0; d < kMaxDevices; ++d) ctx[d].device = d;
  }
};

PrimaryContexts& primaries() {
  static PrimaryContexts* p = new PrimaryContexts();  // lives as long as any thread may call
  return *p;
}

int device_count() {
  rgpu::client::Pipe& pipe = rgpu::client::Pipe::get();
  return pipe.available() ? static_cast<int>(pipe.welcome().devices.size()) : 0;
}

bool valid_device(CUdevice d) { return d >= 0 && d < device_count() && d < kMaxDevices; }

// The device of a context handed out here, or -1.
int context_device(CUcontext c) {
  PrimaryContexts& p = primaries();
  if (c < p.ctx || c >= p.ctx + kMaxDevices || !valid_device(c->device)) return -1;
  return c->device;
}

// Active: retained through the driver API, or in use by the runtime (a call ran there).
bool active(int d) { return primaries().retains[d].load() > 0 || rgpu::client::Pipe::get().device_used(d); }

// Contexts this thread pushed over (cuCtxPushCurrent), newest last; null entries stand for "none".
// In place (FixedStack): a library's static destructor may push and pop at exit.
constexpr size_t kMaxPushed = 64;
thread_local rgpu::FixedStack<CUcontext, kMaxPushed> t_pushed;

// What decides this thread's current context: the runtime (its device's primary context once that
// is active, as after any runtime call), the driver API (a context made current: the runtime's
// device's), or nothing (cuCtxSetCurrent(NULL)).
enum class Binding { kRuntime, kBound, kNone };
thread_local Binding t_binding = Binding::kRuntime;

CUcontext current() {
  int d = rgpu::client::current_device();
  if (!valid_device(d) || t_binding == Binding::kNone || (t_binding == Binding::kRuntime && !active(d))) return nullptr;
  return &primaries().ctx[d];
}

// `c` current; null: `none` says whether that means no context, or the runtime's again.
void make_current(CUcontext c, bool none) {
  t_binding = c ? Binding::kBound : none ? Binding::kNone : Binding::kRuntime;
  if (c) cudaSetDevice(c->device);
}

}  // namespace

extern "C" CUresult cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev)) return device_count() ? CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_NO_DEVICE;
  primaries().retains[dev].fetch_add(1);
  *pctx = &primaries().ctx[dev];
  return CUDA_SUCCESS;
}

extern "C" CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  std::atomic<int>& n = primaries().retains[dev];
  int was = n.load();
  while (was > 0 && !n.compare_exchange_weak(was, was - 1)) {
  }
  return was > 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

extern "C" CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int* flags, int* active) {
  if (!flags || !active) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev)) return device_count() ? CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_NO_DEVICE;
  *flags = primaries().flags[dev].load();
  *active = ::active(dev) ? 1 : 0;
  return CUDA_SUCCESS;
}

// The flags are kept and reported; the server's context keeps its own scheduling policy (how a
// host thread waits is the client's business here, and the client always waits on its socket).
extern "C" CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags) {
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  primaries().flags[dev].store(flags);
  return CUDA_SUCCESS;
}

extern "C" CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) {
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  int was = rgpu::client::current_device();
  cudaSetDevice(dev);
  cudaError_t st = cudaDeviceReset();
  cudaSetDevice(was);
  primaries().retains[dev].store(0);
  return rgpu::client::driver::to_cu(st);
}

extern "C" CUresult cuCtxGetCurrent(CUcontext* pctx) {
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  *pctx = current();
  return CUDA_SUCCESS;
}

extern "C" CUresult cuCtxSetCurrent(CUcontext ctx) {
  if (ctx && context_device(ctx) < 0) return CUDA_ERROR_INVALID_CONTEXT;
  make_current(ctx, true);
  return CUDA_SUCCESS;
}

extern "C" CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
  if (context_device(ctx) < 0) return CUDA_ERROR_INVALID_CONTEXT;
  if (!t_pushed.push(current())) {
    std::fprintf(stderr, "rgpu: cuCtxPushCurrent past %zu contexts pushed in one thread is refused (CUDA_ERROR_OUT_OF_MEMORY)\n",
                 kMaxPushed);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  make_current(ctx, false);
  return CUDA_SUCCESS;
}

extern "C" CUresult cuCtxPopCurrent_v2(CUcontext* pctx) {
  CUcontext top = current();
  if (!top && t_pushed.empty()) return CUDA_ERROR_INVALID_CONTEXT;
  if (pctx) *pctx = top;
  CUcontext below = nullptr;
  (void)t_pushed.pop(&below);  // none pushed: null, the runtime's context
  make_current(below, false);  // popping the last pushed context leaves the runtime's, as before
  return CUDA_SUCCESS;
}

extern "C" CUresult cuCtxGetDevice(CUdevice* device) {
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  CUcontext c = current();
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  *device = c->device;
  return CUDA_SUCCESS;
}

extern "C" CUresult cuCtxGetFlags(unsigned int* flags) {
  if (!flags) return CUDA_ERROR_INVALID_VALUE;
  CUcontext c = current();
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  *flags = primaries().flags[c->device].load();
  return CUDA_SUCCESS;
}

extern "C" CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int* version) {
  if (!version) return CUDA_ERROR_INVALID_VALUE;
  if (!ctx) ctx = current();
  if (context_device(ctx) < 0) return CUDA_ERROR_INVALID_CONTEXT;
  *version = 3020;  // what the driver reports for a context of the v2 API (every CUDA >= 3.2)
  return CUDA_SUCCESS;
}

extern "C" CUresult cuCtxSynchronize(void) {
  if (!current()) return CUDA_ERROR_INVALID_CONTEXT;
  return rgpu::client::driver::to_cu(cudaDeviceSynchronize());
}
