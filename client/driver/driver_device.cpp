// Device queries, answered from the runtime's device snapshot (client/runtime/device.*): the
// properties and attributes of a device cost one round trip for the life of the process.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>

#include "client/driver/driver_errors.h"
#include "client/runtime/device.h"
#include "client/runtime/pipe.h"

namespace {

int device_count() {
  rgpu::client::Pipe& pipe = rgpu::client::Pipe::get();
  return pipe.available() ? static_cast<int>(pipe.welcome().devices.size()) : 0;
}

// The device's properties, or null (and *err) for a device that does not exist.
const cudaDeviceProp* props(CUdevice dev, CUresult* err) {
  if (device_count() == 0) {
    *err = CUDA_ERROR_NO_DEVICE;
    return nullptr;
  }
  const cudaDeviceProp* p = dev >= 0 && dev < device_count() ? rgpu::client::device_properties(dev) : nullptr;
  if (!p) *err = CUDA_ERROR_INVALID_DEVICE;
  return p;
}

// A query answered from the device's properties: invalid unless `out_ok` (the caller's output is
// usable), then the device's error, else `answer` writes the output from its properties.
template <typename F>
CUresult from_props(bool out_ok, CUdevice dev, F answer) {
  if (!out_ok) return CUDA_ERROR_INVALID_VALUE;
  CUresult err = CUDA_SUCCESS;
  const cudaDeviceProp* p = props(dev, &err);
  if (!p) return err;
  answer(*p);
  return CUDA_SUCCESS;
}

}  // namespace

extern "C" CUresult cuDeviceGetCount(int* count) {
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  *count = device_count();
  return CUDA_SUCCESS;
}

extern "C" CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  if (device_count() == 0) return CUDA_ERROR_NO_DEVICE;
  if (ordinal < 0 || ordinal >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

extern "C" CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
  return from_props(name && len > 0, dev,
                    [&](const cudaDeviceProp& p) { std::snprintf(name, static_cast<size_t>(len), "%s", p.name); });
}

// CUdevice_attribute and cudaDeviceAttr number the attributes alike.
extern "C" CUresult cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice dev) {
  if (!pi) return CUDA_ERROR_INVALID_VALUE;
  CUresult err = CUDA_SUCCESS;
  if (!props(dev, &err)) return err;
  return rgpu::client::driver::to_cu(cudaDeviceGetAttribute(pi, static_cast<cudaDeviceAttr>(attrib), dev));
}

extern "C" CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev) {
  return from_props(bytes != nullptr, dev, [&](const cudaDeviceProp& p) { *bytes = p.totalGlobalMem; });
}

extern "C" CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice dev) {
  static_assert(sizeof(CUuuid) == sizeof(cudaDeviceProp::uuid));
  return from_props(uuid != nullptr, dev, [&](const cudaDeviceProp& p) { std::memcpy(uuid, &p.uuid, sizeof(CUuuid)); });
}

// CUDA 11.4 replaced it by _v2 (same signature; the older one is documented to mask MIG UUIDs,
// which a remote GPU never exposes as such). cuda.h maps the name to _v2; the export is the old one.
#undef cuDeviceGetUuid
extern "C" CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice dev) { return cuDeviceGetUuid_v2(uuid, dev); }

extern "C" CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice dev) {
  return from_props(major && minor, dev, [&](const cudaDeviceProp& p) {
    *major = p.major;
    *minor = p.minor;
  });
}

extern "C" CUresult cuDeviceGetPCIBusId(char* pciBusId, int len, CUdevice dev) {
  return from_props(pciBusId && len > 0, dev, [&](const cudaDeviceProp& p) {
    std::snprintf(pciBusId, static_cast<size_t>(len), "%04x:%02x:%02x.0", p.pciDomainID, p.pciBusID, p.pciDeviceID);
  });
}
