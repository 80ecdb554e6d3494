// A kubelet stand-in for the device plugin's tests and for trying the plugin by hand: it speaks
// the kubelet's real gRPC APIs over Unix sockets in a folder of its own.
//   - serves Registration on DIR/kubelet.sock; on each Register it dials the plugin's socket and
//     follows its ListAndWatch stream, as the kubelet does, keeping every list received;
//   - serves the pod-resources API's List on DIR/pod-resources.sock from the containers admitted;
//   - admits a container as the kubelet would: per resource asked, GetPreferredAllocation over the
//     devices still free, Allocate, record the grant; then PreStartContainer per resource; the
//     Allocate answers' envs merged (the later resource's value wins) and mounts joined.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"
#include "deviceplugin_v1beta1.grpc.pb.h"
#include "podresources_v1.pb.h"

namespace grpc {
class Server;
}

namespace rgpu::device_plugin::testing {

struct ContainerAsk {
  std::string pod_namespace, pod, container;
  uint32_t core = 0, memory = 0;  // devices of <domain>/vcuda-core and <domain>/vcuda-memory
  bool memory_first = false;      // the order of the two Allocates (the kubelet's is not fixed)
};

struct Admission {
  std::map<std::string, std::string> envs;  // merged
  std::vector<v1beta1::Mount> mounts;       // joined
  std::vector<std::string> core, memory;    // the device IDs granted
  std::string core_token, memory_token;     // RGPU_TOKEN in each resource's own Allocate answer
};

class KubeletStandIn {
 public:
  KubeletStandIn(std::string dir, std::string domain);
  ~KubeletStandIn();
  KubeletStandIn(const KubeletStandIn&) = delete;
  KubeletStandIn& operator=(const KubeletStandIn&) = delete;

  std::string kubelet_socket() const { return dir_ + "/kubelet.sock"; }
  std::string pod_resources_socket() const { return dir_ + "/pod-resources.sock"; }

  // A restart: both servers stop, kubelet.sock is removed with the plugins' sockets (as the
  // kubelet does) and made again; the plugin must register again.
  void restart();

  // Register calls received so far, in order.
  std::vector<v1beta1::RegisterRequest> registrations() const;
  // Waits until `pred` holds for the registrations, or `timeout`; returns whether it held.
  bool wait_registrations(const std::function<bool(const std::vector<v1beta1::RegisterRequest>&)>& pred,
                          std::chrono::milliseconds timeout);
  // Waits until the latest ListAndWatch list of `resource` satisfies `pred`; returns whether it did.
  bool wait_devices(const std::string& resource, const std::function<bool(const v1beta1::ListAndWatchResponse&)>& pred,
                    std::chrono::milliseconds timeout);
  // A stub on the registered plugin's socket for `resource` (null when none registered).
  std::unique_ptr<v1beta1::DevicePlugin::Stub> plugin(const std::string& resource) const;

  Result<Admission> admit(const ContainerAsk& ask);
  // The pod leaves the pod-resources list, its devices free again.
  void delete_pod(const std::string& pod_namespace, const std::string& pod);

  v1::ListPodResourcesResponse pod_resources() const;

 private:
  struct Watch;
  class RegistrationService;
  class PodResourcesService;

  void start_servers();
  void stop_servers();
  void on_register(const v1beta1::RegisterRequest& request);
  Result<std::vector<std::string>> grant(const std::string& resource, uint32_t count);

  const std::string dir_;
  const std::string domain_;
  std::unique_ptr<RegistrationService> registration_;
  std::unique_ptr<PodResourcesService> pod_resources_service_;
  std::unique_ptr<grpc::Server> server_;

  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::vector<v1beta1::RegisterRequest> registrations_;
  std::map<std::string, std::unique_ptr<Watch>> watches_;  // by resource name
  std::map<std::string, v1beta1::ListAndWatchResponse> latest_;  // by resource name
  v1::ListPodResourcesResponse pods_;
};

}  // namespace rgpu::device_plugin::testing
