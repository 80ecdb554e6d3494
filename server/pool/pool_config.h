// rgpud's configuration file (`rgpud --config FILE`, default /etc/rgpu/rgpud.yaml, YAML): everything
// rgpud takes. Parsed into an immutable DaemonConfig; every error names the file, line and column
// and says how to fix it, unknown or duplicate keys are refused, and a broken file's message lists
// every error, one a line. Every key may be left out (an empty file is all defaults);
// server/daemon/daemon_settings.h lays the environment and the flags over the file.
//
//   listen: 127.0.0.1:7070             # or a list: [127.0.0.1:7070, unix:/run/rgpu/rgpud.sock]
//   tls: auto                          # auto (plain TCP from this host only), on (TLS only), off
//   backend: cuda                      # cuda (the GPUs) or emulated (no GPU)
//   log_level: info                    # error, warn, info, debug
//   log_format: text                   # text, or json: each line one JSON object
//   module_cache: /var/tmp/rgpu-modules  # uploaded module images kept on disk ("": none)
//   peer_timeout_s: 5                  # silence after which a client counts as gone (0: never)
//   admin_token: s3cret-admin          # `rgpu pool` and `rgpu pool set` need it
//   policy:
//     placement: pack                  # pack (fill one GPU first) or spread
//     quantum_ms: 10                   # longest turn on a contended GPU
//     idle_release_ms: 10              # a holder that sends no work this long gives its turn back
//     min_share_percent: 5             # starvation guard: what a lower priority gets at least
//     memory_overcommit: 2.0           # memory promised per GPU, times what it has (1: none)
//     swap_idle_ms: 2000               # over-committed: a session idle this long may be swapped out
//     mps: false                       # share each GPU through NVIDIA MPS (docs/pool.md: the trade-off)
//   metrics:
//     listen: 127.0.0.1:9449           # Prometheus's /metrics (docs/operations.md), or off
//   tenants:                           # absent: one tenant "default", whole GPUs, token RGPU_TOKEN
//     - name: inference
//       token: tok-inference
//       memory: 4096M                  # MiB (plain number), or with M/MiB, G/GiB; 0 or absent: a whole GPU
//       memory_host: 8G                # beyond the slice: pinned host memory the GPU reads across the bus
//       compute: 30                    # guaranteed percent of one GPU when contended
//       compute_limit: 100             # cap, percent (default: equal to compute)
//       priority: high                 # high, normal, low, or a number (-100..100)
//       queue_timeout: 600             # seconds a session that does not fit waits (0: refused at
//                                      # once); absent: it waits until it fits
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace rgpu::pool {

enum class Placement { kPack, kSpread };

inline constexpr int kPriorityHigh = 50;
inline constexpr int kPriorityNormal = 0;
inline constexpr int kPriorityLow = -50;

struct TenantSpec {
  std::string name;
  std::string token;             // the secret its clients prove; unique among tenants
  // More secrets that prove the same tenant (only through the control API: the device plugin mints
  // a token per resource of a container and cannot know which the kubelet's merge keeps).
  std::vector<std::string> aliases;
  bool added_live = false;  // by the control API, not the file: a reload of the file keeps it
  uint64_t memory_bytes = 0;     // the memory slice (a multiple of 1 MiB); 0: a whole GPU, unsliced
  // Memory extension: allocations past the slice are served from pinned, device-mapped host memory
  // up to this much (server/session/host_extension.h); 0: none.
  uint64_t memory_host_bytes = 0;
  uint32_t compute = 0;          // guaranteed percent of one GPU's time when it is contended (0..100)
  uint32_t compute_limit = 100;  // the cap, percent (compute..100)
  int priority = kPriorityNormal;
  // How long a session that does not fit waits in the admission queue; nullopt: until it fits.
  // The client may ask for less (RGPU_QUEUE_TIMEOUT).
  std::optional<uint32_t> queue_timeout_s;
  // A tenant with no memory slice and no compute slice gets whole GPUs, as rgpud did before the
  // pool: every GPU visible, nothing reserved, no scheduling.
  bool whole_gpu() const { return memory_bytes == 0 && compute == 0 && compute_limit >= 100; }
};

struct PoolPolicy {
  Placement placement = Placement::kPack;
  uint32_t quantum_ms = 10;
  uint32_t idle_release_ms = 10;
  // The starvation guard: a session held back by higher priorities gets at least about this
  // share of its GPU's time (0: none; strict priorities).
  uint32_t min_share_percent = 5;
  // Memory over-commit: the memory slices on a GPU may add up to this many times its memory; idle
  // sessions are then swapped out to host memory to make room for active ones (pool.h).
  double memory_overcommit = 1.0;
  // An over-committed GPU's session that has not run for this long may be swapped out.
  uint32_t swap_idle_ms = 2000;
  // The sessions' workers share each GPU through NVIDIA MPS (server/daemon/mps_daemon.h): kernels
  // of different sessions run side by side, so a higher priority starts beside the work a
  // preempted lower one still has on the GPU instead of after it. The price: a fatal GPU fault in
  // one session ends every session on that GPU.
  bool mps = false;
};

// What a file says. A setting it leaves out is empty (nullopt), for daemon_settings to fill from
// the environment or the default. A reload reads the file again and compares tenants and policy.
struct DaemonConfig {
  std::string source;            // the file it came from ("" for the built-in default)
  std::vector<std::string> listen;  // empty when the file does not say (RGPU_LISTEN / --listen decide)
  std::optional<std::string> tls;          // auto, on, off
  std::optional<std::string> backend;      // cuda, emulated
  std::optional<std::string> log_level;    // error, warn, info, debug
  std::optional<std::string> log_format;   // text, json
  std::optional<std::string> module_cache; // a directory, or "" for none
  std::optional<uint32_t> peer_timeout_s;
  std::string admin_token;
  std::vector<TenantSpec> tenants;  // empty when the file has none: default_config's tenant applies
  PoolPolicy policy;
  // Where /metrics is served (HOST:PORT, or "off"); nullopt when the file does not say
  // (RGPU_METRICS_LISTEN or the default, loopback, decide).
  std::optional<std::string> metrics_listen;
  // The line each setting the file holds is on: "listen", "policy.quantum_ms", "tenants.NAME"
  // (for --print-config's origins).
  std::map<std::string, int> lines;
};

// Reads and validates a configuration file; a refusal's message holds every error, one a line.
Result<DaemonConfig> load_config(const std::string& path);
// The same from text; `source` names it in messages.
Result<DaemonConfig> parse_config(std::string_view text, const std::string& source);
// No file: one tenant "default" with whole GPUs whose token is `token` (empty: no
// authentication), and `token` as the admin token too.
DaemonConfig default_config(const std::string& token);

// A tenant's cap when none is given: its guarantee, or 100 % when it has none (the file and
// `tenant add` alike).
inline uint32_t default_compute_limit(uint32_t compute) { return compute > 0 ? compute : 100; }

// A tenant's name: letters, digits, '-', '_', '.' and '/' (the device plugin's
// namespace/pod/container), not all digits (`rgpu pool set` reads those as a session id).
Status check_tenant_name(std::string_view name);

// "high", "normal", "low" or an integer in -100..100.
Result<int> parse_priority(std::string_view text);
std::string priority_name(int priority);  // "high", "normal", "low" or the number

}  // namespace rgpu::pool
