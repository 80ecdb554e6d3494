// The DevicePlugin gRPC service for one resource (vcuda-core or vcuda-memory): the kubelet's calls,
// answered from the shared DeviceState and SliceBroker.
#pragma once

#include <atomic>

#include "deviceplugin_v1beta1.grpc.pb.h"
#include "server/device_plugin/device_ids.h"
#include "server/device_plugin/device_state.h"
#include "server/device_plugin/slice_broker.h"

namespace rgpu::device_plugin {

class DevicePluginService final : public v1beta1::DevicePlugin::Service {
 public:
  DevicePluginService(ResourceKind kind, DeviceState& state, SliceBroker& broker)
      : kind_(kind), state_(state), broker_(broker) {}

  // What the plugin registers with: PreStartContainer joins a container's resources, and
  // GetPreferredAllocation keeps its units on one GPU.
  static v1beta1::DevicePluginOptions options();

  grpc::Status GetDevicePluginOptions(grpc::ServerContext*, const v1beta1::Empty*,
                                      v1beta1::DevicePluginOptions* out) override;
  grpc::Status ListAndWatch(grpc::ServerContext* context, const v1beta1::Empty*,
                            grpc::ServerWriter<v1beta1::ListAndWatchResponse>* writer) override;
  grpc::Status GetPreferredAllocation(grpc::ServerContext*, const v1beta1::PreferredAllocationRequest* request,
                                      v1beta1::PreferredAllocationResponse* out) override;
  grpc::Status Allocate(grpc::ServerContext*, const v1beta1::AllocateRequest* request,
                        v1beta1::AllocateResponse* out) override;
  grpc::Status PreStartContainer(grpc::ServerContext*, const v1beta1::PreStartContainerRequest* request,
                                 v1beta1::PreStartContainerResponse*) override;

 private:
  const ResourceKind kind_;
  DeviceState& state_;
  SliceBroker& broker_;
};

}  // namespace rgpu::device_plugin
