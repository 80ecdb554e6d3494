// Device management answered on the client: device count and properties come from the session's
// welcome and a per-device cache, the current device is per thread (as in CUDA) and reaches the
// server lazily with the thread's next call.
#include "client/runtime/device.h"

#include <array>
#include <atomic>
#include <memory>
#include <mutex>

#include "client/runtime/call.h"
#include "client/runtime/cudart_errors.h"
#include "client/runtime/memory_map.h"
#include "client/runtime/modules.h"
#include "client/runtime/pipe.h"
#include "gen/cudart/cudart_remote.h"

namespace rgpu::client {
namespace {

thread_local int t_device = 0;

int device_count() {
  Pipe& pipe = Pipe::get();
  return pipe.available() ? static_cast<int>(pipe.welcome().devices.size()) : 0;
}

struct DeviceCache {
  std::once_flag props_once;
  cudaDeviceProp props{};
  bool props_ok = false;
  static constexpr int kMaxAttr = 256;
  std::array<std::atomic<int>, kMaxAttr> attrs{};
  std::array<std::atomic<bool>, kMaxAttr> known{};
};

DeviceCache* cache_for(int device) {
  static std::mutex mu;
  static std::vector<std::unique_ptr<DeviceCache>> caches;
  if (device < 0 || device >= device_count()) return nullptr;
  std::lock_guard<std::mutex> lock(mu);
  if (caches.size() < static_cast<size_t>(device_count())) caches.resize(static_cast<size_t>(device_count()));
  auto& c = caches[static_cast<size_t>(device)];
  if (!c) c = std::make_unique<DeviceCache>();
  return c.get();
}

}  // namespace

int current_device() { return t_device; }

const cudaDeviceProp* device_properties(int device) {
  DeviceCache* c = cache_for(device);
  if (!c) return nullptr;
  std::call_once(c->props_once, [&] { c->props_ok = gen::cudart::remote::cudaGetDeviceProperties(&c->props, device) == cudaSuccess; });
  return c->props_ok ? &c->props : nullptr;
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
  *device = rgpu::client::t_device;
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
  rgpu::client::DeviceCache* c = rgpu::client::cache_for(device);
  if (!c) return cudart_finish(cudaErrorInvalidDevice);
  int a = static_cast<int>(attr);
  bool cacheable = a >= 0 && a < rgpu::client::DeviceCache::kMaxAttr;
  if (cacheable && c->known[static_cast<size_t>(a)].load(std::memory_order_acquire)) {
    *value = c->attrs[static_cast<size_t>(a)].load(std::memory_order_relaxed);
    return cudaSuccess;
  }
  int v = 0;
  cudaError_t st = rgpu::gen::cudart::remote::cudaDeviceGetAttribute(&v, attr, device);
  if (st != cudaSuccess) return cudart_finish(st);
  *value = v;
  if (cacheable) {
    c->attrs[static_cast<size_t>(a)].store(v, std::memory_order_relaxed);
    c->known[static_cast<size_t>(a)].store(true, std::memory_order_release);
  }
  return cudaSuccess;
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
    rgpu::client::ModuleRegistry::get().forget_uploads();
  }
  return cudart_finish(st);
}
