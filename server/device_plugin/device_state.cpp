// The devices ListAndWatch streams (see device_state.h).
#include "server/device_plugin/device_state.h"

namespace rgpu::device_plugin {

void DeviceState::set_gpus(const std::vector<GpuInventory>& gpus) { update(gpus, true); }

void DeviceState::set_unreachable() {
  std::vector<GpuInventory> last;
  {
    std::lock_guard lock(mu_);
    last = gpus_;
  }
  update(last, false);
}

void DeviceState::update(const std::vector<GpuInventory>& gpus, bool reachable) {
  std::lock_guard lock(mu_);
  // GpuInventory's == includes its health, so one GPU turning unhealthy or healthy again is a change.
  if (gpus == gpus_ && reachable == reachable_ && version_ != 0) return;
  gpus_ = gpus;
  reachable_ = reachable;
  ++version_;
  changed_.notify_all();
}

std::optional<DeviceState::Snapshot> DeviceState::wait_newer(ResourceKind kind, std::optional<uint64_t> seen,
                                                             std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  const bool newer = changed_.wait_for(lock, timeout, [&] { return !seen || version_ != *seen; });
  if (!newer) return std::nullopt;
  Snapshot out;
  out.version = version_;
  for (const auto& gpu : gpus_) {
    const char* health = reachable_ && gpu.healthy ? kHealthy : kUnhealthy;
    for (const auto& id : device_ids(kind, {gpu}, memory_unit_mib_)) {
      auto* device = out.devices.add_devices();
      device->set_id(id);
      device->set_health(health);
    }
  }
  return out;
}

}  // namespace rgpu::device_plugin
