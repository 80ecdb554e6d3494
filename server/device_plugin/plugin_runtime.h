// The running plugin: the two DevicePlugin servers (vcuda-core and vcuda-memory, each on its own
// socket in the kubelet's device-plugin folder) and the poll that keeps them true:
//   - rgpud's pool view: the GPUs advertised, each GPU's devices Healthy or Unhealthy as rgpud
//     reports that GPU; all Unhealthy while rgpud does not answer;
//   - the pod-resources list: tenants of deleted pods removed (SliceBroker::reap);
//   - kubelet.sock: when it is made again (the kubelet restarted, and removed the plugins'
//     sockets), both servers start again and register again.
// Each server starts in order: a stale socket removed, the server listening, then Register.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "server/device_plugin/device_plugin_service.h"
#include "server/device_plugin/device_state.h"
#include "server/device_plugin/kubelet_link.h"
#include "server/device_plugin/plugin_options.h"
#include "server/device_plugin/slice_broker.h"

namespace grpc {
class Server;
}

namespace rgpu::device_plugin {

class PluginRuntime {
 public:
  // `pod_resources` defaults to the kubelet's List on options.pod_resources_socket.
  PluginRuntime(const PluginOptions& options, RgpudControl& rgpud, PodResourcesSource pod_resources = {});
  ~PluginRuntime();

  // Asks rgpud for its GPUs, starts both servers and registers them, then polls in the
  // background. An error only when a server cannot listen; a kubelet not yet there is retried.
  Status start();
  void stop();

  // The socket file (inside the kubelet folder) each resource is served on.
  static std::string endpoint(ResourceKind kind);
  SliceBroker& broker() { return broker_; }

 private:
  struct Served {
    ResourceKind kind;
    std::unique_ptr<DevicePluginService> service;
    std::unique_ptr<grpc::Server> server;
  };

  void poll_once();
  // Logs which GPUs rgpud reports unhealthy, once per change (apart from the poll's one problem,
  // so that neither hides the other): why the kubelet stopped admitting pods to a GPU.
  void log_gpu_health(const std::vector<GpuInventory>& gpus);
  void poll_loop();
  Status serve(Served& served);
  void shutdown(Served& served);
  // Serves (again) and registers both resources; remembers which kubelet.sock it registered with.
  Status serve_and_register();

  PluginOptions options_;
  RgpudControl& rgpud_;
  DeviceState state_;
  SliceBroker broker_;
  Served served_[2];
  std::optional<FileIdentity> registered_with_;  // kubelet.sock at the last successful Register
  std::string last_problem_;                     // logged once, until it changes
  std::string last_unhealthy_;                   // the GPUs last logged unhealthy: "1, 3"

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread poller_;
};

}  // namespace rgpu::device_plugin
