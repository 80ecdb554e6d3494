// Registration and pod-resources, the kubelet's services (see kubelet_link.h).
#include "server/device_plugin/kubelet_link.h"

#include <grpcpp/grpcpp.h>
#include <sys/stat.h>

#include <chrono>

#include "deviceplugin_v1beta1.grpc.pb.h"
#include "podresources_v1.grpc.pb.h"
#include "server/device_plugin/device_plugin_service.h"

namespace rgpu::device_plugin {

namespace {

std::shared_ptr<grpc::Channel> unix_channel(const std::string& socket) {
  return grpc::CreateChannel("unix:" + socket, grpc::InsecureChannelCredentials());
}

void set_deadline(grpc::ClientContext& context) {
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(kKubeletCallSeconds));
}

}  // namespace

Status register_plugin(const std::string& kubelet_socket, const std::string& endpoint,
                       const std::string& resource_name) {
  auto stub = v1beta1::Registration::NewStub(unix_channel(kubelet_socket));
  v1beta1::RegisterRequest request;
  request.set_version("v1beta1");
  request.set_endpoint(endpoint);
  request.set_resource_name(resource_name);
  *request.mutable_options() = DevicePluginService::options();
  v1beta1::Empty reply;
  grpc::ClientContext context;
  set_deadline(context);
  const grpc::Status st = stub->Register(&context, request, &reply);
  if (!st.ok())
    return RGPU_ERROR(kUnavailable, "registering " + resource_name + " with the kubelet at " + kubelet_socket +
                                        " failed: " + st.error_message() + " (is the kubelet running?)");
  return Status::ok();
}

Result<v1::ListPodResourcesResponse> list_pod_resources(const std::string& socket) {
  auto stub = v1::PodResourcesLister::NewStub(unix_channel(socket));
  v1::ListPodResourcesResponse reply;
  grpc::ClientContext context;
  set_deadline(context);
  const grpc::Status st = stub->List(&context, v1::ListPodResourcesRequest(), &reply);
  if (!st.ok())
    return RGPU_ERROR(kUnavailable, "the kubelet's pod-resources API at " + socket + " did not answer List: " +
                                        st.error_message() + " (mount /var/lib/kubelet/pod-resources into the plugin)");
  return reply;
}

std::optional<FileIdentity> file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileIdentity{st.st_ino, st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec};
}

}  // namespace rgpu::device_plugin
