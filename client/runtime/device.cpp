// Device management answered on the client: device count and properties come from the session's
// welcome and a per-device cache, the current device is per thread (as in CUDA) and reaches the
// server lazily with the thread's next call.
#include "client/runtime/device.h"

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "client/runtime/arrays.h"
#include "client/runtime/call.h"
#include "client/runtime/cudart_errors.h"
#include "client/runtime/freed_blocks.h"
#include "client/runtime/memory_map.h"
#include "client/runtime/modules.h"
#include "client/runtime/pipe.h"
#include "common/wire/internal_calls.h"
#include "gen/cudart/cudart_remote.h"

namespace rgpu::client {
namespace {

// A thread's current device: the one it set, else the first of cudaSetValidDevices' list (device 0
// without one), as CUDA picks a device for a thread that set none.
thread_local int t_device = -1;  // -1: this thread set none
std::atomic<int> g_first_valid_device{0};

}  // namespace

int device_count() {
  Pipe& pipe = Pipe::get();
  return pipe.available() ? static_cast<int>(pipe.welcome().devices.size()) : 0;
}

namespace {

// What the client knows of a device: its properties and every attribute, fetched together at the
// first query (one round trip per device for the life of the process).
struct DeviceCache {
  std::once_flag once;
  bool ok = false;
  cudaDeviceProp props{};
  std::array<int, wire::kDeviceAttributeLimit> attrs{};
  std::array<bool, wire::kDeviceAttributeLimit> known{};
};

void fetch(DeviceCache& c, int device) {
  Call call(wire::kCallDeviceSnapshot, CallClass::kSync);
  call.args().put<int32_t>(device);
  if (call.invoke() != 0 || !call.replied()) return;
  wire::Decoder& r = call.results();
  r.get_raw(&c.props, sizeof c.props);
  uint32_t n = r.get<uint32_t>();
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    int32_t a = r.get<int32_t>();
    int32_t v = r.get<int32_t>();
    if (a <= 0 || a >= wire::kDeviceAttributeLimit) break;
    c.attrs[static_cast<size_t>(a)] = v;
    c.known[static_cast<size_t>(a)] = true;
  }
  c.ok = r.ok();
}

// The device's cache, filled on first use; null for a device that does not exist or answered nothing.
const DeviceCache* device_cache(int device) {
  static std::mutex mu;
  // Leaked, as the pipe is: a static destructor of the program may still launch (it reads these).
  static auto& caches = *new std::vector<std::unique_ptr<DeviceCache>>();
  if (device < 0 || device >= device_count()) return nullptr;
  DeviceCache* c;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (caches.size() < static_cast<size_t>(device_count())) caches.resize(static_cast<size_t>(device_count()));
    auto& slot = caches[static_cast<size_t>(device)];
    if (!slot) slot = std::make_unique<DeviceCache>();
    c = slot.get();
  }
  std::call_once(c->once, [&] { fetch(*c, device); });
  return c->ok ? c : nullptr;
}

}  // namespace

int current_device() { return t_device >= 0 ? t_device : g_first_valid_device.load(std::memory_order_relaxed); }

const cudaDeviceProp* device_properties(int device) {
  const DeviceCache* c = device_cache(device);
  return c ? &c->props : nullptr;
}

}  // namespace rgpu::client

using rgpu::client::cudart_finish;

extern "C" cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return cudart_finish(cudaErrorInvalidValue);
  *count = rgpu::client::device_count();
  return cudart_finish(*count > 0 ? cudaSuccess : cudaErrorNoDevice);
}

extern "C" cudaError_t cudaGetDevice(int* device) {
  if (!device) return cudart_finish(cudaErrorInvalidValue);
  *device = rgpu::client::current_device();
  return cudaSuccess;
}

