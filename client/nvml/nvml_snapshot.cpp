// The NVML client's state: the init count and the snapshot (see nvml_snapshot.h).
#include "client/nvml/nvml_snapshot.h"

#include <cstring>
#include <mutex>

#include "client/runtime/call.h"
#include "gen/nvml/nvml_ids.h"

namespace rgpu::client::nvml {
namespace {

struct State {
  std::mutex mu;
  int inits = 0;
  bool fetched = false;
  Snapshot snapshot;
};

State& state() {
  static State* s = new State();  // leaked: NVML may be asked from static destructors
  return *s;
}

// One round trip: the server's system strings and every device's identity.
nvmlReturn_t fetch(Snapshot& out) {
  Call call(gen::nvml::k_nvmlInit_v2, CallClass::kSync);
  nvmlReturn_t status = call_status(call.invoke());
  if (status != NVML_SUCCESS) return status;
  if (!call.replied()) return NVML_ERROR_UNKNOWN;
  wire::Decoder& r = call.results();
  Snapshot s;
  r.get_raw(&s.system, sizeof s.system);
  if (!r.ok() || s.system.device_count > wire::kNvmlMaxDevices) return NVML_ERROR_UNKNOWN;
  s.system.driver_version[sizeof s.system.driver_version - 1] = '\0';
  s.system.nvml_version[sizeof s.system.nvml_version - 1] = '\0';
  for (uint32_t i = 0; i < s.system.device_count; ++i) {
    Device d{i, {}};
    r.get_raw(&d.record, sizeof d.record);
    d.record.name[sizeof d.record.name - 1] = '\0';
    d.record.uuid[sizeof d.record.uuid - 1] = '\0';
    d.record.pci.busId[sizeof d.record.pci.busId - 1] = '\0';
    d.record.pci.busIdLegacy[sizeof d.record.pci.busIdLegacy - 1] = '\0';
    s.devices.push_back(d);
  }
  if (!r.ok() || !r.at_end()) return NVML_ERROR_UNKNOWN;
  out = std::move(s);
  return NVML_SUCCESS;
}

}  // namespace

nvmlReturn_t init() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.fetched) {
    nvmlReturn_t status = fetch(s.snapshot);
    if (status != NVML_SUCCESS) return status;
    s.fetched = true;
  }
  ++s.inits;
  return NVML_SUCCESS;
}

nvmlReturn_t shutdown() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.inits == 0) return NVML_ERROR_UNINITIALIZED;
  --s.inits;
  return NVML_SUCCESS;
}

const Snapshot* snapshot() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.inits > 0 ? &s.snapshot : nullptr;
}

const Device* device(nvmlDevice_t handle) {
  const Snapshot* s = snapshot();
  if (!s) return nullptr;
  for (const Device& d : s->devices) {
    if (reinterpret_cast<const void*>(handle) == &d) return &d;
  }
  return nullptr;
}

nvmlReturn_t device_status(nvmlDevice_t handle) {
  if (!snapshot()) return NVML_ERROR_UNINITIALIZED;
  return device(handle) ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

nvmlReturn_t call_status(int32_t rc) {
  return rc == kStatusUnavailable ? NVML_ERROR_DRIVER_NOT_LOADED : static_cast<nvmlReturn_t>(rc);
}

nvmlReturn_t copy_string(const char* value, char* buffer, unsigned int length) {
  if (!buffer) return NVML_ERROR_INVALID_ARGUMENT;
  size_t n = std::strlen(value) + 1;
  if (length < n) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(buffer, value, n);
  return NVML_SUCCESS;
}

}  // namespace rgpu::client::nvml
