// The device plugin's pure parts: device IDs, the preferred-allocation rule, the command line,
// the words sent to rgpud and the reading of rgpud's own pool view, and the broker's joining of a
// container's two resources (through a pod-resources list given directly, without gRPC).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "server/device_plugin/device_ids.h"
#include "server/device_plugin/plugin_options.h"
#include "server/device_plugin/preferred_allocation.h"
#include "server/device_plugin/rgpud_requests.h"
#include "server/device_plugin/slice_broker.h"
#include "server/pool/pool_admin.h"
#include "tests/device_plugin/fake_rgpud.h"

namespace dp = rgpu::device_plugin;

namespace {

std::vector<std::string> ids_of(int gpu, dp::ResourceKind kind, uint32_t from, uint32_t to) {
  std::vector<std::string> out;
  for (uint32_t u = from; u < to; ++u) out.push_back(dp::format_device_id({gpu, kind, u}));
  return out;
}

dp::PluginOptions parse_ok(std::vector<std::string> args) {
  auto r = dp::parse_plugin_args(args);
  REQUIRE(r.is_ok());
  return *r;
}

std::string parse_error(std::vector<std::string> args) {
  auto r = dp::parse_plugin_args(args);
  REQUIRE_FALSE(r.is_ok());
  return r.status().message();
}

}  // namespace

TEST_CASE("device plugin: device IDs name their GPU, kind and unit, and read back", "[device_plugin]") {
  CHECK(dp::format_device_id({0, dp::ResourceKind::kCore, 42}) == "gpu0-core-042");
  CHECK(dp::format_device_id({1, dp::ResourceKind::kMemory, 7}) == "gpu1-mem-0007");
  auto id = dp::parse_device_id("gpu3-mem-0563");
  REQUIRE(id);
  CHECK(id->gpu == 3);
  CHECK(id->kind == dp::ResourceKind::kMemory);
  CHECK(id->unit == 563);
  for (const char* bad : {"", "gpu", "gpu0", "gpu0-core", "gpu0-core-", "gpux-core-1", "gpu0-disk-001",
                          "gpu0-core-1x", "nvidia0", "gpu-1-core-001"})
    CHECK_FALSE(dp::parse_device_id(bad));
}

TEST_CASE("device plugin: each GPU gives 100 core devices and floor(memory / unit) memory devices", "[device_plugin]") {
  const std::vector<dp::GpuInventory> gpus = {{0, 16ull << 30}, {1, (8ull << 30) + (255ull << 20)}};
  const auto core = dp::device_ids(dp::ResourceKind::kCore, gpus, 256);
  REQUIRE(core.size() == 200);
  CHECK(core.front() == "gpu0-core-000");
  CHECK(core[100] == "gpu1-core-000");
  CHECK(core.back() == "gpu1-core-099");
  const auto memory = dp::device_ids(dp::ResourceKind::kMemory, gpus, 256);
  REQUIRE(memory.size() == 64 + 32);  // 8 GiB + 255 MiB: the partial unit is not offered
  CHECK(memory[64] == "gpu1-mem-0000");
  CHECK(dp::device_ids(dp::ResourceKind::kMemory, gpus, 1024).size() == 16 + 8);
  CHECK(dp::resource_name("ideal.com", dp::ResourceKind::kMemory) == "ideal.com/vcuda-memory");
}

TEST_CASE("device plugin: the preferred allocation keeps a container on one GPU when one has room", "[device_plugin]") {
  using dp::ResourceKind;
  auto available = ids_of(0, ResourceKind::kCore, 95, 100);  // GPU 0: 5 free
  auto gpu1 = ids_of(1, ResourceKind::kCore, 0, 100);
  available.insert(available.end(), gpu1.rbegin(), gpu1.rend());  // the order given does not matter

  SECTION("first fit: the lowest GPU that holds them all, lowest units first") {
    CHECK(dp::preferred_allocation(available, {}, 3) == ids_of(0, ResourceKind::kCore, 95, 98));
    CHECK(dp::preferred_allocation(available, {}, 10) == ids_of(1, ResourceKind::kCore, 0, 10));
  }
  SECTION("must-include devices first, then their GPU") {
    auto got = dp::preferred_allocation(available, {"gpu1-core-050"}, 3);
    CHECK(got == std::vector<std::string>{"gpu1-core-050", "gpu1-core-000", "gpu1-core-001"});
  }
  SECTION("too large for any one GPU: the GPU with the most free first") {
    auto got = dp::preferred_allocation(available, {}, 103);
    REQUIRE(got.size() == 103);
    auto expected = ids_of(1, ResourceKind::kCore, 0, 100);
    auto rest = ids_of(0, ResourceKind::kCore, 95, 98);
    expected.insert(expected.end(), rest.begin(), rest.end());
    CHECK(got == expected);
  }
  SECTION("IDs not the plugin's come last") {
    auto got = dp::preferred_allocation({"other-1", "gpu0-core-001", "gpu0-core-000"}, {}, 3);
    CHECK(got == std::vector<std::string>{"gpu0-core-000", "gpu0-core-001", "other-1"});
  }
}

