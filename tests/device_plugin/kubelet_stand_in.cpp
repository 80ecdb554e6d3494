// The kubelet stand-in (see kubelet_stand_in.h).
#include "tests/device_plugin/kubelet_stand_in.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <thread>

#include "podresources_v1.grpc.pb.h"

namespace rgpu::device_plugin::testing {

namespace {

std::shared_ptr<grpc::Channel> unix_channel(const std::string& socket) {
  return grpc::CreateChannel("unix:" + socket, grpc::InsecureChannelCredentials());
}

Status from_grpc(const grpc::Status& st, const std::string& what) {
  if (st.ok()) return Status::ok();
  return RGPU_ERROR(kUnavailable, what + ": " + st.error_message());
}

}  // namespace

// One plugin's ListAndWatch stream, followed on its own thread until cancelled.
struct KubeletStandIn::Watch {
  grpc::ClientContext context;
  std::thread reader;
  ~Watch() {
    context.TryCancel();
    if (reader.joinable()) reader.join();
  }
};

class KubeletStandIn::RegistrationService final : public v1beta1::Registration::Service {
 public:
  explicit RegistrationService(KubeletStandIn& owner) : owner_(owner) {}
  grpc::Status Register(grpc::ServerContext*, const v1beta1::RegisterRequest* request, v1beta1::Empty*) override {
    if (request->version() != "v1beta1")
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "unsupported version " + request->version());
    owner_.on_register(*request);
    return grpc::Status::OK;
  }

 private:
  KubeletStandIn& owner_;
};

class KubeletStandIn::PodResourcesService final : public v1::PodResourcesLister::Service {
 public:
  explicit PodResourcesService(KubeletStandIn& owner) : owner_(owner) {}
  grpc::Status List(grpc::ServerContext*, const v1::ListPodResourcesRequest*,
                    v1::ListPodResourcesResponse* out) override {
    *out = owner_.pod_resources();
    return grpc::Status::OK;
  }

 private:
  KubeletStandIn& owner_;
};

KubeletStandIn::KubeletStandIn(std::string dir, std::string domain)
    : dir_(std::move(dir)),
      domain_(std::move(domain)),
      registration_(std::make_unique<RegistrationService>(*this)),
      pod_resources_service_(std::make_unique<PodResourcesService>(*this)) {
  start_servers();
}

KubeletStandIn::~KubeletStandIn() { stop_servers(); }

void KubeletStandIn::start_servers() {
  grpc::ServerBuilder builder;
  builder.AddListeningPort("unix:" + kubelet_socket(), grpc::InsecureServerCredentials());
  builder.AddListeningPort("unix:" + pod_resources_socket(), grpc::InsecureServerCredentials());
  builder.RegisterService(registration_.get());
  builder.RegisterService(pod_resources_service_.get());
  server_ = builder.BuildAndStart();
}

void KubeletStandIn::stop_servers() {
  std::map<std::string, std::unique_ptr<Watch>> watches;
  {
    std::lock_guard lock(mu_);
    watches.swap(watches_);
  }
  watches.clear();  // cancels and joins the readers, outside the lock they take
  if (server_) server_->Shutdown(std::chrono::system_clock::now());
  server_.reset();
}

void KubeletStandIn::restart() {
  stop_servers();
  // The kubelet removes every socket in its folder when it starts, the plugins' too.
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    if (entry.is_socket()) std::filesystem::remove(entry.path());
  }
  start_servers();
}

void KubeletStandIn::on_register(const v1beta1::RegisterRequest& request) {
  auto watch = std::make_unique<Watch>();
  auto stub = v1beta1::DevicePlugin::NewStub(unix_channel(dir_ + "/" + request.endpoint()));
  const std::string resource = request.resource_name();
  Watch* w = watch.get();
  watch->reader = std::thread([this, w, resource, stub = std::move(stub)] {
    auto stream = stub->ListAndWatch(&w->context, v1beta1::Empty());
    v1beta1::ListAndWatchResponse list;
    while (stream->Read(&list)) {
      std::lock_guard lock(mu_);
      latest_[resource] = list;
      changed_.notify_all();
    }
    (void)stream->Finish();
  });
  std::unique_ptr<Watch> old;
  {
    std::lock_guard lock(mu_);
    registrations_.push_back(request);
    old = std::move(watches_[resource]);
    watches_[resource] = std::move(watch);
    changed_.notify_all();
  }
}

std::vector<v1beta1::RegisterRequest> KubeletStandIn::registrations() const {
  std::lock_guard lock(mu_);
  return registrations_;
}

bool KubeletStandIn::wait_registrations(
    const std::function<bool(const std::vector<v1beta1::RegisterRequest>&)>& pred, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return changed_.wait_for(lock, timeout, [&] { return pred(registrations_); });
}

bool KubeletStandIn::wait_devices(const std::string& resource,
                                  const std::function<bool(const v1beta1::ListAndWatchResponse&)>& pred,
                                  std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return changed_.wait_for(lock, timeout, [&] {
    auto it = latest_.find(resource);
    return it != latest_.end() && pred(it->second);
  });
}

