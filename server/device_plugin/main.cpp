// rgpu-device-plugin: the kubelet's device plugin for rgpu's GPU slices (see README.md).
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "common/log.h"
#include "server/device_plugin/plugin_options.h"
#include "server/device_plugin/plugin_runtime.h"
#include "server/device_plugin/rgpud_control_client.h"

int main(int argc, char** argv) {
  using namespace rgpu::device_plugin;
  const std::vector<std::string> args(argv + 1, argv + argc);
  auto options = parse_plugin_args(args);
  if (!options.is_ok()) {
    std::fprintf(stderr, "rgpu-device-plugin: %s\n", options.status().message().c_str());
    return 2;
  }
  if (options->help) {
    std::fputs(plugin_usage(), stdout);
    return 0;
  }
  auto token = read_admin_token(*options);
  if (!token.is_ok()) {
    std::fprintf(stderr, "rgpu-device-plugin: %s\n", token.status().message().c_str());
    return 2;
  }
  rgpu::log_set_prefix("rgpu-device-plugin");

  // SIGTERM (the kubelet or kubectl stopping the pod) and SIGINT end the plugin in order; they are
  // taken by sigwait here, before any thread starts, so no other thread sees them. A peer gone
  // mid-write is a Status, not a SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  RgpudControlClient rgpud(options->rgpud, *token);
  PluginRuntime runtime(*options, rgpud);
  if (rgpu::Status st = runtime.start(); !st.is_ok()) {
    std::fprintf(stderr, "rgpu-device-plugin: %s\n", st.message().c_str());
    return 1;
  }
  int signal = 0;
  sigwait(&stop_signals, &signal);
  RGPU_LOG_INFO("stopping (signal %d)", signal);
  runtime.stop();
  return 0;
}
