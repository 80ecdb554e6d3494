// Turns the kubelet's grants into rgpud tenants: one tenant per container, joining its vcuda-core
// and vcuda-memory devices, which the kubelet hands out in separate calls without saying for which
// pod.
//
//   Allocate (per container, per resource): mints a fresh random token, remembers it for each of
//     the devices, and answers RGPU_TOKEN=<token>, RGPU_SERVER, LD_PRELOAD / LD_LIBRARY_PATH and the
//     read-only mounts. The kubelet merges the core and memory answers, so the container keeps one
//     of its two tokens: the tenant is given both.
//   PreStartContainer (after both Allocates, before the container starts): asks the kubelet's
//     pod-resources API which container holds these devices, reads that container's devices of
//     both resources and registers the tenant <namespace>/<pod>/<container> with memory = memory
//     units x unit MiB and compute = compute_limit = core units (percent).
//   reap (every poll): removes the tenants of containers the kubelet no longer lists (pod deleted)
//     and forgets the tokens of devices no longer assigned.
//
// Thread-safe: the gRPC servers call it concurrently, the runtime's poll thread calls reap.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"
#include "deviceplugin_v1beta1.pb.h"
#include "podresources_v1.pb.h"
#include "server/device_plugin/plugin_options.h"
#include "server/device_plugin/rgpud_control.h"

namespace rgpu::device_plugin {

// The kubelet's pod-resources List (kubelet_link.h), or a test's stand-in for it.
using PodResourcesSource = std::function<Result<v1::ListPodResourcesResponse>()>;

class SliceBroker {
 public:
  // A token minted less than `token_grace` ago is kept even when no container lists its device:
  // the kubelet records a grant only after Allocate returns, so a poll may miss it for a moment.
  SliceBroker(const PluginOptions& options, RgpudControl& rgpud, PodResourcesSource pod_resources,
              std::chrono::milliseconds token_grace = std::chrono::minutes(1));

  // One container's devices of one resource (all of one kind): the container's environment.
  Result<v1beta1::ContainerAllocateResponse> allocate(const std::vector<std::string>& device_ids);
  // Registers the tenant of the container holding these devices, once.
  Status prestart(const std::vector<std::string>& device_ids);
  // Frees what belongs to containers gone. An error (the kubelet or rgpud unreachable) leaves
  // everything for the next call.
  Status reap();

  // The tenants registered, by name (for logs and tests).
  std::vector<TenantSpec> tenants() const;

 private:
  struct Token {
    std::string value;
    std::chrono::steady_clock::time_point minted;
  };

  PluginOptions options_;
  RgpudControl& rgpud_;
  PodResourcesSource pod_resources_;
  std::chrono::milliseconds token_grace_;

  mutable std::mutex mu_;
  std::map<std::string, Token> tokens_;          // device ID -> the token minted at its Allocate
  std::map<std::string, TenantSpec> registered_;  // tenant name -> what rgpud was given
};

}  // namespace rgpu::device_plugin