std::unique_ptr<v1beta1::DevicePlugin::Stub> KubeletStandIn::plugin(const std::string& resource) const {
  std::lock_guard lock(mu_);
  for (auto it = registrations_.rbegin(); it != registrations_.rend(); ++it) {
    if (it->resource_name() == resource)
      return v1beta1::DevicePlugin::NewStub(unix_channel(dir_ + "/" + it->endpoint()));
  }
  return nullptr;
}

v1::ListPodResourcesResponse KubeletStandIn::pod_resources() const {
  std::lock_guard lock(mu_);
  return pods_;
}

// GetPreferredAllocation over the healthy devices no container holds, then those.
Result<std::vector<std::string>> KubeletStandIn::grant(const std::string& resource, uint32_t count) {
  auto stub = plugin(resource);
  if (!stub) return RGPU_ERROR(kUnavailable, "no plugin registered for " + resource);
  v1beta1::PreferredAllocationRequest request;
  auto* c = request.add_container_requests();
  {
    std::lock_guard lock(mu_);
    std::set<std::string> held;
    for (const auto& pod : pods_.pod_resources())
      for (const auto& container : pod.containers())
        for (const auto& devices : container.devices())
          if (devices.resource_name() == resource) held.insert(devices.device_ids().begin(), devices.device_ids().end());
    for (const auto& device : latest_[resource].devices())
      if (device.health() == "Healthy" && !held.count(device.id())) c->add_available_deviceids(device.id());
  }
  if (c->available_deviceids_size() < static_cast<int>(count))
    return RGPU_ERROR(kUnavailable, "only " + std::to_string(c->available_deviceids_size()) + " " + resource + " free");
  c->set_allocation_size(static_cast<int32_t>(count));
  v1beta1::PreferredAllocationResponse reply;
  grpc::ClientContext context;
  RGPU_TRY(from_grpc(stub->GetPreferredAllocation(&context, request, &reply), "GetPreferredAllocation"));
  if (reply.container_responses_size() != 1 || reply.container_responses(0).deviceids_size() != static_cast<int>(count))
    return RGPU_ERROR(kProtocol, "GetPreferredAllocation did not answer " + std::to_string(count) + " devices");
  const auto& ids = reply.container_responses(0).deviceids();
  return std::vector<std::string>(ids.begin(), ids.end());
}

Result<Admission> KubeletStandIn::admit(const ContainerAsk& ask) {
  Admission out;
  struct Asked {
    std::string resource;
    uint32_t count;
    std::vector<std::string>* ids;
    std::string* token;
  };
  std::vector<Asked> asked = {{domain_ + "/vcuda-core", ask.core, &out.core, &out.core_token},
                              {domain_ + "/vcuda-memory", ask.memory, &out.memory, &out.memory_token}};
  if (ask.memory_first) std::swap(asked[0], asked[1]);
  std::erase_if(asked, [](const Asked& a) { return a.count == 0; });

  v1::ContainerResources container;
  container.set_name(ask.container);
  for (const auto& a : asked) {
    RGPU_ASSIGN_OR_RETURN(*a.ids, grant(a.resource, a.count));
    v1beta1::AllocateRequest request;
    auto* c = request.add_container_requests();
    for (const auto& id : *a.ids) c->add_devices_ids(id);
    v1beta1::AllocateResponse reply;
    grpc::ClientContext context;
    RGPU_TRY(from_grpc(plugin(a.resource)->Allocate(&context, request, &reply), "Allocate " + a.resource));
    if (reply.container_responses_size() != 1) return RGPU_ERROR(kProtocol, "Allocate answered no container");
    const auto& response = reply.container_responses(0);
    for (const auto& [k, v] : response.envs()) out.envs[k] = v;
    out.mounts.insert(out.mounts.end(), response.mounts().begin(), response.mounts().end());
    auto token = response.envs().find("RGPU_TOKEN");
    if (token != response.envs().end()) *a.token = token->second;
    auto* devices = container.add_devices();
    devices->set_resource_name(a.resource);
    for (const auto& id : *a.ids) devices->add_device_ids(id);
  }
  {
    std::lock_guard lock(mu_);
    v1::PodResources* pod = nullptr;
    for (auto& p : *pods_.mutable_pod_resources())
      if (p.namespace_() == ask.pod_namespace && p.name() == ask.pod) pod = &p;
    if (!pod) {
      pod = pods_.add_pod_resources();
      pod->set_namespace_(ask.pod_namespace);
      pod->set_name(ask.pod);
    }
    *pod->add_containers() = container;
  }
  for (const auto& a : asked) {
    v1beta1::PreStartContainerRequest request;
    for (const auto& id : *a.ids) request.add_devices_ids(id);
    v1beta1::PreStartContainerResponse reply;
    grpc::ClientContext context;
    RGPU_TRY(from_grpc(plugin(a.resource)->PreStartContainer(&context, request, &reply), "PreStartContainer " + a.resource));
  }
  return out;
}

void KubeletStandIn::delete_pod(const std::string& pod_namespace, const std::string& pod) {
  std::lock_guard lock(mu_);
  auto* pods = pods_.mutable_pod_resources();
  for (int i = 0; i < pods->size();) {
    if (pods->Get(i).namespace_() == pod_namespace && pods->Get(i).name() == pod) pods->DeleteSubrange(i, 1);
    else ++i;
  }
}

}  // namespace rgpu::device_plugin::testing
