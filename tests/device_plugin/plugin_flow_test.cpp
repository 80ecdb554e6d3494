// The whole plugin in-process, seen from a kubelet stand-in speaking the kubelet's real gRPC APIs
// over Unix sockets in a temporary folder, with a fake rgpud behind it: registration, the device
// lists and their health (rgpud's as a whole, and one GPU's), preferred allocations, Allocate and PreStartContainer for several
// containers of two pods, the tenants that result, a deleted pod's tenants removed, and a kubelet
// restart answered by registering again. Waits are for events, with a generous deadline.
#include <catch2/catch.hpp>

#include <grpcpp/grpcpp.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "server/device_plugin/plugin_runtime.h"
#include "tests/device_plugin/fake_rgpud.h"
#include "tests/device_plugin/kubelet_stand_in.h"

namespace dp = rgpu::device_plugin;
using dp::testing::ContainerAsk;

namespace {

constexpr std::chrono::seconds kDeadline{20};  // only a broken plugin takes anywhere near this

bool all_health(const v1beta1::ListAndWatchResponse& list, size_t count, const char* health) {
  return static_cast<size_t>(list.devices_size()) == count &&
         std::all_of(list.devices().begin(), list.devices().end(),
                     [&](const v1beta1::Device& d) { return d.health() == health; });
}

// Exactly `count` devices, those of GPU `unhealthy_gpu` (`unhealthy` of them) Unhealthy, the rest Healthy.
bool only_gpu_unhealthy(const v1beta1::ListAndWatchResponse& list, size_t count, int unhealthy_gpu, size_t unhealthy) {
  const auto is_unhealthy = [](const v1beta1::Device& d) { return d.health() == std::string("Unhealthy"); };
  return static_cast<size_t>(list.devices_size()) == count &&
         static_cast<size_t>(std::count_if(list.devices().begin(), list.devices().end(), is_unhealthy)) == unhealthy &&
         std::all_of(list.devices().begin(), list.devices().end(), [&](const v1beta1::Device& d) {
           const bool on_gpu = dp::parse_device_id(d.id())->gpu == unhealthy_gpu;
           return on_gpu ? is_unhealthy(d) : d.health() == std::string("Healthy");
         });
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

bool has_gpu(const std::vector<std::string>& ids, int gpu) {
  return std::all_of(ids.begin(), ids.end(), [&](const std::string& id) { return dp::parse_device_id(id)->gpu == gpu; });
}

}  // namespace

TEST_CASE("device plugin: the whole plugin against a kubelet stand-in and a fake rgpud", "[device_plugin]") {
  char dir_template[] = "/tmp/rgpu-dp-XXXXXX";
  REQUIRE(mkdtemp(dir_template));
  const std::string dir = dir_template;
  const std::string core = "rgpu.io/vcuda-core", memory = "rgpu.io/vcuda-memory";

  // GPU 0: 16 GiB (64 memory units), GPU 1: 8 GiB (32).
  dp::testing::FakeRgpud rgpud({{0, 16ull << 30}, {1, 8ull << 30}});
  dp::testing::KubeletStandIn kubelet(dir, "rgpu.io");
  dp::PluginOptions options;
  options.kubelet_dir = dir;
  options.pod_resources_socket = kubelet.pod_resources_socket();
  options.rgpud = "unix:" + dir + "/rgpu/rgpud.sock";
  options.shim_dir = "/opt/rgpu/lib";
  options.poll_ms = 20;
  {
    dp::PluginRuntime plugin(options, rgpud);
    REQUIRE(plugin.start().is_ok());

    // Both resources register, each on its own socket, asking for PreStart and preferred allocations.
    REQUIRE(kubelet.wait_registrations([](const auto& r) { return r.size() >= 2; }, kDeadline));
    auto registered = kubelet.registrations();
    std::vector<std::string> names;
    for (const auto& r : registered) {
      names.push_back(r.resource_name());
      CHECK(r.version() == "v1beta1");
      CHECK(r.options().pre_start_required());
      CHECK(r.options().get_preferred_allocation_available());
      CHECK(std::filesystem::is_socket(dir + "/" + r.endpoint()));
    }
    CHECK(sorted(names) == std::vector<std::string>{core, memory});
    CHECK(registered[0].endpoint() != registered[1].endpoint());
    {
      v1beta1::DevicePluginOptions got;
      grpc::ClientContext context;
      REQUIRE(kubelet.plugin(memory)->GetDevicePluginOptions(&context, v1beta1::Empty(), &got).ok());
      CHECK(got.pre_start_required());
      CHECK(got.get_preferred_allocation_available());
    }

    // ListAndWatch: every device Healthy; all Unhealthy while rgpud does not answer; back again.
    CHECK(kubelet.wait_devices(core, [](const auto& l) { return all_health(l, 200, "Healthy"); }, kDeadline));
    CHECK(kubelet.wait_devices(memory, [](const auto& l) { return all_health(l, 96, "Healthy"); }, kDeadline));
    rgpud.set_reachable(false);
    CHECK(kubelet.wait_devices(core, [](const auto& l) { return all_health(l, 200, "Unhealthy"); }, kDeadline));
    CHECK(kubelet.wait_devices(memory, [](const auto& l) { return all_health(l, 96, "Unhealthy"); }, kDeadline));
    rgpud.set_reachable(true);
    CHECK(kubelet.wait_devices(core, [](const auto& l) { return all_health(l, 200, "Healthy"); }, kDeadline));
    REQUIRE(kubelet.wait_devices(memory, [](const auto& l) { return all_health(l, 96, "Healthy"); }, kDeadline));

    // rgpud's probe finds GPU 1 failing: only its devices turn Unhealthy; then healthy again.
    rgpud.set_gpu_healthy(1, false);
    CHECK(kubelet.wait_devices(core, [](const auto& l) { return only_gpu_unhealthy(l, 200, 1, 100); }, kDeadline));
    CHECK(kubelet.wait_devices(memory, [](const auto& l) { return only_gpu_unhealthy(l, 96, 1, 32); }, kDeadline));
    rgpud.set_gpu_healthy(1, true);
    CHECK(kubelet.wait_devices(core, [](const auto& l) { return all_health(l, 200, "Healthy"); }, kDeadline));
    REQUIRE(kubelet.wait_devices(memory, [](const auto& l) { return all_health(l, 96, "Healthy"); }, kDeadline));

    // Two pods: a container asking for both resources (core first), one asking memory first, one
    // asking only memory and one only cores.
    auto main = kubelet.admit({"team", "train", "main", 10, 16, false});
    REQUIRE(main.is_ok());
    auto side = kubelet.admit({"team", "train", "side", 0, 4, false});
    REQUIRE(side.is_ok());
    auto both = kubelet.admit({"team", "infer", "both", 30, 40, true});
    REQUIRE(both.is_ok());
    auto srv = kubelet.admit({"team", "infer", "srv", 25, 0, false});
    REQUIRE(srv.is_ok());

    // The preferred allocations kept each container's units on one GPU.
    CHECK(has_gpu(main->core, 0));
    CHECK(has_gpu(main->memory, 0));
    CHECK(has_gpu(both->core, 0));
    CHECK(has_gpu(both->memory, 0));  // 64 - 16 - 4 = 44 left on GPU 0: 40 fit

    // What a container is given: one of its two tokens, rgpud's socket, the shims, read-only mounts.
    CHECK(main->core_token != main->memory_token);
    CHECK((main->envs.at("RGPU_TOKEN") == main->core_token || main->envs.at("RGPU_TOKEN") == main->memory_token));
    CHECK(main->envs.at("RGPU_SERVER") == options.rgpud);
    CHECK(main->envs.at("LD_LIBRARY_PATH") == "/opt/rgpu/lib");
    CHECK(main->envs.at("LD_PRELOAD").starts_with("/opt/rgpu/lib/libcudart.so.13 /opt/rgpu/lib/libcublas.so.13"));
    std::vector<std::string> mounted;
    for (const auto& m : main->mounts) {
      CHECK(m.read_only());
      CHECK(m.host_path() == m.container_path());
      mounted.push_back(m.host_path());
    }
    CHECK(std::count(mounted.begin(), mounted.end(), "/opt/rgpu/lib") >= 1);
    CHECK(std::count(mounted.begin(), mounted.end(), dir + "/rgpu") >= 1);

    // One tenant per container, its slice exactly the units granted, with both tokens.
    auto tenants = rgpud.tenants();
    REQUIRE(tenants.size() == 4);
    const auto& t_main = tenants.at("team/train/main");
    CHECK(t_main.memory_mib == 16 * 256);
    CHECK(t_main.compute == 10);
    CHECK(sorted(t_main.tokens) == sorted({main->core_token, main->memory_token}));
    const auto& t_both = tenants.at("team/infer/both");
    CHECK(t_both.memory_mib == 40 * 256);
    CHECK(t_both.compute == 30);
    CHECK(sorted(t_both.tokens) == sorted({both->core_token, both->memory_token}));
    const auto& t_side = tenants.at("team/train/side");
    CHECK(t_side.memory_mib == 4 * 256);
    CHECK(t_side.compute == 0);
    CHECK(t_side.tokens == std::vector<std::string>{side->memory_token});
    const auto& t_srv = tenants.at("team/infer/srv");
    CHECK(t_srv.memory_mib == 0);
    CHECK(t_srv.compute == 25);
    CHECK(t_srv.tokens == std::vector<std::string>{srv->core_token});
    CHECK(rgpud.adds() == 4);  // each container's second PreStart found its tenant registered

    // The pod deleted: its containers' tenants go, the other pod's stay.
    kubelet.delete_pod("team", "train");
    auto gone = [&] { return !rgpud.tenants().count("team/train/main") && !rgpud.tenants().count("team/train/side"); };
    const auto until = std::chrono::steady_clock::now() + kDeadline;
    while (!gone() && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    CHECK(gone());
    CHECK(rgpud.tenants().count("team/infer/both"));
    CHECK(rgpud.tenants().count("team/infer/srv"));

    // The kubelet restarts (its socket made again, the plugins' removed): both register again and
    // serve the device lists on their new sockets.
    kubelet.restart();
    CHECK(kubelet.wait_registrations([](const auto& r) { return r.size() >= 4; }, kDeadline));
    CHECK(kubelet.wait_devices(core, [](const auto& l) { return all_health(l, 200, "Healthy"); }, kDeadline));
    auto after = kubelet.admit({"team", "again", "main", 5, 1, false});
    REQUIRE(after.is_ok());
    CHECK(rgpud.tenants().count("team/again/main"));
  }
  std::filesystem::remove_all(dir);
}
