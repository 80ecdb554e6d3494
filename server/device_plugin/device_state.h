// What ListAndWatch streams: the GPUs rgpud last reported (with each one's health) and whether
// rgpud answers, with a version that changes whenever any of it does, so that every open stream
// sends the new list.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "deviceplugin_v1beta1.pb.h"
#include "server/device_plugin/device_ids.h"

namespace rgpu::device_plugin {

inline constexpr const char* kHealthy = "Healthy";
inline constexpr const char* kUnhealthy = "Unhealthy";

class DeviceState {
 public:
  explicit DeviceState(uint64_t memory_unit_mib) : memory_unit_mib_(memory_unit_mib) {}

  // rgpud answered with these GPUs: the devices of a healthy GPU Healthy, of an unhealthy one
  // Unhealthy.
  void set_gpus(const std::vector<GpuInventory>& gpus);
  // rgpud did not answer: the devices of the GPUs last seen are all Unhealthy.
  void set_unreachable();

  struct Snapshot {
    uint64_t version = 0;
    v1beta1::ListAndWatchResponse devices;
  };
  // The devices of `kind` once the version differs from `seen` (at once for a new stream, which
  // passes nullopt); nullopt when `timeout` passes first.
  std::optional<Snapshot> wait_newer(ResourceKind kind, std::optional<uint64_t> seen,
                                     std::chrono::milliseconds timeout);

 private:
  void update(const std::vector<GpuInventory>& gpus, bool reachable);

  const uint64_t memory_unit_mib_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::vector<GpuInventory> gpus_;
  bool reachable_ = false;
  uint64_t version_ = 0;
};

}  // namespace rgpu::device_plugin
