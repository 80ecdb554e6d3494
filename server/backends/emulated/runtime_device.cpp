// Emulated CUDA Runtime: device selection, properties, limits and settings.
#include <cstdio>

#include "server/backends/emulated/runtime.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
namespace {

// Settings of the calling thread's current device; null when it is not a valid device.
DeviceSettings* current_settings() {
  RuntimeState& s = state();
  int device = current_device();
  return s.valid_device(device) ? &s.settings[static_cast<size_t>(device)] : nullptr;
}

// CUDA 13 on sm_90 no longer has the device runtime's synchronisation depth (seen on an H200).
bool valid_limit(cudaLimit limit) {
  return limit >= cudaLimitStackSize && limit <= cudaLimitPersistingL2CacheSize &&
         limit != cudaLimitDevRuntimeSyncDepth;
}

}  // namespace

cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return cudaErrorInvalidValue;
  *count = state().config.count;
  return *count > 0 ? cudaSuccess : cudaErrorNoDevice;
}

cudaError_t cudaSetDevice(int device) {
  if (!state().valid_device(device)) return state().config.count ? cudaErrorInvalidDevice : cudaErrorNoDevice;
  current_device() = device;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  if (!device) return cudaErrorInvalidValue;
  if (state().config.count == 0) return cudaErrorNoDevice;
  *device = current_device();
  return cudaSuccess;
}

cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags) {
  if (!state().valid_device(device)) return cudaErrorInvalidDevice;
  if (flags != 0 && flags != cudaInitDeviceFlagsAreValid) return cudaErrorInvalidValue;
  if (deviceFlags & ~static_cast<unsigned>(cudaDeviceMask)) return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  state().settings[static_cast<size_t>(device)].flags = deviceFlags;
  return cudaSuccess;
}

cudaError_t cudaDeviceReset(void) {
  if (!state().valid_device(current_device())) return cudaErrorInvalidDevice;
  state().reset_device(current_device());
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
  // Work is done when issued, so there is nothing to wait for but a kernel time. As on a GPU, a
  // device with a capture open on one of its streams cannot be synchronized: the capture is
  // invalidated (whatever the thread's capture mode), which the compute gate's drain must avoid.
  RuntimeState& st = state();
  const int device = current_device();
  if (!st.valid_device(device)) return cudaErrorInvalidDevice;
  {
    std::lock_guard lock(st.mu);
    cudaError_t result = cudaSuccess;
    for (auto& [handle, stream] : st.streams) {
      if (stream->device == device && stream->capture) {
        stream->capture->invalidated = true;
        result = cudaErrorStreamCaptureUnsupported;
      }
    }
    if (result != cudaSuccess) return result;
  }
  st.wait_idle(device);
  return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t* pValue, enum cudaLimit limit) {
  if (!pValue) return cudaErrorInvalidValue;
  if (!valid_limit(limit)) return cudaErrorUnsupportedLimit;
  std::lock_guard lock(state().mu);
  DeviceSettings* settings = current_settings();
  if (!settings) return cudaErrorInvalidDevice;
  *pValue = settings->limits[limit];
  return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) {
  if (!valid_limit(limit)) return cudaErrorUnsupportedLimit;
  if (limit == cudaLimitMaxL2FetchGranularity && value > 128) return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  DeviceSettings* settings = current_settings();
  if (!settings) return cudaErrorInvalidDevice;
  settings->limits[limit] = value;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache* pCacheConfig) {
  if (!pCacheConfig) return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  DeviceSettings* settings = current_settings();
  if (!settings) return cudaErrorInvalidDevice;
  *pCacheConfig = settings->cache_config;
  return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig) {
  if (cacheConfig < cudaFuncCachePreferNone || cacheConfig > cudaFuncCachePreferEqual) return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  DeviceSettings* settings = current_settings();
  if (!settings) return cudaErrorInvalidDevice;
  settings->cache_config = cacheConfig;
  return cudaSuccess;
}

cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  unsigned schedule = flags & cudaDeviceScheduleMask;
  if ((flags & ~static_cast<unsigned>(cudaDeviceMask)) || (schedule != cudaDeviceScheduleAuto &&
      schedule != cudaDeviceScheduleSpin && schedule != cudaDeviceScheduleYield &&
      schedule != cudaDeviceScheduleBlockingSync))
    return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  DeviceSettings* settings = current_settings();
  if (!settings) return cudaErrorInvalidDevice;
  settings->flags = flags;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  if (!flags) return cudaErrorInvalidValue;
  std::lock_guard lock(state().mu);
  DeviceSettings* settings = current_settings();
  if (!settings) return cudaErrorInvalidDevice;
  *flags = settings->flags | cudaDeviceMapHost;  // CUDA always reports mapped host memory as on
  return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  if (leastPriority) *leastPriority = kLeastStreamPriority;
  if (greatestPriority) *greatestPriority = kGreatestStreamPriority;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device) {
  if (!prop) return cudaErrorInvalidValue;
  if (!state().valid_device(device)) return cudaErrorInvalidDevice;
  device_properties(device, state().config.memory_bytes, prop);
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device) {
  if (!value) return cudaErrorInvalidValue;
  if (!state().valid_device(device)) return cudaErrorInvalidDevice;
  return device_attribute(attr, device, value);
}

