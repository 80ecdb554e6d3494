// The control API requests the plugin sends rgpud, and the reading of its pool view: pure
// functions, so that the exact words sent are tested without a daemon.
//   tenant add NAME token=T1 token=T2 memory=MiB compute=PCT compute_limit=PCT
//   tenant remove NAME
//   pool (json): {"gpus":[{"index":0,"name":..,"memory_total_bytes":..,"healthy":true},..],..}
#pragma once

#include <string_view>
#include <vector>

#include "common/status.h"
#include "server/device_plugin/rgpud_control.h"
#include "transports/control_channel.h"

namespace rgpu::device_plugin {

// A memory-only tenant is sent compute=0 and no compute_limit (rgpud's default cap: 100).
transport::PoolRequestMsg tenant_add_request(const TenantSpec& tenant);
transport::PoolRequestMsg tenant_remove_request(const std::string& name);
transport::PoolRequestMsg pool_view_request();

// The GPUs in rgpud's pool view JSON (a GPU without "healthy", from an older rgpud, is healthy);
// an error naming what is wrong with it.
Result<std::vector<GpuInventory>> parse_pool_view(std::string_view json);

}  // namespace rgpu::device_plugin
