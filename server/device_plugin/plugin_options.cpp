// rgpu-device-plugin's command line (see plugin_options.h).
#include "server/device_plugin/plugin_options.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <fstream>
#include <sstream>

namespace rgpu::device_plugin {

namespace {

// The largest accepted values: a memory unit of 1 TiB, a poll once an hour.
constexpr uint64_t kMaxMemoryUnitMib = 1u << 20;
constexpr uint64_t kMaxPollMs = 3600 * 1000;

constexpr const char* kValueFlags[] = {"--domain",           "--memory-unit-mib", "--kubelet-dir",
                                       "--pod-resources-socket", "--rgpud",        "--admin-token-file",
                                       "--shim-dir",         "--poll-ms"};

Result<uint64_t> parse_count(const std::string& flag, const std::string& text, uint64_t lo, uint64_t hi) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || v < lo || v > hi)
    return RGPU_ERROR(kInvalidArgument, flag + " " + text.substr(0, 32) + ": give a whole number from " +
                                            std::to_string(lo) + " to " + std::to_string(hi));
  return v;
}

Result<std::string> absolute_path(const std::string& flag, const std::string& text) {
  if (text.empty() || text[0] != '/')
    return RGPU_ERROR(kInvalidArgument, flag + " " + text.substr(0, 64) + ": give an absolute path");
  return text;
}

// A domain the kubelet accepts in an extended resource name: a DNS subdomain.
Result<std::string> check_domain(const std::string& text) {
  bool ok = !text.empty() && text.size() <= 253 && text.front() != '.' && text.back() != '.' &&
            text.front() != '-' && text.back() != '-';
  for (char c : text) ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.');
  if (!ok)
    return RGPU_ERROR(kInvalidArgument, "--domain " + text.substr(0, 64) +
                                            ": give a DNS name in lower case, e.g. rgpu.io or ideal.com");
  return text;
}

}  // namespace

const char* plugin_usage() {
  return "usage: rgpu-device-plugin [options]\n"
         "  The kubelet's device plugin for rgpu: advertises <domain>/vcuda-core (100 per GPU, one percent\n"
         "  of its compute each) and <domain>/vcuda-memory (one per unit of GPU memory), and turns each\n"
         "  container's units into one tenant of rgpud with exactly that slice.\n"
         "  --domain NAME                resources' domain (default rgpu.io)\n"
         "  --memory-unit-mib N          MiB in one vcuda-memory device (default 256)\n"
         "  --kubelet-dir DIR            the kubelet's device-plugin folder, with kubelet.sock\n"
         "                               (default /var/lib/kubelet/device-plugins)\n"
         "  --pod-resources-socket PATH  the kubelet's pod-resources API\n"
         "                               (default /var/lib/kubelet/pod-resources/kubelet.sock)\n"
         "  --rgpud ADDRESS              rgpud, unix:PATH or HOST:PORT (default unix:/run/rgpu/rgpud.sock);\n"
         "                               containers get it as RGPU_SERVER, and a unix: socket's folder is\n"
         "                               mounted into them read-only at the same path\n"
         "  --admin-token-file PATH      file holding rgpud's admin_token (default: none, rgpud without tokens)\n"
         "  --shim-dir DIR               rgpu's client libraries on the host, mounted read-only into\n"
         "                               containers at the same path (default /usr/lib/rgpu)\n"
         "  --poll-ms N                  how often rgpud's health, deleted pods and a restarted kubelet are\n"
         "                               checked (default 2000)\n"
         "  --help                       this text\n";
}

Result<PluginOptions> parse_plugin_args(std::span<const std::string> args) {
  PluginOptions out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      out.help = true;
      return out;
    }
    // Every other flag takes a value, as `--flag VALUE` or `--flag=VALUE`.
    const size_t eq = arg.find('=');
    const std::string flag = arg.substr(0, eq);
    if (!std::count(std::begin(kValueFlags), std::end(kValueFlags), flag))
      return RGPU_ERROR(kInvalidArgument, "unknown argument \"" + arg.substr(0, 64) + "\" (see --help)");
    std::string value;
    if (eq != std::string::npos) value = arg.substr(eq + 1);
    else if (i + 1 < args.size()) value = args[++i];
    else return RGPU_ERROR(kInvalidArgument, flag + " needs a value (see --help)");
    if (flag == "--domain") {
      RGPU_ASSIGN_OR_RETURN(out.domain, check_domain(value));
    } else if (flag == "--memory-unit-mib") {
      RGPU_ASSIGN_OR_RETURN(out.memory_unit_mib, parse_count(flag, value, 1, kMaxMemoryUnitMib));
    } else if (flag == "--kubelet-dir") {
      RGPU_ASSIGN_OR_RETURN(out.kubelet_dir, absolute_path(flag, value));
    } else if (flag == "--pod-resources-socket") {
      RGPU_ASSIGN_OR_RETURN(out.pod_resources_socket, absolute_path(flag, value));
    } else if (flag == "--rgpud") {
      if (value.empty() || value == "unix:")
        return RGPU_ERROR(kInvalidArgument, "--rgpud: give unix:/PATH/TO/rgpud.sock or HOST:PORT");
      if (value.starts_with("unix:")) RGPU_TRY(absolute_path(flag, value.substr(5)).status());
      out.rgpud = value;
    } else if (flag == "--admin-token-file") {
      RGPU_ASSIGN_OR_RETURN(out.admin_token_file, absolute_path(flag, value));
    } else if (flag == "--shim-dir") {
      RGPU_ASSIGN_OR_RETURN(out.shim_dir, absolute_path(flag, value));
    } else {  // --poll-ms, the last of kValueFlags
      RGPU_ASSIGN_OR_RETURN(uint64_t ms, parse_count(flag, value, 10, kMaxPollMs));
      out.poll_ms = static_cast<uint32_t>(ms);
    }
  }
  return out;
}

Result<std::string> read_admin_token(const PluginOptions& options) {
  if (options.admin_token_file.empty()) return std::string();
  std::ifstream in(options.admin_token_file);
  if (!in)
    return RGPU_ERROR(kInvalidArgument, "--admin-token-file " + options.admin_token_file +
                                            ": cannot read it (mount the secret holding rgpud's admin_token there)");
  std::stringstream text;
  text << in.rdbuf();
  std::string token = text.str();
  const auto first = token.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    return RGPU_ERROR(kInvalidArgument, "--admin-token-file " + options.admin_token_file +
                                            " is empty: put rgpud's admin_token in it");
  token = token.substr(first, token.find_last_not_of(" \t\r\n") - first + 1);
  return token;
}

}  // namespace rgpu::device_plugin
