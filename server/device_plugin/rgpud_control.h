// What the plugin asks of rgpud's control API, behind an interface: the real client
// (rgpud_control_client.h) talks to rgpud; the tests use a fake.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "server/device_plugin/device_ids.h"

namespace rgpu::device_plugin {

// One container's slice, as a tenant of rgpud.
struct TenantSpec {
  std::string name;                 // <namespace>/<pod>/<container>
  std::vector<std::string> tokens;  // every token minted for the container's devices
  uint64_t memory_mib = 0;          // 0: no memory slice (the container asked only for cores)
  uint32_t compute = 0;             // percent guaranteed, and the cap; 0: no compute slice
  bool operator==(const TenantSpec&) const = default;
};

class RgpudControl {
 public:
  virtual ~RgpudControl() = default;
  // The GPUs rgpud serves. An error when rgpud cannot be reached or does not answer.
  virtual Result<std::vector<GpuInventory>> gpus() = 0;
  virtual Status add_tenant(const TenantSpec& tenant) = 0;
  // Removes the tenant; rgpud ends its running sessions.
  virtual Status remove_tenant(const std::string& name) = 0;
};

}  // namespace rgpu::device_plugin
