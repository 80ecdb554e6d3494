// Requests to rgpud's control API and its pool view (see rgpud_requests.h).
#include "server/device_plugin/rgpud_requests.h"

#include <google/protobuf/util/json_util.h>

#include "pool_view.pb.h"

namespace rgpu::device_plugin {

transport::PoolRequestMsg tenant_add_request(const TenantSpec& tenant) {
  transport::PoolRequestMsg request;
  request.verb = "tenant";
  request.args = {"add", tenant.name};
  for (const auto& token : tenant.tokens) request.args.push_back("token=" + token);
  request.args.push_back("memory=" + std::to_string(tenant.memory_mib));
  request.args.push_back("compute=" + std::to_string(tenant.compute));
  if (tenant.compute) request.args.push_back("compute_limit=" + std::to_string(tenant.compute));
  return request;
}

transport::PoolRequestMsg tenant_remove_request(const std::string& name) {
  transport::PoolRequestMsg request;
  request.verb = "tenant";
  request.args = {"remove", name};
  return request;
}

transport::PoolRequestMsg pool_view_request() {
  transport::PoolRequestMsg request;
  request.verb = "pool";
  request.json = true;
  return request;
}

Result<std::vector<GpuInventory>> parse_pool_view(std::string_view json) {
  PoolView view;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;  // sessions, queue and the GPUs' load are not read
  const auto st = google::protobuf::util::JsonStringToMessage(std::string(json), &view, options);
  if (!st.ok())
    return RGPU_ERROR(kProtocol, "rgpud's pool view is not the JSON expected (" + std::string(st.message()) +
                                     "): is rgpud older than this plugin?");
  std::vector<GpuInventory> gpus;
  for (const auto& g : view.gpus())
    gpus.push_back({static_cast<int>(g.index()), g.memory_total_bytes(), !g.has_healthy() || g.healthy()});
  return gpus;
}

}  // namespace rgpu::device_plugin
