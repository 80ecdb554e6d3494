// The command line of `rgpu bench pool` (docs/bench.md, "rgpu bench pool"):
//   rgpu bench pool [--shares 10,90] [--kernel-us 1000] [--sync-every 8] [--sync-each TENANT_INDEX]
//                   [--duration SECONDS] [--cap PCT] [--change INDEX:PCT@SECONDS] [--suite | --overhead]
//                   [--rounds N] [--torch-rounds N] [--priority] [--overcommit [--hold MIB] [--tenants N]]
//                   [--queue] [--torch DIR]
//                   [--emulate] [--json]
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace rgpu::bench {

// --change INDEX:PCT@SECONDS: tenant INDEX's compute becomes PCT, SECONDS into the run together.
struct ComputeChange {
  int tenant = 0;
  int compute = 0;
  double at_s = 0;
};

struct PoolOptions {
  std::vector<int> shares = {10, 90};  // compute % of tenants t0, t1, ...
  int kernel_us = 1000;
  int sync_every = 8;
  std::optional<int> sync_each;  // this tenant syncs after every launch
  double duration_s = 3;
  std::optional<int> cap;  // one tenant alone, compute = compute_limit = cap
  bool tenant_from_env = false;  // --cap's tenant is RGPU_SERVER's / RGPU_TOKEN's (CapRun::from_env)
  std::optional<ComputeChange> change;
  bool suite = false;     // the whole bar table
  bool overhead = false;  // only the scheduler-overhead run
  std::optional<int> rounds;        // the overhead run's launch rounds a side (default OverheadRun's)
  std::optional<int> torch_rounds;  // ... and its PyTorch rounds a side
  bool priority = false;  // only the priority run
  bool overcommit = false;  // only the over-commit run
  std::optional<int> hold_mib;  // the over-commit run's memory per tenant (default: from the GPU and host)
  std::optional<int> tenants;   // the over-commit run's tenants (default OvercommitRun's)
  bool queue = false;           // only the admission queue's run
  // Where the PyTorch suite's step workloads are (mlp_item.py, ...); unset: the installed suite,
  // <prefix>/libexec/rgpu/gpu-tests/torch, when it is there.
  std::optional<std::string> torch_dir;
  bool emulate = false;  // rgpud --emulate: the plumbing, no GPU
  bool json = false;
};

// Parses the arguments after "pool". A bad argument is kInvalidArgument with what was wrong.
Result<PoolOptions> parse_pool_options(const std::vector<std::string>& args);

extern const char* const kPoolUsage;

}  // namespace rgpu::bench
