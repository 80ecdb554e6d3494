// The DevicePlugin service (see device_plugin_service.h).
#include "server/device_plugin/device_plugin_service.h"

#include "common/log.h"
#include "server/device_plugin/preferred_allocation.h"
#include "server/device_plugin/status_text.h"

namespace rgpu::device_plugin {

namespace {

// How often a quiet ListAndWatch stream looks whether it was cancelled (the kubelet went away, or
// the server is shutting down).
constexpr std::chrono::milliseconds kStreamCheck{200};

grpc::Status to_grpc(const Status& st) {
  if (st.is_ok()) return grpc::Status::OK;
  const auto code = st.code() == Code::kInvalidArgument ? grpc::StatusCode::INVALID_ARGUMENT
                                                          : grpc::StatusCode::UNAVAILABLE;
  return grpc::Status(code, first_line(st.message()));
}

}  // namespace

v1beta1::DevicePluginOptions DevicePluginService::options() {
  v1beta1::DevicePluginOptions out;
  out.set_pre_start_required(true);
  out.set_get_preferred_allocation_available(true);
  return out;
}

grpc::Status DevicePluginService::GetDevicePluginOptions(grpc::ServerContext*, const v1beta1::Empty*,
                                                         v1beta1::DevicePluginOptions* out) {
  *out = options();
  return grpc::Status::OK;
}

grpc::Status DevicePluginService::ListAndWatch(grpc::ServerContext* context, const v1beta1::Empty*,
                                               grpc::ServerWriter<v1beta1::ListAndWatchResponse>* writer) {
  std::optional<uint64_t> seen;
  while (!context->IsCancelled()) {
    auto snapshot = state_.wait_newer(kind_, seen, kStreamCheck);
    if (!snapshot) continue;
    if (!writer->Write(snapshot->devices)) break;  // the kubelet closed the stream
    seen = snapshot->version;
  }
  return grpc::Status::OK;
}

grpc::Status DevicePluginService::GetPreferredAllocation(grpc::ServerContext*,
                                                         const v1beta1::PreferredAllocationRequest* request,
                                                         v1beta1::PreferredAllocationResponse* out) {
  for (const auto& c : request->container_requests()) {
    const std::vector<std::string> available(c.available_deviceids().begin(), c.available_deviceids().end());
    const std::vector<std::string> must(c.must_include_deviceids().begin(), c.must_include_deviceids().end());
    const size_t size = c.allocation_size() > 0 ? static_cast<size_t>(c.allocation_size()) : 0;
    auto* response = out->add_container_responses();
    for (auto& id : preferred_allocation(available, must, size)) response->add_deviceids(std::move(id));
  }
  return grpc::Status::OK;
}

grpc::Status DevicePluginService::Allocate(grpc::ServerContext*, const v1beta1::AllocateRequest* request,
                                           v1beta1::AllocateResponse* out) {
  for (const auto& c : request->container_requests()) {
    const std::vector<std::string> ids(c.devices_ids().begin(), c.devices_ids().end());
    for (const auto& id : ids) {
      auto parsed = parse_device_id(id);
      if (parsed && parsed->kind != kind_)
        return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                            "device " + id + " is not a " + std::string(resource_suffix(kind_)) + " device");
    }
    auto response = broker_.allocate(ids);
    if (!response.is_ok()) {
      RGPU_LOG_WARN("Allocate refused: %s", first_line(response.status().message()).c_str());
      return to_grpc(response.status());
    }
    *out->add_container_responses() = std::move(*response);
  }
  return grpc::Status::OK;
}

grpc::Status DevicePluginService::PreStartContainer(grpc::ServerContext*,
                                                    const v1beta1::PreStartContainerRequest* request,
                                                    v1beta1::PreStartContainerResponse*) {
  const Status st = broker_.prestart({request->devices_ids().begin(), request->devices_ids().end()});
  if (!st.is_ok()) RGPU_LOG_WARN("PreStartContainer failed: %s", first_line(st.message()).c_str());
  return to_grpc(st);
}

}  // namespace rgpu::device_plugin