TEST_CASE("device plugin: the plugin's flags: defaults, values and clear errors", "[device_plugin]") {
  auto defaults = parse_ok({});
  CHECK(defaults.domain == "rgpu.io");
  CHECK(defaults.memory_unit_mib == 256);
  CHECK(defaults.kubelet_dir == "/var/lib/kubelet/device-plugins");
  CHECK(defaults.rgpud == "unix:/run/rgpu/rgpud.sock");
  CHECK(defaults.poll_ms == 2000);
  auto set = parse_ok({"--domain", "ideal.com", "--memory-unit-mib=512", "--kubelet-dir", "/tmp/k", "--rgpud",
                       "gpuhost:7070", "--poll-ms", "100", "--shim-dir", "/opt/rgpu/lib"});
  CHECK(set.domain == "ideal.com");
  CHECK(set.memory_unit_mib == 512);
  CHECK(set.kubelet_dir == "/tmp/k");
  CHECK(set.rgpud == "gpuhost:7070");
  CHECK(set.poll_ms == 100);
  CHECK(set.shim_dir == "/opt/rgpu/lib");
  CHECK(parse_ok({"--help"}).help);
  CHECK_THAT(parse_error({"--memory-unit-mib", "0"}), Catch::Contains("--memory-unit-mib 0: give a whole number"));
  CHECK_THAT(parse_error({"--domain", "Ideal.COM"}), Catch::Contains("lower case"));
  CHECK_THAT(parse_error({"--kubelet-dir", "relative"}), Catch::Contains("absolute path"));
  CHECK_THAT(parse_error({"--rgpud", "unix:rel.sock"}), Catch::Contains("absolute path"));
  CHECK_THAT(parse_error({"--poll-ms"}), Catch::Contains("--poll-ms needs a value"));
  CHECK_THAT(parse_error({"--bogus"}), Catch::Contains("unknown argument \"--bogus\""));
}

