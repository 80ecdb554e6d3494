// The devices the plugin advertises and their IDs. Each GPU gives 100 `vcuda-core` devices (one
// percent of its compute each) and floor(memory / unit) `vcuda-memory` devices (one unit of
// memory each). An ID names its GPU, so that a container's units can be kept on one GPU and the
// kubelet's own records say where they are: `gpu0-core-042`, `gpu1-mem-0007`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rgpu::device_plugin {

enum class ResourceKind { kCore, kMemory };

inline constexpr uint32_t kCoreUnitsPerGpu = 100;

// A GPU as rgpud's pool view reports it.
struct GpuInventory {
  int index = 0;
  uint64_t memory_bytes = 0;
  bool healthy = true;  // false: rgpud's probe found the GPU lost or failing; its devices are Unhealthy
  bool operator==(const GpuInventory&) const = default;
};

struct DeviceId {
  int gpu = 0;
  ResourceKind kind = ResourceKind::kCore;
  uint32_t unit = 0;
};

// "vcuda-core" / "vcuda-memory": the resource name without its domain.
const char* resource_suffix(ResourceKind kind);
// "<domain>/vcuda-core" etc.
std::string resource_name(std::string_view domain, ResourceKind kind);

std::string format_device_id(const DeviceId& id);
// nullopt for anything that is not an ID this plugin makes.
std::optional<DeviceId> parse_device_id(std::string_view text);

// How many devices of `kind` one GPU gives.
uint32_t units_per_gpu(ResourceKind kind, const GpuInventory& gpu, uint64_t memory_unit_mib);

// Every device ID of `kind` over the GPUs, GPU by GPU, unit by unit.
std::vector<std::string> device_ids(ResourceKind kind, const std::vector<GpuInventory>& gpus,
                                    uint64_t memory_unit_mib);

}  // namespace rgpu::device_plugin
