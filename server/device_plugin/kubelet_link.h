// The plugin's side of the kubelet's own services, each over its Unix socket: Registration
// (kubelet.sock in the device-plugin folder) and the pod-resources API's List.
#pragma once

#include <optional>
#include <string>
#include <sys/types.h>

#include "common/status.h"
#include "podresources_v1.pb.h"

namespace rgpu::device_plugin {

// The kubelet is expected to answer a call on its own node within this.
inline constexpr int kKubeletCallSeconds = 5;

// Registers the plugin serving `resource_name` on `endpoint` (a socket file name inside the
// folder of `kubelet_socket`), asking for PreStartContainer and GetPreferredAllocation.
Status register_plugin(const std::string& kubelet_socket, const std::string& endpoint,
                       const std::string& resource_name);

// Which container holds which devices, from the kubelet's pod-resources socket.
Result<v1::ListPodResourcesResponse> list_pod_resources(const std::string& socket);

// Which file a path is now, so that a kubelet.sock made again (the kubelet restarted) is told
// from the one registered with; nullopt when there is none.
struct FileIdentity {
  ino_t inode = 0;
  long long changed_ns = 0;
  bool operator==(const FileIdentity&) const = default;
};
std::optional<FileIdentity> file_identity(const std::string& path);

}  // namespace rgpu::device_plugin
