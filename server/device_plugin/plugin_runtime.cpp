// The running plugin (see plugin_runtime.h).
#include "server/device_plugin/plugin_runtime.h"

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "common/log.h"
#include "server/device_plugin/status_text.h"

namespace rgpu::device_plugin {

namespace {

// A server stopping gives its calls this long; ListAndWatch streams are cancelled at once.
constexpr std::chrono::milliseconds kShutdownGrace{200};

}  // namespace

PluginRuntime::PluginRuntime(const PluginOptions& options, RgpudControl& rgpud, PodResourcesSource pod_resources)
    : options_(options),
      rgpud_(rgpud),
      state_(options.memory_unit_mib),
      broker_(options, rgpud,
              pod_resources ? std::move(pod_resources)
                            : PodResourcesSource([socket = options.pod_resources_socket] {
                                return list_pod_resources(socket);
                              })),
      served_{{ResourceKind::kCore, nullptr, nullptr}, {ResourceKind::kMemory, nullptr, nullptr}} {
  for (auto& s : served_) s.service = std::make_unique<DevicePluginService>(s.kind, state_, broker_);
}

PluginRuntime::~PluginRuntime() { stop(); }

std::string PluginRuntime::endpoint(ResourceKind kind) { return std::string("rgpu-") + resource_suffix(kind) + ".sock"; }

Status PluginRuntime::serve(Served& served) {
  const std::string path = options_.kubelet_dir + "/" + endpoint(served.kind);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    return RGPU_ERROR(kIo, "cannot remove the stale socket " + path + ": " + std::strerror(errno));
  grpc::ServerBuilder builder;
  builder.AddListeningPort("unix:" + path, grpc::InsecureServerCredentials());
  builder.RegisterService(served.service.get());
  served.server = builder.BuildAndStart();
  if (!served.server)
    return RGPU_ERROR(kIo, "cannot serve " + resource_name(options_.domain, served.kind) + " on " + path +
                               ": does the folder exist and may this user write there? (--kubelet-dir)");
  return Status::ok();
}

void PluginRuntime::shutdown(Served& served) {
  if (!served.server) return;
  served.server->Shutdown(std::chrono::system_clock::now() + kShutdownGrace);
  served.server.reset();
}

Status PluginRuntime::serve_and_register() {
  for (auto& s : served_) {
    shutdown(s);
    RGPU_TRY(serve(s));
  }
  const std::string kubelet_socket = options_.kubelet_dir + "/kubelet.sock";
  const auto identity = file_identity(kubelet_socket);
  for (auto& s : served_) RGPU_TRY(register_plugin(kubelet_socket, endpoint(s.kind), resource_name(options_.domain, s.kind)));
  registered_with_ = identity;
  RGPU_LOG_INFO("registered %s and %s with the kubelet at %s", resource_name(options_.domain, ResourceKind::kCore).c_str(),
                resource_name(options_.domain, ResourceKind::kMemory).c_str(), kubelet_socket.c_str());
  return Status::ok();
}

Status PluginRuntime::start() {
  poll_once();  // the GPUs first, so that the kubelet's first ListAndWatch has them
  {
    std::lock_guard lock(mu_);
    stopping_ = false;
  }
  poller_ = std::thread([this] { poll_loop(); });
  return Status::ok();
}

void PluginRuntime::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (poller_.joinable()) poller_.join();
  for (auto& s : served_) shutdown(s);
}

void PluginRuntime::log_gpu_health(const std::vector<GpuInventory>& gpus) {
  std::string unhealthy;  // "1, 3"
  for (const auto& gpu : gpus) {
    if (gpu.healthy) continue;
    if (!unhealthy.empty()) unhealthy += ", ";
    unhealthy += std::to_string(gpu.index);
  }
  if (unhealthy == last_unhealthy_) return;
  if (!unhealthy.empty())
    RGPU_LOG_WARN("rgpud reports GPU %s unhealthy (its devices reported Unhealthy; `rgpu pool` shows the GPUs)",
                  unhealthy.c_str());
  else RGPU_LOG_INFO("rgpud reports every GPU healthy again");
  last_unhealthy_ = unhealthy;
}

void PluginRuntime::poll_once() {
  std::string problem;
  auto gpus = rgpud_.gpus();
  if (gpus.is_ok()) {
    state_.set_gpus(*gpus);
    log_gpu_health(*gpus);
  } else {
    state_.set_unreachable();
    problem = first_line(gpus.status().message()) + " (devices reported Unhealthy)";
  }
  if (Status reaped = broker_.reap(); !reaped.is_ok() && problem.empty()) problem = first_line(reaped.message());

  // Serve and register when never done, or when kubelet.sock is a new file, or our socket is gone.
  const auto kubelet = file_identity(options_.kubelet_dir + "/kubelet.sock");
  bool sockets_there = true;
  for (auto& s : served_) sockets_there = sockets_there && file_identity(options_.kubelet_dir + "/" + endpoint(s.kind));
  if (kubelet && (!registered_with_ || *registered_with_ != *kubelet || !sockets_there)) {
    if (Status st = serve_and_register(); !st.is_ok() && problem.empty()) problem = first_line(st.message());
  } else if (!kubelet && problem.empty()) {
    problem = "no kubelet.sock in " + options_.kubelet_dir + " yet (waiting for the kubelet)";
  }
  if (problem != last_problem_) {
    if (!problem.empty()) RGPU_LOG_WARN("%s", problem.c_str());
    else RGPU_LOG_INFO("rgpud and the kubelet answer again");
    last_problem_ = problem;
  }
}

void PluginRuntime::poll_loop() {
  std::unique_lock lock(mu_);
  while (!wake_.wait_for(lock, std::chrono::milliseconds(options_.poll_ms), [this] { return stopping_; })) {
    lock.unlock();
    poll_once();
    lock.lock();
  }
}

}  // namespace rgpu::device_plugin
