// The real RgpudControl: rgpud's control API over the control channel, as `rgpu pool` uses it
// (connect, handshake as Role::kControl with the admin token, PoolRequest -> PoolReply). Each
// call makes its own connection, so an rgpud restarted between calls is simply found again.
#pragma once

#include <string>

#include "server/device_plugin/rgpud_control.h"
#include "transports/control_channel.h"

namespace rgpu::device_plugin {

class RgpudControlClient final : public RgpudControl {
 public:
  RgpudControlClient(std::string address, std::string admin_token);
  Result<std::vector<GpuInventory>> gpus() override;
  Status add_tenant(const TenantSpec& tenant) override;
  Status remove_tenant(const std::string& name) override;

 private:
  // The reply's text when rgpud answered ok; its refusal (or the connection's failure) otherwise.
  Result<std::string> call(const transport::PoolRequestMsg& request);

  std::string address_;
  std::string admin_token_;
};

}  // namespace rgpu::device_plugin
