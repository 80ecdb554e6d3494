// rgpu-kubelet-stand-in: the kubelet stand-in as a program, for trying rgpu-device-plugin by hand
// against a real rgpud (no Kubernetes needed):
//
//   rgpu-kubelet-stand-in --dir DIR [--domain rgpu.io] --pod NS/POD/CONTAINER --core N --memory M
//
// serves the kubelet's Registration on DIR/kubelet.sock and pod-resources on DIR/pod-resources.sock,
// waits for the plugin (started with --kubelet-dir DIR --pod-resources-socket DIR/pod-resources.sock)
// to register both resources, admits the container and prints its environment as `export` lines
// (what the container would see; the mounts as comments). It then keeps the pod until interrupted
// (SIGINT, SIGTERM) and deletes it, so that the plugin removes its tenant, before it exits.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "tests/device_plugin/kubelet_stand_in.h"

namespace {

const char* kUsage =
    "usage: rgpu-kubelet-stand-in --dir DIR --pod NS/POD/CONTAINER [--core N] [--memory M] [--domain D]\n"
    "                             [--linger-ms MS]\n"
    "  Stands in for the kubelet in DIR, admits one container through rgpu-device-plugin, prints its\n"
    "  environment as shell `export` lines, holds the pod until SIGINT or SIGTERM, then deletes it and\n"
    "  serves --linger-ms more (default 5000) for the plugin to see it gone.\n";

// Whole numbers only; anything else is the usage.
bool parse_count(const char* text, uint32_t& out) {
  char* end = nullptr;
  const unsigned long v = std::strtoul(text, &end, 10);
  if (!*text || *end || v > 1000000) return false;
  out = static_cast<uint32_t>(v);
  return true;
}

// Single-quoted for a POSIX shell.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rgpu::device_plugin::testing;
  std::string dir, pod, domain = "rgpu.io";
  uint32_t core = 0, memory = 0, linger_ms = 5000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--dir" && has_value) dir = argv[++i];
    else if (a == "--pod" && has_value) pod = argv[++i];
    else if (a == "--domain" && has_value) domain = argv[++i];
    else if (a == "--core" && has_value && parse_count(argv[++i], core)) continue;
    else if (a == "--memory" && has_value && parse_count(argv[++i], memory)) continue;
    else if (a == "--linger-ms" && has_value && parse_count(argv[++i], linger_ms)) continue;
    else {
      std::fputs(kUsage, a == "--help" ? stdout : stderr);
      return a == "--help" ? 0 : 2;
    }
  }
  const size_t s1 = pod.find('/'), s2 = pod.find('/', s1 == std::string::npos ? 0 : s1 + 1);
  if (dir.empty() || s1 == std::string::npos || s2 == std::string::npos || (core == 0 && memory == 0)) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  ContainerAsk ask{pod.substr(0, s1), pod.substr(s1 + 1, s2 - s1 - 1), pod.substr(s2 + 1), core, memory, false};
  // SIGINT / SIGTERM are taken by sigwait, before any thread starts.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  KubeletStandIn kubelet(dir, domain);
  std::fprintf(stderr, "kubelet stand-in: serving %s and %s; waiting for the plugin to register\n",
               kubelet.kubelet_socket().c_str(), kubelet.pod_resources_socket().c_str());
  const auto registered = [&](const std::vector<v1beta1::RegisterRequest>& r) {
    bool c = false, m = false;
    for (const auto& x : r) {
      c = c || x.resource_name() == domain + "/vcuda-core";
      m = m || x.resource_name() == domain + "/vcuda-memory";
    }
    return c && m;
  };
  if (!kubelet.wait_registrations(registered, std::chrono::minutes(2))) {
    std::fprintf(stderr, "kubelet stand-in: no plugin registered both resources in 2 minutes\n");
    return 1;
  }
  // The kubelet admits only onto healthy devices: wait for the first lists.
  const auto has_devices = [](const v1beta1::ListAndWatchResponse& l) { return l.devices_size() > 0; };
  if ((core && !kubelet.wait_devices(domain + "/vcuda-core", has_devices, std::chrono::seconds(30))) ||
      (memory && !kubelet.wait_devices(domain + "/vcuda-memory", has_devices, std::chrono::seconds(30)))) {
    std::fprintf(stderr, "kubelet stand-in: the plugin advertised no devices (is rgpud answering it?)\n");
    return 1;
  }
  auto admitted = kubelet.admit(ask);
  if (!admitted.is_ok()) {
    std::fprintf(stderr, "kubelet stand-in: admitting %s failed: %s\n", pod.c_str(),
                 admitted.status().message().c_str());
    return 1;
  }
  for (const auto& m : admitted->mounts)
    std::printf("# mount %s -> %s%s\n", m.host_path().c_str(), m.container_path().c_str(), m.read_only() ? " (ro)" : "");
  for (const auto& [k, v] : admitted->envs) std::printf("export %s=%s\n", k.c_str(), quoted(v).c_str());
  std::fflush(stdout);
  std::fprintf(stderr, "kubelet stand-in: %s admitted; interrupt (SIGINT, SIGTERM) to delete the pod\n", pod.c_str());
  int signal = 0;
  sigwait(&stop_signals, &signal);
  kubelet.delete_pod(ask.pod_namespace, ask.pod);
  std::fprintf(stderr, "kubelet stand-in: pod %s/%s deleted\n", ask.pod_namespace.c_str(), ask.pod.c_str());
  std::this_thread::sleep_for(std::chrono::milliseconds(linger_ms));
  return 0;
}
