// rgpud's effective settings: the configuration file (server/pool/pool_config.h), then the
// environment over it, then the flags over both, each value remembering where it came from for
// `rgpud --print-config`. Pure: the environment is passed in, so the precedence is unit-tested.
//
// In the file: every operator setting (listen, tls, backend, tokens and tenants, policy, logging,
// the module cache, the peer timeout). Environment only (docs/operations.md lists them): the CUDA
// libraries' paths, the emulated backend's test knobs, transport buffer sizes and the compute
// gate's hand-back pauses, which are tuning, not operation.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/config.h"
#include "common/log_event.h"
#include "common/status.h"
#include "server/pool/pool_config.h"

namespace rgpu::server {

// Where /metrics is served: metrics.listen in the file, this over it (server/daemon/metrics_setup.h).
extern const Tunable kMetricsListen;

// Read when it exists and neither --config nor RGPU_CONFIG names another file.
inline constexpr char kDefaultConfigPath[] = "/etc/rgpu/rgpud.yaml";

// A value given on the command line, and the flag that gave it ("--emulate" gives backend).
struct FlagValue {
  std::string value;
  std::string flag;
};

struct DaemonFlags {
  std::optional<std::string> config;  // --config FILE
  std::vector<std::string> listen;    // --listen, each
  std::optional<FlagValue> backend, tls, log_level, log_format;
};

// An environment variable's value, nullopt when unset.
using Environment = std::function<std::optional<std::string>(const char* name)>;
Environment process_environment();

// One line of --print-config.
struct Setting {
  std::string key;
  std::string value;   // tokens redacted
  std::string origin;  // "file:LINE", "env RGPU_X", "flag --x", "default"
};

struct DaemonSettings {
  std::string config_file;  // "" when none was read
  std::string config_origin;
  // Tenants, policy, admin token: the file's, or the built-in default tenant (whole GPUs, token
  // RGPU_TOKEN) when it names none.
  pool::DaemonConfig config;
  std::vector<std::string> listen;
  std::string backend;  // cuda, emulated
  std::string tls;      // auto, on, off
  LogLevel log_level = LogLevel::kInfo;
  LogFormat log_format = LogFormat::kText;
  // Settings the file gave for code that reads them from the environment (the workers' module
  // cache, the transports' peer timeout): rgpud exports them before any worker starts.
  std::vector<std::pair<std::string, std::string>> exports;
  std::vector<Setting> settings;  // every setting, in --print-config's order
};

// Which file to read: --config's, else RGPU_CONFIG's, else kDefaultConfigPath when `exists` says
// it does; "" for none. The second member names the origin.
std::pair<std::string, std::string> choose_config_file(const DaemonFlags& flags, const Environment& env,
                                                       const std::function<bool(const std::string&)>& exists);

// Lays the environment and the flags over `file` (nullopt: no file). A value from the environment
// or a flag is checked as the file's are; the error names where it came from.
Result<DaemonSettings> resolve_settings(std::optional<pool::DaemonConfig> file, const std::string& config_file,
                                        const std::string& config_origin, const DaemonFlags& flags,
                                        const Environment& env);

// --print-config's text: KEY VALUE ORIGIN, one setting a line, tokens shown as <redacted>.
std::string format_settings(const DaemonSettings& settings);

}  // namespace rgpu::server
