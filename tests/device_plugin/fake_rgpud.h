// A stand-in for rgpud's control API: GPUs to report (each healthy or not, as rgpud's probe would
// say), a switch to make it unreachable, and the tenants added, refusing a name already there as
// rgpud does.
#pragma once

#include <map>
#include <mutex>

#include "server/device_plugin/rgpud_control.h"

namespace rgpu::device_plugin::testing {

class FakeRgpud final : public RgpudControl {
 public:
  explicit FakeRgpud(std::vector<GpuInventory> gpus) : gpus_(std::move(gpus)) {}

  void set_reachable(bool reachable) {
    std::lock_guard lock(mu_);
    reachable_ = reachable;
  }
  // The GPU of that index reported healthy or not from the next poll on.
  void set_gpu_healthy(int index, bool healthy) {
    std::lock_guard lock(mu_);
    for (auto& gpu : gpus_)
      if (gpu.index == index) gpu.healthy = healthy;
  }
  std::map<std::string, TenantSpec> tenants() const {
    std::lock_guard lock(mu_);
    return tenants_;
  }
  int adds() const {
    std::lock_guard lock(mu_);
    return adds_;
  }

  Result<std::vector<GpuInventory>> gpus() override {
    std::lock_guard lock(mu_);
    if (!reachable_) return RGPU_ERROR(kUnavailable, "fake rgpud stopped");
    return gpus_;
  }
  Status add_tenant(const TenantSpec& tenant) override {
    std::lock_guard lock(mu_);
    if (!reachable_) return RGPU_ERROR(kUnavailable, "fake rgpud stopped");
    if (tenants_.count(tenant.name)) return RGPU_ERROR(kInvalidArgument, "tenant " + tenant.name + " exists");
    tenants_[tenant.name] = tenant;
    ++adds_;
    return Status::ok();
  }
  Status remove_tenant(const std::string& name) override {
    std::lock_guard lock(mu_);
    if (!reachable_) return RGPU_ERROR(kUnavailable, "fake rgpud stopped");
    if (!tenants_.erase(name)) return RGPU_ERROR(kInvalidArgument, "no tenant " + name);
    return Status::ok();
  }

 private:
  mutable std::mutex mu_;
  std::vector<GpuInventory> gpus_;
  bool reachable_ = true;
  std::map<std::string, TenantSpec> tenants_;
  int adds_ = 0;
};

}  // namespace rgpu::device_plugin::testing
