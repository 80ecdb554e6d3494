// One rgpud tenant per container (see slice_broker.h).
#include "server/device_plugin/slice_broker.h"

#include <algorithm>
#include <set>

#include "common/auth.h"
#include "common/log.h"
#include "common/shim_libraries.h"
#include "server/device_plugin/device_ids.h"

namespace rgpu::device_plugin {

namespace {

std::string random_token() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (uint8_t byte : auth::random_nonce()) {
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
  }
  return out;
}

std::string dirname(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos || slash == 0 ? "/" : path.substr(0, slash);
}

void add_mount(v1beta1::ContainerAllocateResponse& out, const std::string& path) {
  auto* mount = out.add_mounts();
  mount->set_host_path(path);
  mount->set_container_path(path);  // the same path inside: RGPU_SERVER and LD_PRELOAD name it
  mount->set_read_only(true);
}

// A container of the pod-resources list, with its devices of the plugin's two resources.
struct ListedContainer {
  std::string name;  // <namespace>/<pod>/<container>
  std::vector<std::string> core, memory;
};

std::vector<ListedContainer> our_containers(const v1::ListPodResourcesResponse& list, const std::string& core_name,
                                            const std::string& memory_name) {
  std::vector<ListedContainer> out;
  for (const auto& pod : list.pod_resources()) {
    for (const auto& container : pod.containers()) {
      ListedContainer c{pod.namespace_() + "/" + pod.name() + "/" + container.name(), {}, {}};
      for (const auto& devices : container.devices()) {
        auto* into = devices.resource_name() == core_name     ? &c.core
                     : devices.resource_name() == memory_name ? &c.memory
                                                              : nullptr;
        if (into) into->insert(into->end(), devices.device_ids().begin(), devices.device_ids().end());
      }
      if (!c.core.empty() || !c.memory.empty()) out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace

SliceBroker::SliceBroker(const PluginOptions& options, RgpudControl& rgpud, PodResourcesSource pod_resources,
                         std::chrono::milliseconds token_grace)
    : options_(options), rgpud_(rgpud), pod_resources_(std::move(pod_resources)), token_grace_(token_grace) {}

Result<v1beta1::ContainerAllocateResponse> SliceBroker::allocate(const std::vector<std::string>& device_ids) {
  if (device_ids.empty()) return RGPU_ERROR(kInvalidArgument, "Allocate named no devices");
  size_t cores = 0;
  for (const auto& id : device_ids) {
    auto parsed = parse_device_id(id);
    if (!parsed)
      return RGPU_ERROR(kInvalidArgument, "Allocate named device \"" + id.substr(0, 64) +
                                              "\", which rgpu-device-plugin does not advertise");
    cores += parsed->kind == ResourceKind::kCore;
  }
  // One tenant's slice lies on one GPU: more than its 100 percent cannot be given.
  if (cores > kCoreUnitsPerGpu)
    return RGPU_ERROR(kInvalidArgument, "a container may ask for at most " + std::to_string(kCoreUnitsPerGpu) + " " +
                                            resource_name(options_.domain, ResourceKind::kCore) +
                                            " (one GPU); it was given " + std::to_string(cores));
  const Token token{random_token(), std::chrono::steady_clock::now()};
  {
    std::lock_guard lock(mu_);
    for (const auto& id : device_ids) tokens_[id] = token;
  }
  v1beta1::ContainerAllocateResponse out;
  auto& envs = *out.mutable_envs();
  envs["RGPU_TOKEN"] = token.value;
  envs["RGPU_SERVER"] = options_.rgpud;
  envs["LD_LIBRARY_PATH"] = options_.shim_dir;
  std::string preload;
  for (const char* shim : kShimLibraries) preload += (preload.empty() ? "" : " ") + options_.shim_dir + "/" + shim;
  envs["LD_PRELOAD"] = preload;
  add_mount(out, options_.shim_dir);
  if (options_.rgpud.starts_with("unix:")) add_mount(out, dirname(options_.rgpud.substr(5)));
  return out;
}

Status SliceBroker::prestart(const std::vector<std::string>& device_ids) {
  if (device_ids.empty()) return Status::ok();
  RGPU_ASSIGN_OR_RETURN(v1::ListPodResourcesResponse list, pod_resources_());
  const auto containers = our_containers(list, resource_name(options_.domain, ResourceKind::kCore),
                                         resource_name(options_.domain, ResourceKind::kMemory));
  const ListedContainer* found = nullptr;
  for (const auto& c : containers) {
    const bool holds = std::find(c.core.begin(), c.core.end(), device_ids.front()) != c.core.end() ||
                       std::find(c.memory.begin(), c.memory.end(), device_ids.front()) != c.memory.end();
    if (holds) found = &c;
  }
  if (!found)
    return RGPU_ERROR(kUnavailable, "no container in the kubelet's pod-resources list holds device " +
                                        device_ids.front() + " (the kubelet will retry the container's start)");
  TenantSpec tenant;
  tenant.name = found->name;
  tenant.memory_mib = found->memory.size() * options_.memory_unit_mib;
  tenant.compute = static_cast<uint32_t>(found->core.size());

  std::lock_guard lock(mu_);
  std::set<std::string> tokens;
  for (const auto* ids : {&found->core, &found->memory}) {
    for (const auto& id : *ids) {
      auto it = tokens_.find(id);
      if (it == tokens_.end())
        return RGPU_ERROR(kUnavailable, "container " + tenant.name + " holds device " + id +
                                            " but no token was minted for it here (rgpu-device-plugin restarted "
                                            "after its Allocate): delete the pod so that it is allocated again");
      tokens.insert(it->second.value);
    }
  }
  tenant.tokens.assign(tokens.begin(), tokens.end());
  auto known = registered_.find(tenant.name);
  if (known != registered_.end()) {
    if (known->second == tenant) return Status::ok();  // a restart of the same container
    // A pod of the same name made again before the old one was reaped: new grants, new tokens.
    RGPU_TRY(rgpud_.remove_tenant(tenant.name));
    registered_.erase(known);
  }
  Status added = rgpud_.add_tenant(tenant);
  if (!added.is_ok()) {
    // A tenant of that name left by an earlier run of the plugin: replace it (its tokens are gone).
    (void)rgpud_.remove_tenant(tenant.name);
    RGPU_TRY(rgpud_.add_tenant(tenant));
  }
  registered_[tenant.name] = tenant;
  RGPU_LOG_INFO("tenant %s registered: memory %llu MiB, compute %u%%", tenant.name.c_str(),
                static_cast<unsigned long long>(tenant.memory_mib), tenant.compute);
  return Status::ok();
}

Status SliceBroker::reap() {
  RGPU_ASSIGN_OR_RETURN(v1::ListPodResourcesResponse list, pod_resources_());
  const auto containers = our_containers(list, resource_name(options_.domain, ResourceKind::kCore),
                                         resource_name(options_.domain, ResourceKind::kMemory));
  std::set<std::string> listed, assigned;
  for (const auto& c : containers) {
    listed.insert(c.name);
    assigned.insert(c.core.begin(), c.core.end());
    assigned.insert(c.memory.begin(), c.memory.end());
  }
  std::lock_guard lock(mu_);
  Status result = Status::ok();
  for (auto it = registered_.begin(); it != registered_.end();) {
    if (listed.count(it->first)) {
      ++it;
      continue;
    }
    Status removed = rgpud_.remove_tenant(it->first);
    if (!removed.is_ok()) {
      result = removed;  // kept: tried again at the next poll
      ++it;
      continue;
    }
    RGPU_LOG_INFO("tenant %s removed: its container is gone", it->first.c_str());
    it = registered_.erase(it);
  }
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(tokens_, [&](const auto& entry) {
    return !assigned.count(entry.first) && now - entry.second.minted >= token_grace_;
  });
  return result;
}

std::vector<TenantSpec> SliceBroker::tenants() const {
  std::lock_guard lock(mu_);
  std::vector<TenantSpec> out;
  for (const auto& [name, tenant] : registered_) out.push_back(tenant);
  return out;
}

}  // namespace rgpu::device_plugin
