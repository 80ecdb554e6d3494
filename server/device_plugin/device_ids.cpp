// Device IDs (see device_ids.h).
#include "server/device_plugin/device_ids.h"

#include <charconv>
#include <cstdio>

namespace rgpu::device_plugin {

namespace {

// The IDs' middle word, and the width their unit numbers are padded to (only for reading ease:
// parsing takes any number of digits).
const char* kind_word(ResourceKind kind) { return kind == ResourceKind::kCore ? "core" : "mem"; }
int unit_width(ResourceKind kind) { return kind == ResourceKind::kCore ? 3 : 4; }

std::optional<uint32_t> parse_number(std::string_view text) {
  uint32_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

const char* resource_suffix(ResourceKind kind) {
  return kind == ResourceKind::kCore ? "vcuda-core" : "vcuda-memory";
}

std::string resource_name(std::string_view domain, ResourceKind kind) {
  return std::string(domain) + "/" + resource_suffix(kind);
}

std::string format_device_id(const DeviceId& id) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "gpu%d-%s-%0*u", id.gpu, kind_word(id.kind), unit_width(id.kind), id.unit);
  return buf;
}

std::optional<DeviceId> parse_device_id(std::string_view text) {
  if (!text.starts_with("gpu")) return std::nullopt;
  text.remove_prefix(3);
  size_t dash = text.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  auto gpu = parse_number(text.substr(0, dash));
  text.remove_prefix(dash + 1);
  dash = text.find('-');
  if (!gpu || dash == std::string_view::npos) return std::nullopt;
  DeviceId id;
  id.gpu = static_cast<int>(*gpu);
  const std::string_view word = text.substr(0, dash);
  if (word == kind_word(ResourceKind::kCore)) id.kind = ResourceKind::kCore;
  else if (word == kind_word(ResourceKind::kMemory)) id.kind = ResourceKind::kMemory;
  else return std::nullopt;
  auto unit = parse_number(text.substr(dash + 1));
  if (!unit) return std::nullopt;
  id.unit = *unit;
  return id;
}

uint32_t units_per_gpu(ResourceKind kind, const GpuInventory& gpu, uint64_t memory_unit_mib) {
  if (kind == ResourceKind::kCore) return kCoreUnitsPerGpu;
  return memory_unit_mib ? static_cast<uint32_t>((gpu.memory_bytes >> 20) / memory_unit_mib) : 0;
}

std::vector<std::string> device_ids(ResourceKind kind, const std::vector<GpuInventory>& gpus,
                                    uint64_t memory_unit_mib) {
  std::vector<std::string> out;
  for (const auto& gpu : gpus) {
    const uint32_t n = units_per_gpu(kind, gpu, memory_unit_mib);
    for (uint32_t unit = 0; unit < n; ++unit) out.push_back(format_device_id({gpu.index, kind, unit}));
  }
  return out;
}

}  // namespace rgpu::device_plugin
