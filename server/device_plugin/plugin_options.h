// rgpu-device-plugin's command line.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "common/status.h"

namespace rgpu::device_plugin {

struct PluginOptions {
  std::string domain = "rgpu.io";  // resources <domain>/vcuda-core and <domain>/vcuda-memory
  uint64_t memory_unit_mib = 256;  // one vcuda-memory device
  std::string kubelet_dir = "/var/lib/kubelet/device-plugins";  // kubelet.sock and the plugins' sockets
  std::string pod_resources_socket = "/var/lib/kubelet/pod-resources/kubelet.sock";
  std::string rgpud = "unix:/run/rgpu/rgpud.sock";  // rgpud's control API, and RGPU_SERVER in containers
  std::string admin_token_file;                      // rgpud's admin token (empty: rgpud needs none)
  std::string shim_dir = "/usr/lib/rgpu";            // the client libraries, mounted read-only
  uint32_t poll_ms = 2000;  // rgpud's health, pods gone, kubelet restarted: checked this often
  bool help = false;
};

// The words after the program's name. Every error says which flag and what it takes.
Result<PluginOptions> parse_plugin_args(std::span<const std::string> args);

const char* plugin_usage();

// The admin token from --admin-token-file (surrounding whitespace removed); empty without the flag.
Result<std::string> read_admin_token(const PluginOptions& options);

}  // namespace rgpu::device_plugin