// The devices a thread that sets none may use, in order of preference: every device here works, so
// such a thread uses the first. An empty list restores the default (device 0).
extern "C" cudaError_t cudaSetValidDevices(int* device_arr, int len) {
  if (len < 0 || (len > 0 && !device_arr)) return cudart_finish(cudaErrorInvalidValue);
  int n = rgpu::client::device_count();
  if (n == 0) return cudart_finish(cudaErrorNoDevice);
  for (int i = 0; i < len; ++i) {
    if (device_arr[i] < 0 || device_arr[i] >= n) return cudart_finish(cudaErrorInvalidDevice);
    for (int j = 0; j < i; ++j)
      if (device_arr[j] == device_arr[i]) return cudart_finish(cudaErrorInvalidValue);
  }
  rgpu::client::g_first_valid_device.store(len > 0 ? device_arr[0] : 0, std::memory_order_relaxed);
  return cudaSuccess;
}

extern "C" cudaError_t cudaSetDevice(int device) {
  int n = rgpu::client::device_count();
  if (n == 0) return cudart_finish(cudaErrorNoDevice);
  if (device < 0 || device >= n) return cudart_finish(cudaErrorInvalidDevice);
  rgpu::client::t_device = device;
  return cudaSuccess;
}

extern "C" cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags) {
  int n = rgpu::client::device_count();
  if (n == 0) return cudart_finish(cudaErrorNoDevice);
  if (device < 0 || device >= n) return cudart_finish(cudaErrorInvalidDevice);
  return cudart_finish(rgpu::gen::cudart::remote::cudaInitDevice(device, deviceFlags, flags));
}

extern "C" cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (!prop) return cudart_finish(cudaErrorInvalidValue);
  if (rgpu::client::device_count() == 0) return cudart_finish(cudaErrorNoDevice);
  const cudaDeviceProp* p = rgpu::client::device_properties(device);
  if (!p) return cudart_finish(cudaErrorInvalidDevice);
  *prop = *p;
  return cudaSuccess;
}

extern "C" cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (!value) return cudart_finish(cudaErrorInvalidValue);
  if (rgpu::client::device_count() == 0) return cudart_finish(cudaErrorNoDevice);
  if (device < 0 || device >= rgpu::client::device_count()) return cudart_finish(cudaErrorInvalidDevice);
  const rgpu::client::DeviceCache* c = rgpu::client::device_cache(device);
  int a = static_cast<int>(attr);
  if (c && a > 0 && a < rgpu::wire::kDeviceAttributeLimit && c->known[static_cast<size_t>(a)]) {
    *value = c->attrs[static_cast<size_t>(a)];
    return cudaSuccess;
  }
  // An attribute the device did not answer in its snapshot: the server's runtime says why.
  return cudart_finish(rgpu::gen::cudart::remote::cudaDeviceGetAttribute(value, attr, device));
}

extern "C" cudaError_t cudaRuntimeGetVersion(int* runtimeVersion) {
  if (!runtimeVersion) return cudart_finish(cudaErrorInvalidValue);
  *runtimeVersion = CUDART_VERSION;  // the runtime API this shim implements
  return cudaSuccess;
}

extern "C" cudaError_t cudaDriverGetVersion(int* driverVersion) {
  if (!driverVersion) return cudart_finish(cudaErrorInvalidValue);
  static int cached = -1;
  if (cached < 0) {
    int v = 0;
    if (!rgpu::client::Pipe::get().available() || rgpu::gen::cudart::remote::cudaDriverGetVersion(&v) != cudaSuccess) {
      *driverVersion = 0;  // CUDA's answer when no driver is installed
      return cudaSuccess;
    }
    cached = v;
  }
  *driverVersion = cached;
  return cudaSuccess;
}

extern "C" cudaError_t cudaDeviceReset(void) {
  cudaError_t st = rgpu::gen::cudart::remote::cudaDeviceReset();
  if (st == cudaSuccess) {
    // The reset destroyed the device's allocations and modules on the server.
    rgpu::client::MemoryMap::get().remove_device_all(rgpu::client::current_device());
    rgpu::client::forget_freed(rgpu::client::current_device());
    rgpu::client::ModuleRegistry::get().forget_uploads();
    rgpu::client::forget_arrays(rgpu::client::current_device());
  }
  return cudart_finish(st);
}