TEST_CASE("device plugin: the admin token is read from its file, trimmed, a missing or empty file is an error", "[device_plugin]") {
  const auto dir = std::filesystem::temp_directory_path() / ("rgpu-dp-token-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  dp::PluginOptions options;
  CHECK(dp::read_admin_token(options).value().empty());
  options.admin_token_file = (dir / "token").string();
  CHECK_THAT(dp::read_admin_token(options).status().message(), Catch::Contains("cannot read it"));
  std::ofstream(options.admin_token_file) << "  s3cret-admin\n";
  CHECK(dp::read_admin_token(options).value() == "s3cret-admin");
  std::ofstream(options.admin_token_file) << "\n";
  CHECK_THAT(dp::read_admin_token(options).status().message(), Catch::Contains("is empty"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("device plugin: the requests sent to rgpud's control API", "[device_plugin]") {
  auto both = dp::tenant_add_request({"ns/pod/c", {"t1", "t2"}, 4096, 10});
  CHECK(both.verb == "tenant");
  CHECK(both.args == std::vector<std::string>{"add", "ns/pod/c", "token=t1", "token=t2", "memory=4096", "compute=10",
                                              "compute_limit=10"});
  auto memory_only = dp::tenant_add_request({"ns/pod/m", {"t"}, 1024, 0});
  CHECK(memory_only.args == std::vector<std::string>{"add", "ns/pod/m", "token=t", "memory=1024", "compute=0"});
  auto remove = dp::tenant_remove_request("ns/pod/c");
  CHECK(remove.verb == "tenant");
  CHECK(remove.args == std::vector<std::string>{"remove", "ns/pod/c"});
  CHECK(dp::pool_view_request().verb == "pool");
  CHECK(dp::pool_view_request().json);
}

TEST_CASE("device plugin: the GPUs are read from rgpud's own pool view JSON", "[device_plugin]") {
  // The JSON comes from rgpud's control API code itself, so a renamed key fails here.
  rgpu::pool::Pool pool({{"NVIDIA H200", 143771ull << 20}, {"NVIDIA H200", 4ull << 30}}, rgpu::pool::DaemonConfig{});
  auto reply = rgpu::pool::handle_admin(pool, {true, ""}, {"pool", {}, true}, rgpu::pool::Clock::now());
  REQUIRE(reply.ok);
  auto gpus = dp::parse_pool_view(reply.text);
  REQUIRE(gpus.is_ok());
  CHECK(*gpus == std::vector<dp::GpuInventory>{{0, 143771ull << 20}, {1, 4ull << 30}});
  CHECK_THAT(dp::parse_pool_view("not json").status().message(), Catch::Contains("not the JSON expected"));
}

TEST_CASE("device plugin: a GPU's health is read from the pool view, absent meaning healthy", "[device_plugin]") {
  // GPU 0 says nothing (an rgpud older than per-GPU health), GPU 1 failed rgpud's probe, GPU 2 passed it.
  auto gpus = dp::parse_pool_view(R"({"ok":true,"gpus":[
      {"index":0,"name":"A","memory_total_bytes":1024},
      {"index":1,"name":"B","memory_total_bytes":2048,"healthy":false},
      {"index":2,"name":"C","memory_total_bytes":4096,"healthy":true}]})");
  REQUIRE(gpus.is_ok());
  REQUIRE(gpus->size() == 3);
  CHECK((*gpus)[0].healthy);
  CHECK_FALSE((*gpus)[1].healthy);
  CHECK((*gpus)[2].healthy);
  CHECK((*gpus)[1].memory_bytes == 2048);
  CHECK_THAT(dp::parse_pool_view(R"({"gpus":[{"index":0,"healthy":"maybe"}]})").status().message(),
             Catch::Contains("not the JSON expected"));
}

TEST_CASE("device plugin: the broker joins a container's core and memory into one tenant with both tokens", "[device_plugin]") {
  dp::testing::FakeRgpud rgpud({{0, 16ull << 30}});
  v1::ListPodResourcesResponse list;
  dp::PluginOptions options;
  options.rgpud = "unix:/run/rgpu/rgpud.sock";
  dp::SliceBroker broker(options, rgpud, [&] { return rgpu::Result<v1::ListPodResourcesResponse>(list); },
                         std::chrono::milliseconds(0));
  const auto core = ids_of(0, dp::ResourceKind::kCore, 0, 10);
  const auto memory = ids_of(0, dp::ResourceKind::kMemory, 0, 16);
  auto core_env = broker.allocate(core);
  auto memory_env = broker.allocate(memory);
  REQUIRE(core_env.is_ok());
  REQUIRE(memory_env.is_ok());
  const std::string t1 = core_env->envs().at("RGPU_TOKEN"), t2 = memory_env->envs().at("RGPU_TOKEN");
  CHECK(t1.size() == 64);
  CHECK(t1 != t2);

  SECTION("the container found in the pod-resources list gets one tenant") {
    auto* c = list.add_pod_resources();
    c->set_namespace_("ns");
    c->set_name("pod");
    auto* container = c->add_containers();
    container->set_name("main");
    auto* d1 = container->add_devices();
    d1->set_resource_name("rgpu.io/vcuda-core");
    for (const auto& id : core) d1->add_device_ids(id);
    auto* d2 = container->add_devices();
    d2->set_resource_name("rgpu.io/vcuda-memory");
    for (const auto& id : memory) d2->add_device_ids(id);
    REQUIRE(broker.prestart(memory).is_ok());
    REQUIRE(broker.prestart(core).is_ok());
    auto tenants = rgpud.tenants();
    REQUIRE(tenants.count("ns/pod/main"));
    const auto& t = tenants.at("ns/pod/main");
    CHECK(t.memory_mib == 16 * 256);
    CHECK(t.compute == 10);
    auto tokens = t.tokens;
    std::sort(tokens.begin(), tokens.end());
    auto expected = std::vector<std::string>{t1, t2};
    std::sort(expected.begin(), expected.end());
    CHECK(tokens == expected);
    CHECK(rgpud.adds() == 1);  // the second PreStart found it registered

    list.clear_pod_resources();
    REQUIRE(broker.reap().is_ok());
    CHECK(rgpud.tenants().empty());
    CHECK(broker.tenants().empty());
  }
  SECTION("devices no container holds lose their tokens at the next reap") {
    REQUIRE(broker.reap().is_ok());
    auto* c = list.add_pod_resources();
    c->set_namespace_("ns");
    c->set_name("late");
    auto* container = c->add_containers();
    container->set_name("main");
    auto* d = container->add_devices();
    d->set_resource_name("rgpu.io/vcuda-core");
    for (const auto& id : core) d->add_device_ids(id);
    CHECK_THAT(broker.prestart(core).message(), Catch::Contains("no token was minted"));
  }
  SECTION("PreStart of devices no container holds is refused, the kubelet retrying") {
    CHECK_THAT(broker.prestart(core).message(), Catch::Contains("no container in the kubelet's pod-resources list"));
  }
  SECTION("Allocate refuses IDs it never advertised and more than one GPU's compute") {
    CHECK_THAT(broker.allocate({"nvidia0"}).status().message(), Catch::Contains("does not advertise"));
    auto many = ids_of(0, dp::ResourceKind::kCore, 0, 100);
    auto more = ids_of(1, dp::ResourceKind::kCore, 0, 1);
    many.insert(many.end(), more.begin(), more.end());
    CHECK_THAT(broker.allocate(many).status().message(), Catch::Contains("at most 100 rgpu.io/vcuda-core"));
  }
}
