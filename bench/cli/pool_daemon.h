// The rgpud that `rgpu bench pool` runs for itself: the pool configuration it is given (a YAML
// file in server/pool/pool_config.h's format), and starting, waiting for and stopping the daemon.
// A started daemon leads its own process group (it and its session workers); the group is killed
// when the Daemon goes away, and on SIGINT / SIGTERM / SIGHUP of rgpu-bench too.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace rgpu::bench {

struct PoolTenant {
  std::string name;
  std::string token;
  uint64_t memory_mib = 0;
  int compute = 0;
  int compute_limit = 100;
  std::string priority = "normal";
};

struct PoolConfig {
  std::string admin_token;
  std::vector<PoolTenant> tenants;
  double memory_overcommit = 1.0;  // policy (1: none)
  int swap_idle_ms = 0;            // policy; 0: rgpud's default
  bool mps = false;                // policy
};

// Memory per tenant in the share runs: 16 tenants of 4 GiB fit any 80 GB GPU.
inline constexpr uint64_t kTenantMemoryMib = 4096;
// The lone tenant of the overhead run: room for the PyTorch step workloads (ResNet-18 at batch 64).
inline constexpr uint64_t kOverheadMemoryMib = 16384;

// Tenants t0, t1, ... with compute = their share, compute_limit 100 (contended shares follow the
// weights, a lone tenant is not capped), kTenantMemoryMib each, fresh random tokens.
PoolConfig shares_config(const std::vector<int>& shares);
// One tenant t0 with compute = compute_limit = pct and `memory_mib`.
PoolConfig lone_config(int pct, uint64_t memory_mib);
// Tenant "high" (priority high) and tenant "low" (priority low), compute 50 and compute_limit 100
// each, kTenantMemoryMib each.
PoolConfig priority_config(bool mps);
// `n` tenants t0, t1, ... of `memory_mib` each (compute 30, compute_limit 100) on a GPU promised
// twice over (memory_overcommit 2), idle sessions swapped after `swap_idle_ms`.
PoolConfig overcommit_config(int n, uint64_t memory_mib, int swap_idle_ms);

// One tenant t0 whose slice is `memory_mib` (60 % of the GPU: no two sessions fit at once), compute
// 60, compute_limit 100: the admission queue's run.
PoolConfig queue_config(uint64_t memory_mib);

// The configuration file's text (no `listen`: the daemon gets --listen).
std::string pool_config_yaml(const PoolConfig& config);

// 32 random hex digits.
std::string random_token();

// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, read back, closed).
Result<int> free_port();

// A fresh private folder under $TMPDIR (or /tmp), and a file in it only its owner can read. The
// folder, and the configurations and logs of the daemons started, are also removed when a signal
// ends rgpu-bench (remove_on_signal; the folder first, then the files in it).
void remove_on_signal(const std::string& path);
Result<std::string> make_temp_dir();
Status write_private_file(const std::string& path, const std::string& text);

class Daemon {
 public:
  struct Spec {
    std::string rgpud;                  // <prefix>/bin/rgpud
    std::optional<std::string> config;  // --config FILE; none: today's whole-GPU daemon
    bool emulate = false;               // --emulate
    std::string log;                    // its stdout and stderr
    std::chrono::milliseconds timeout{20000};
    std::vector<int> cpus;  // where it runs (empty: anywhere)
  };
  // Starts rgpud on a free loopback port and returns once it accepts connections. An error
  // (it exited, or never accepted) carries the end of its log.
  static Result<std::unique_ptr<Daemon>> start(const Spec& spec);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  const std::string& address() const { return address_; }  // 127.0.0.1:PORT
  std::string log_tail() const;
  std::string log_text() const;  // its whole log so far
  // SIGTERM to the group, SIGKILL after a grace period, reaped. Idempotent.
  void stop();

 private:
  Daemon(pid_t pid, std::string address, std::string log) : pid_(pid), address_(std::move(address)), log_(std::move(log)) {}
  pid_t pid_;
  std::string address_;
  std::string log_;
};

}  // namespace rgpu::bench