cudaError_t cudaDeviceGetPCIBusId(char* pciBusId, int len, int device) {
  if (!pciBusId || len <= 0) return cudaErrorInvalidValue;
  if (!state().valid_device(device)) return cudaErrorInvalidDevice;
  int domain = 0, bus = 0, dev = 0;
  device_attribute(cudaDevAttrPciDomainId, device, &domain);
  device_attribute(cudaDevAttrPciBusId, device, &bus);
  device_attribute(cudaDevAttrPciDeviceId, device, &dev);
  std::snprintf(pciBusId, static_cast<size_t>(len), "%04X:%02X:%02X.0", domain, bus, dev);
  return cudaSuccess;
}

cudaError_t cudaDeviceGetByPCIBusId(int* device, const char* pciBusId) {
  if (!device || !pciBusId) return cudaErrorInvalidValue;
  unsigned domain = 0, bus = 0, dev = 0;
  // "domain:bus:device.function" or "bus:device.function", hexadecimal.
  if (std::sscanf(pciBusId, "%x:%x:%x", &domain, &bus, &dev) != 3) {
    domain = 0;
    if (std::sscanf(pciBusId, "%x:%x", &bus, &dev) != 2) return cudaErrorInvalidValue;
  }
  for (int d = 0; d < state().config.count; ++d) {
    int d_domain = 0, d_bus = 0, d_dev = 0;
    device_attribute(cudaDevAttrPciDomainId, d, &d_domain);
    device_attribute(cudaDevAttrPciBusId, d, &d_bus);
    device_attribute(cudaDevAttrPciDeviceId, d, &d_dev);
    if (static_cast<unsigned>(d_domain) == domain && static_cast<unsigned>(d_bus) == bus &&
        static_cast<unsigned>(d_dev) == dev) {
      *device = d;
      return cudaSuccess;
    }
  }
  return cudaErrorInvalidDevice;
}

cudaError_t cudaDeviceCanAccessPeer(int* canAccessPeer, int device, int peerDevice) {
  if (!canAccessPeer) return cudaErrorInvalidValue;
  if (!state().valid_device(device) || !state().valid_device(peerDevice)) return cudaErrorInvalidDevice;
  *canAccessPeer = device != peerDevice;  // all virtual devices share host memory
  return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags) {
  if (flags != 0) return cudaErrorInvalidValue;
  if (!state().valid_device(peerDevice) || peerDevice == current_device()) return cudaErrorInvalidDevice;
  std::lock_guard lock(state().mu);
  DeviceSettings* settings = current_settings();
  if (!settings) return cudaErrorInvalidDevice;
  uint64_t bit = uint64_t{1} << peerDevice;
  if (settings->peers & bit) return cudaErrorPeerAccessAlreadyEnabled;
  settings->peers |= bit;
  return cudaSuccess;
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice) {
  if (!state().valid_device(peerDevice)) return cudaErrorInvalidDevice;
  std::lock_guard lock(state().mu);
  DeviceSettings* settings = current_settings();
  if (!settings) return cudaErrorInvalidDevice;
  uint64_t bit = uint64_t{1} << peerDevice;
  if (!(settings->peers & bit)) return cudaErrorPeerAccessNotEnabled;
  settings->peers &= ~bit;
  return cudaSuccess;
}

cudaError_t cudaChooseDevice(int* device, const struct cudaDeviceProp* prop) {
  if (!device || !prop) return cudaErrorInvalidValue;
  if (state().config.count == 0) return cudaErrorNoDevice;
  *device = 0;  // the virtual devices are identical: the first matches as well as any
  return cudaSuccess;
}

cudaError_t cudaDeviceGetP2PAttribute(int* value, enum cudaDeviceP2PAttr attr, int srcDevice, int dstDevice) {
  if (!value) return cudaErrorInvalidValue;
  if (!state().valid_device(srcDevice) || !state().valid_device(dstDevice) || srcDevice == dstDevice)
    return cudaErrorInvalidDevice;
  switch (attr) {
    case cudaDevP2PAttrPerformanceRank: *value = 0; return cudaSuccess;
    case cudaDevP2PAttrAccessSupported: *value = 1; return cudaSuccess;
    case cudaDevP2PAttrNativeAtomicSupported: *value = 1; return cudaSuccess;
    case cudaDevP2PAttrCudaArrayAccessSupported: *value = 1; return cudaSuccess;
    case cudaDevP2PAttrOnlyPartialNativeAtomicSupported: *value = 0; return cudaSuccess;
  }
  return cudaErrorInvalidValue;
}

cudaError_t cudaDeviceGetTexture1DLinearMaxWidth(size_t* maxWidthInElements, const struct cudaChannelFormatDesc* fmtDesc,
                                                 int device) {
  if (!maxWidthInElements || !fmtDesc) return cudaErrorInvalidValue;
  if (!state().valid_device(device)) return cudaErrorInvalidDevice;
  int width = 0;
  device_attribute(cudaDevAttrMaxTexture1DLinearWidth, device, &width);
  *maxWidthInElements = static_cast<size_t>(width);
  return cudaSuccess;
}

cudaError_t cudaDeviceGraphMemTrim(int device) {
  return state().valid_device(device) ? cudaSuccess : cudaErrorInvalidDevice;  // graphs own no memory here
}

cudaError_t cudaCtxResetPersistingL2Cache(void) { return cudaSuccess; }  // there is no cache to reset

// No profiler is attached to a virtual device; starting and stopping are accepted as no-ops.
cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }

cudaError_t cudaDriverGetVersion(int* driverVersion) {
  if (!driverVersion) return cudaErrorInvalidValue;
  *driverVersion = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int* runtimeVersion) {
  if (!runtimeVersion) return cudaErrorInvalidValue;
  *runtimeVersion = CUDART_VERSION;
  return cudaSuccess;
}

}  // namespace rgpu::server::emulated
