// `rgpu bench pool`: the runs it makes (a plan, so tests can check it without a GPU) and the
// driver that makes them: its own rgpud per run (bench/cli/pool_daemon.h), spin workers through
// rgpu's shim, one per tenant, solo and together, and the report (bench/cli/pool_report.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bench/cli/pool_options.h"

namespace rgpu::bench {

// Tenants with these shares run their mix solo, then together; with `change`, one tenant's
// compute changes during the run together and the time it takes to show is the figure.
struct ShareRun {
  std::vector<int> shares;
  int kernel_us = 1000;
  int sync_every = 8;
  std::optional<int> sync_each;
  double duration_s = 3;
  std::optional<ComputeChange> change;
};

// One tenant capped at `cap` % alone, against the same mix uncapped.
struct CapRun {
  int cap = 30;
  int kernel_us = 1000;
  int sync_every = 8;
  double duration_s = 3;
  // The capped tenant is not the bench's own but the one RGPU_SERVER and RGPU_TOKEN name (a pod's
  // slice made by the Kubernetes device plugin); the uncapped reference runs on the bench's rgpud.
  bool from_env = false;
};

// Launch throughput and launch + sync latency of a lone sliced tenant against a whole-GPU session
// (rgpud without --config), in alternating rounds; then the PyTorch suite's step workloads the same
// way, each round a child forked from one python process per script (bench/worker/torch_rounds.py).
// Each figure is the median of the rounds' pairs, sliced over the whole-GPU round beside it: a
// drift within the run falls on both halves of a pair, and no one lucky round sets the figure, as
// it set one side's best (the H200's launch rate drifts by 20 % within a run).
struct OverheadRun {
  // 30 launch rounds a side: at 10 the median pair moved by 6 % between runs on the H200 (a
  // process's launch rate moves by 10 % from one to the next), at 30 its interval was 0.97-1.04 x.
  int rounds = 30;
  int torch_rounds = 10;
};

// The PyTorch suite's scripts that time steps (tests/gpu/torch), which the overhead run repeats.
inline constexpr const char* kTorchStepScripts[] = {"mlp_item.py", "resnet18_train.py", "transformer_train.py"};

// A high-priority tenant answering requests one at a time (a request_us kernel, then a sync; the
// next 0.5 to 1.5 x gap_us later) beside a low-priority tenant saturating the GPU with the spin
// mix: the high one's latency against its own alone, the low one's throughput against what the
// high one leaves. Run twice: the GPU time-sliced between the sessions, and shared through MPS.
struct PriorityRun {
  int request_us = 200;
  int gap_us = 2000;
  int kernel_us = 1000;
  int sync_every = 8;
  double duration_s = 3;
  bool mps = false;  // the daemon shares the GPU through MPS (policy mps: true)
  int block_us = 0;  // > 0: the low one's kernels are waves of blocks this long filling every SM
};

// Tenants whose slices (60 % of the GPU's memory each) add up to more than the GPU on a GPU
// promised twice over, each holding `hold_mib` (0: 60 % of the GPU, less if the host's free memory
// could not take the swapped ones) and using it in `rounds` with `idle_ms` pauses: they take turns,
// swapped out while idle and back at their next call.
struct OvercommitRun {
  int tenants = 3;
  int hold_mib = 0;
  int rounds = 3;
  int idle_ms = 3000;
  int swap_idle_ms = 500;
};

// One tenant whose slice is 60 % of the GPU's memory: a session holds it for `hold_ms`, and
// `queued_after_ms` into that a second one asks, waits in the admission queue, and starts once the
// first one's program has ended; the figure is the time from that end to the second one's start,
// over `rounds` rounds.
struct QueueRun {
  int rounds = 5;
  int hold_ms = 3000;
  int queued_after_ms = 1500;
};

using PoolRun = std::variant<ShareRun, CapRun, OverheadRun, PriorityRun, OvercommitRun, QueueRun>;

// What the options ask for: one run, or with --suite the whole bar table.
std::vector<PoolRun> plan_pool_runs(const PoolOptions& options);

// The run's name in the report: "10/90 (1000 us kernels, sync every 8)".
std::string run_label(const PoolRun& run);

// The worker's arguments for one tenant's spin mix (block_us > 0: kernels of short blocks filling
// every SM, the worker's --block-us).
std::vector<std::string> spin_args(int kernel_us, int sync_every, double duration_s, std::optional<int64_t> epoch_ns,
                                   int block_us = 0);

// How long before the common epoch the workers of a run together are started: their CUDA
// initialisation through the shim happens before it.
inline constexpr int64_t kTogetherLeadNs = 2'000'000'000;

// Runs the plan and prints the report on stdout (progress on stderr). 0 when every run worked
// (whatever the verdicts), 1 when one failed.
int run_pool_bench(const PoolOptions& options);

}  // namespace rgpu::bench
