// The driver of `rgpu bench pool` (see pool_run.h).
#include "bench/cli/pool_run.h"

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <chrono>
#include <thread>

#include "bench/cli/format.h"
#include "bench/cli/locations.h"
#include "bench/cli/pool_daemon.h"
#include "bench/cli/pool_report.h"
#include "bench/cli/run_worker.h"
#include "bench/cli/transport_probe_client.h"
#include "common/host_memory.h"

namespace rgpu::bench {
namespace {

// Where the overhead run's processes go. A host-bound step (the MLP's, the transformer's) moved by
// up to 2.5 x from one process to the next on the H200's 16-vCPU VM when the scheduler placed
// client, rgpud and worker threads freely; with each client on two CPUs of its own and the daemons
// on the upper half, by up to 1.3 x: narrower, still wider than the 2 % the run must tell apart.
// Hosts of fewer than 8 CPUs are not pinned.
struct Pinning {
  std::vector<int> daemons, clients;
};

Pinning overhead_pinning() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return {};
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  if (cpus.size() < 8) return {};
  Pinning p;
  p.clients = {cpus[2], cpus[3]};
  p.daemons.assign(cpus.begin() + static_cast<std::ptrdiff_t>(cpus.size() / 2), cpus.end());
  return p;
}

std::string cpu_list_text(const std::vector<int>& cpus) {
  std::string out;
  for (int c : cpus) {
    if (!out.empty()) out += ",";
    out += std::to_string(c);
  }
  return out;
}

std::string shares_text(const std::vector<int>& shares) {
  std::string s;
  for (size_t i = 0; i < shares.size(); ++i) {
    if (i) s += '/';
    s += std::to_string(shares[i]);
  }
  return s;
}

std::string mix_text(int kernel_us, int sync_every) {
  return std::to_string(kernel_us) + " us kernels, sync every " + std::to_string(sync_every);
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

int64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

void sleep_until(int64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

std::string first_line(const Status& st) { return st.message().substr(0, st.message().find('\n')); }

constexpr const char* kCompletions = "spin_completions";

class PoolBench {
 public:
  PoolBench(const PoolOptions& options, std::string dir) : options_(options), dir_(std::move(dir)) {
    header_.date_utc = utc_now();
    header_.host = host_name();
    header_.emulated = options.emulate;
    header_.duration_s = options.duration_s;
    rgpud_ = bin_dir() + "/rgpud";
    rgpu_ = bin_dir() + "/rgpu";
    worker_ = own_dir() + "/rgpu-bench-worker";
    torch_rounds_ = own_dir() + "/torch_rounds.py";
    torch_dir_ = options.torch_dir.value_or(own_dir() + "/gpu-tests/torch");
  }

  int run() {
    for (const char* exe : {rgpud_.c_str(), worker_.c_str()})
      if (!std::filesystem::exists(exe)) {
        std::fprintf(stderr, "rgpu bench pool: %s is missing%s\n", exe,
                     exe == worker_ ? " (rgpu was built without nvcc)" : "");
        return 1;
      }
    std::vector<PoolRun> plan = plan_pool_runs(options_);
    if (std::any_of(plan.begin(), plan.end(), [](const PoolRun& r) { return std::holds_alternative<OverheadRun>(r); })) {
      Status st = find_torch_scripts();
      if (!st.is_ok()) {
        std::fprintf(stderr, "rgpu bench pool: %s\n", st.message().c_str());
        return 2;
      }
    }
    for (const auto& r : plan) total_steps_ += steps_of(r);
    for (const auto& r : plan) {
      const std::string label = run_label(r);
      Status st = std::visit([&](const auto& spec) { return run_one(label, spec); }, r);
      if (!st.is_ok()) {
        std::fprintf(stderr, "rgpu bench pool: %s failed: %s\n", label.c_str(), st.message().c_str());
        rows_.push_back(PoolRow{label, "", "", {}, {}, {}, "", Verdict::kMiss, "failed: " + first_line(st)});
        failed_ = true;
      }
    }
    std::fputs(format_pool_report(header_, rows_, options_.json).c_str(), stdout);
    return failed_ ? 1 : 0;
  }

  bool failed() const { return failed_; }

 private:
  int steps_of(const PoolRun& run) const {
    if (const auto* s = std::get_if<ShareRun>(&run)) return 2 * static_cast<int>(s->shares.size()) + 1;
    if (std::holds_alternative<CapRun>(run)) return 2;
    if (std::holds_alternative<PriorityRun>(run)) return 3;
    if (std::holds_alternative<OvercommitRun>(run)) return 2;
    if (const auto* q = std::get_if<QueueRun>(&run)) return 1 + q->rounds;
    const auto& o = std::get<OverheadRun>(run);
    return 2 * o.rounds + static_cast<int>(torch_scripts_.size());
  }

  // The PyTorch step workloads the overhead run repeats: those of kTorchStepScripts in torch_dir_,
  // when python3 imports torch and the GPU is real. Only a --torch folder given and unusable is an
  // error; otherwise what is missing is said and the rows are left out.
  Status find_torch_scripts() {
    const bool asked = options_.torch_dir.has_value();
    std::string why;
    if (options_.emulate) {
      why = "--emulate (the emulated GPU runs no PyTorch kernels)";
    } else {
      for (const char* name : kTorchStepScripts)
        if (std::filesystem::exists(torch_dir_ + "/" + name)) torch_scripts_.push_back(torch_dir_ + "/" + name);
      if (torch_scripts_.empty()) {
        why = "none of the step workloads (mlp_item.py, ...) is in " + torch_dir_;
      } else if (!std::filesystem::exists(torch_rounds_)) {
        why = torch_rounds_ + " is missing";
        torch_scripts_.clear();
      } else if (!run_process("/bin/sh", {"-c", "python3 -c 'import torch' 2>&1"}, {}).is_ok()) {
        why = "python3 cannot import torch";
        torch_scripts_.clear();
      }
    }
    if (why.empty()) return Status::ok();
    if (asked) return RGPU_ERROR(kInvalidArgument, "--torch " + *options_.torch_dir + ": " + why);
    std::fprintf(stderr, "rgpu bench pool: no PyTorch step times: %s\n", why.c_str());
    return Status::ok();
  }

  void step(const std::string& what) {
    std::fprintf(stderr, "[%d/%d] %s ...\n", ++step_, total_steps_, what.c_str());
  }

  Result<std::unique_ptr<Daemon>> start_daemon(const std::optional<PoolConfig>& config, const std::vector<int>& cpus = {}) {
    const std::string base = dir_ + "/rgpud" + std::to_string(++daemons_);
    Daemon::Spec spec{rgpud_, std::nullopt, options_.emulate, base + ".log", std::chrono::milliseconds(20000), cpus};
    if (config) {
      spec.config = base + ".yaml";
      RGPU_TRY(write_private_file(*spec.config, pool_config_yaml(*config)));
    }
    RGPU_ASSIGN_OR_RETURN(auto daemon, Daemon::start(spec));
    std::fprintf(stderr, "      rgpud%s%s on %s\n", config ? " --config " : " (no config: whole GPUs)",
                 config ? spec.config->c_str() : "", daemon->address().c_str());
    if (header_.backend.empty()) {
      ServerEndpoint server{daemon->address(), config ? config->tenants[0].token : "", std::chrono::seconds(60)};
      auto info = query_server(server);
      if (!info.is_ok()) return RGPU_ERROR(kUnavailable, "rgpud does not answer a session: " + info.status().message() +
                                                             "\n" + daemon->log_tail());
      header_.backend = info->backend;
      header_.device = info->device;
      if (!config) gpu_memory_bytes_ = info->memory_bytes;  // a whole GPU: its memory
    }
    return daemon;
  }

  // A tenant's session may wait in the pool's queue for the previous run's session to leave (its
  // worker's exit takes moments), but a run whose tenants could never fit fails instead of waiting.
  EnvChanges client_env(const Daemon& daemon, const std::optional<std::string>& token) const {
    return {{"LD_LIBRARY_PATH", prepend_path(shim_dir(), std::getenv("LD_LIBRARY_PATH"))},
            {"RGPU_SERVER", daemon.address()},
            {"RGPU_TOKEN", token},
            {"RGPU_QUEUE_TIMEOUT", "30"}};
  }

  // The worker as tenant `tenant` of `daemon`; a failure carries rgpud's log.
  Result<WorkerOutput> tenant_worker(const Daemon& daemon, const PoolTenant& tenant, const std::vector<std::string>& args) {
    auto out = run_worker(worker_, args, client_env(daemon, tenant.token));
    if (!out.is_ok())
      return RGPU_ERROR(kInternal, tenant.name + ": " + out.status().message() + "\nrgpud's log:\n" + daemon.log_tail());
    return out;
  }

  // One spin worker (`daemon`'s tenant, or with no daemon the tenant RGPU_SERVER and RGPU_TOKEN
  // name in the bench's environment); its completion bins.
  Result<Bins> spin(const Daemon* daemon, const PoolTenant& tenant, int kernel_us, int sync_every, double duration_s,
                    std::optional<int64_t> epoch, int block_us = 0) {
    const std::vector<std::string> args = spin_args(kernel_us, sync_every, duration_s, epoch, block_us);
    RGPU_ASSIGN_OR_RETURN(WorkerOutput out,
                          daemon ? tenant_worker(*daemon, tenant, args)
                                 : run_worker(worker_, args, {{"LD_LIBRARY_PATH", prepend_path(shim_dir(), std::getenv("LD_LIBRARY_PATH"))}}));
    const Bins* bins = find_bins(out, kCompletions);
    if (!bins) return RGPU_ERROR(kProtocol, tenant.name + ": the worker printed no " + kCompletions + " bins");
    for (const auto& [key, value] : out.info)
      if (key == "timing" && value != "device" && !options_.emulate)
        std::fprintf(stderr, "      %s: no GPU timestamps, completions binned by host sync times\n", tenant.name.c_str());
    return *bins;
  }

  Result<double> solo_rate(const Daemon* daemon, const PoolTenant& tenant, int kernel_us, int sync_every,
                           double duration_s, int block_us = 0) {
    RGPU_ASSIGN_OR_RETURN(Bins bins, spin(daemon, tenant, kernel_us, sync_every, duration_s, std::nullopt, block_us));
    RGPU_ASSIGN_OR_RETURN(Interval iv, steady_interval({&bins}));
    return rate_in(bins, iv);
  }

  Status run_one(const std::string& label, const ShareRun& run) {
    const PoolConfig config = shares_config(run.shares);
    RGPU_ASSIGN_OR_RETURN(auto daemon, start_daemon(config));
    const size_t n = run.shares.size();
    auto sync_of = [&](size_t i) { return run.sync_each && *run.sync_each == static_cast<int>(i) ? 1 : run.sync_every; };
    std::vector<double> solo(n);
    for (size_t i = 0; i < n; ++i) {
      const PoolTenant& t = config.tenants[i];
      step(label + ": " + t.name + " solo (compute " + std::to_string(t.compute) + ")");
      RGPU_ASSIGN_OR_RETURN(solo[i], solo_rate(daemon.get(), t, run.kernel_us, sync_of(i), run.duration_s));
    }

    step(label + ": " + std::to_string(n) + " tenants together");
    const int64_t epoch = monotonic_ns() + kTogetherLeadNs;
    std::vector<std::optional<Result<Bins>>> results(n);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < n; ++i)
      threads.emplace_back([&, i] {
        results[i] = spin(daemon.get(), config.tenants[i], run.kernel_us, sync_of(i), run.duration_s, epoch);
      });
    int64_t change_ns = 0, change_took_ns = 0;
    Status change_status = Status::ok();
    if (run.change) {
      sleep_until(epoch + static_cast<int64_t>(run.change->at_s * 1e9));
      change_ns = monotonic_ns();
      const auto& name = config.tenants[run.change->tenant].name;
      auto done = run_process(rgpu_, {"pool", "set", name, "--compute", std::to_string(run.change->compute), "--compute-limit", "100"},
                              client_env(*daemon, config.admin_token));
      change_took_ns = monotonic_ns() - change_ns;
      if (!done.is_ok()) change_status = RGPU_ERROR(kInternal, "rgpu pool set " + name + ": " + done.status().message());
      else
        std::fprintf(stderr, "      %s: compute %d -> %d at %s (rgpu pool set took %.0f ms)\n", name.c_str(),
                     run.shares[run.change->tenant], run.change->compute, seconds_text(run.change->at_s).c_str(),
                     static_cast<double>(change_took_ns) / 1e6);
    }
    for (auto& t : threads) t.join();
    RGPU_TRY(change_status);
    // Solo again, after: the reference is the mean of before and after, so a GPU whose rate drifts
    // during the run (seen on the H200 machine: 591/s in one minute, 958/s in the next, for the
    // same mix) does not bias the tenants measured first.
    for (size_t i = 0; i < n; ++i) {
      const PoolTenant& t = config.tenants[i];
      step(label + ": " + t.name + " solo again");
      RGPU_ASSIGN_OR_RETURN(double again, solo_rate(daemon.get(), t, run.kernel_us, sync_of(i), run.duration_s));
      if (std::fabs(again - solo[i]) > 0.05 * std::max(again, solo[i]))
        std::fprintf(stderr, "      %s: solo rate moved from %.1f/s to %.1f/s during the run\n", t.name.c_str(), solo[i],
                     again);
      solo[i] = (solo[i] + again) / 2;
    }
    std::vector<Bins> together;
    for (auto& r : results) {
      if (!r->is_ok()) return r->status();
      together.push_back(std::move(**r));
    }
    std::vector<const Bins*> series;
    for (const auto& b : together) {
      series.push_back(&b);
      if (b.from_ns > 100'000'000)
        std::fprintf(stderr, "      a worker started %.0f ms after the epoch: its CUDA start-up took longer than the lead\n",
                     static_cast<double>(b.from_ns) / 1e6);
    }
    RGPU_ASSIGN_OR_RETURN(Interval iv, steady_interval(series));

    if (run.change) {
      std::vector<int> after = run.shares;
      after[run.change->tenant] = run.change->compute;
      const int k = run.change->tenant;
      const double target = normalised_targets(after)[k];
      const std::optional<ChangeTiming> timing = change_timing(together[k], solo[k], change_ns, iv);
      // How far 200 ms windows stray before the change and after the horizon: the turns' phase,
      // which the delay does not depend on.
      const std::string before = share_range_text(window_shares(together[k], solo[k], Interval{iv.from_ns, change_ns}));
      const std::string since = share_range_text(
          window_shares(together[k], solo[k], Interval{change_ns + kChangeHorizonNs, iv.to_ns}));
      char detail[320];
      std::snprintf(detail, sizeof detail,
                    "target %.1f -> %.1f %%, achieved %s -> %s; 200 ms windows %s before, %s after; rgpu pool set "
                    "took %.0f ms",
                    normalised_targets(run.shares)[k], target,
                    timing ? printf_text("%.1f", timing->before_pct).c_str() : "-",
                    timing ? printf_text("%.1f %%", timing->after_pct).c_str() : "-", before.c_str(), since.c_str(),
                    static_cast<double>(change_took_ns) / 1e6);
      rows_.push_back(change_row(label, config.tenants[k].name, target, timing, detail));
      return Status::ok();
    }
    const std::vector<double> targets = normalised_targets(run.shares);
    for (size_t i = 0; i < n; ++i) {
      RGPU_ASSIGN_OR_RETURN(double rate, rate_in(together[i], iv));
      rows_.push_back(share_row(label, config.tenants[i].name, targets[i], solo[i], rate));
    }
    return Status::ok();
  }

  Status run_one(const std::string& label, const CapRun& run) {
    // t0 is capped; "ref", uncapped, gives the mix's solo throughput on the same daemon.
    PoolConfig config = lone_config(run.cap, kTenantMemoryMib);
    config.tenants.push_back(PoolTenant{"ref", random_token(), kTenantMemoryMib, 100 - run.cap, 100});
    RGPU_ASSIGN_OR_RETURN(auto daemon, start_daemon(config));
    step(label + ": ref (uncapped) solo");
    RGPU_ASSIGN_OR_RETURN(double uncapped, solo_rate(daemon.get(), config.tenants[1], run.kernel_us, run.sync_every, run.duration_s));
    const std::string name = run.from_env ? "env" : "t0";
    step(label + ": " + (run.from_env ? "RGPU_TOKEN's tenant at " + std::string(std::getenv("RGPU_SERVER")) : "t0") +
         " (capped) solo");
    RGPU_ASSIGN_OR_RETURN(double capped, solo_rate(run.from_env ? nullptr : daemon.get(), config.tenants[0], run.kernel_us,
                                                   run.sync_every, run.duration_s));
    rows_.push_back(cap_row(label, name, run.cap, uncapped, capped));
    return Status::ok();
  }

  Status run_one(const std::string& label, const OverheadRun& run) {
    const PoolConfig config = lone_config(100, kOverheadMemoryMib);
    const Pinning pin = overhead_pinning();
    if (!pin.clients.empty())
      std::fprintf(stderr, "      pinned: each client on CPUs %s, both rgpuds on %s\n", cpu_list_text(pin.clients).c_str(),
                   cpu_list_text(pin.daemons).c_str());
    RGPU_ASSIGN_OR_RETURN(auto sliced, start_daemon(config, pin.daemons));
    RGPU_ASSIGN_OR_RETURN(auto whole, start_daemon(std::nullopt, pin.daemons));
    // Each side's figures by round; round i's two make a pair (pool_report.h PairedRatio).
    struct Rounds {
      std::vector<double> rates, latencies_us;
    } sliced_rounds, whole_rounds;
    auto measure = [&](const Daemon& d, const std::optional<std::string>& token, Rounds& rounds) -> Status {
      RGPU_ASSIGN_OR_RETURN(WorkerOutput out, run_worker(worker_, {"launch", "latency"}, client_env(d, token), pin.clients));
      const Measurement* rate = find(out.metrics, "launch_throughput");
      const Measurement* latency = find(out.metrics, "latency_launch_sync");
      if (!rate || !latency)
        return RGPU_ERROR(kProtocol, "the launch and latency scenarios printed no launch_throughput or latency_launch_sync");
      std::fprintf(stderr, "      %.0f launches/s, launch + sync %.1f us\n", rate->value, latency->value);
      rounds.rates.push_back(rate->value);
      rounds.latencies_us.push_back(latency->value);
      return Status::ok();
    };
    // The sides take turns going first (whole, sliced; sliced, whole; ...): a run that slows the
    // one after it (a worker's context still being torn down) does not always fall on one side.
    auto whole_at = [](int round, int side) { return (side == 0) == (round % 2 == 1); };
    for (int round = 1; round <= run.rounds; ++round)
      for (int side = 0; side < 2; ++side) {
        const bool whole_now = whole_at(round, side);
        step(label + ": " + (whole_now ? "whole-GPU session" : "sliced tenant") + ", round " + std::to_string(round));
        RGPU_TRY(whole_now ? measure(*whole, std::nullopt, whole_rounds)
                           : measure(*sliced, config.tenants[0].token, sliced_rounds));
      }
    rows_.push_back(overhead_row(label, sliced_rounds.rates, whole_rounds.rates));
    rows_.push_back(latency_row("overhead: launch + sync latency, lone slice / whole GPU", sliced_rounds.latencies_us,
                                whole_rounds.latencies_us));

    // The PyTorch workloads, unmodified through `rgpu run`, each round a child forked from one
    // python process that imported torch once (bench/worker/torch_rounds.py): separate processes
    // differ by up to 1.6 x in a host-bound step, natively too, and would swamp the 2 % asked.
    // Each round's step time pairs with the other side's round next to it, as the launch rounds do.
    EnvChanges env = client_env(*whole, std::nullopt);
    env.insert(env.end(), {{"RGPU_ROUNDS_whole_SERVER", whole->address()},
                           {"RGPU_ROUNDS_sliced_SERVER", sliced->address()},
                           {"RGPU_ROUNDS_sliced_TOKEN", config.tenants[0].token}});
    for (const std::string& script : torch_scripts_) {
      const std::string name = std::filesystem::path(script).filename().string();
      std::vector<std::string> args = {"run", "--", "python3", torch_rounds_, script};
      for (int round = 1; round <= run.torch_rounds; ++round)
        for (int side = 0; side < 2; ++side) args.push_back(whole_at(round, side) ? "whole" : "sliced");
      step(label + ": " + name + ", " + std::to_string(run.torch_rounds) +
           " rounds a side, forked from one python process");
      auto out = run_process(rgpu_, args, env, pin.clients);
      if (!out.is_ok())
        return RGPU_ERROR(kInternal, name + ": " + out.status().message() + "\nthe whole-GPU rgpud's log:\n" +
                                         whole->log_tail() + "\nthe sliced rgpud's log:\n" + sliced->log_tail());
      const std::vector<RoundSteps> rounds = parse_round_step_times(out->err);
      for (const RoundSteps& r : rounds) {
        if (r.steps.empty()) return RGPU_ERROR(kProtocol, name + ": round " + std::to_string(r.round) + " printed no step time");
        for (const StepTime& t : r.steps)
          std::fprintf(stderr, "      round %d, %s: %s: %.3f ms/step\n", r.round, r.side.c_str(), t.workload.c_str(), t.ms);
      }
      const std::map<std::string, PairedSteps> paired = paired_step_times(rounds);
      if (paired.empty()) return RGPU_ERROR(kProtocol, name + " printed no 'WORKLOAD: N ms/step' line in a pair of rounds");
      for (const auto& [workload, steps] : paired) rows_.push_back(step_time_row(workload, steps.sliced_ms, steps.whole_ms));
    }
    return Status::ok();
  }

  // The requests worker of the high tenant: its latency figures.
  Result<RequestFigures> requests(const Daemon& daemon, const PoolTenant& tenant, const PriorityRun& run,
                                  std::optional<int64_t> epoch) {
    std::vector<std::string> args = {"requests", "--kernel-us", std::to_string(run.request_us), "--gap-us",
                                     std::to_string(run.gap_us), "--duration", printf_text("%.9g", run.duration_s)};
    if (epoch) args.insert(args.end(), {"--epoch", std::to_string(*epoch)});
    RGPU_ASSIGN_OR_RETURN(WorkerOutput out, tenant_worker(daemon, tenant, args));
    const Measurement* p50 = find(out.metrics, "request_p50");
    const Measurement* p99 = find(out.metrics, "request_p99");
    const Measurement* busy = find(out.metrics, "request_busy");
    if (!p50 || !p99 || !busy) return RGPU_ERROR(kProtocol, tenant.name + ": the requests worker printed no latency figures");
    std::fprintf(stderr, "      %s: p50 %.1f us, p99 %.1f us, busy %.1f %%\n", tenant.name.c_str(), p50->value, p99->value,
                 100.0 * busy->value);
    return RequestFigures{p50->value, p99->value, busy->value};
  }

  Status run_one(const std::string& label, const PriorityRun& run) {
    if (run.mps && !options_.emulate && !on_path("nvidia-cuda-mps-control")) {
      std::fprintf(stderr, "      %s: skipped, nvidia-cuda-mps-control is not on PATH (it comes with NVIDIA's compute "
                   "utilities)\n", label.c_str());
      return Status::ok();
    }
    const PoolConfig config = priority_config(run.mps);
    const PoolTenant &high = config.tenants[0], &low = config.tenants[1];
    RGPU_ASSIGN_OR_RETURN(auto daemon, start_daemon(config));
    step(label + ": high alone");
    RGPU_ASSIGN_OR_RETURN(RequestFigures alone, requests(*daemon, high, run, std::nullopt));
    step(label + ": low alone");
    RGPU_ASSIGN_OR_RETURN(double low_solo, solo_rate(daemon.get(), low, run.kernel_us, run.sync_every, run.duration_s, run.block_us));
    step(label + ": both");
    const int64_t epoch = monotonic_ns() + kTogetherLeadNs;
    std::optional<Result<Bins>> low_bins;
    std::thread trainer(
        [&] { low_bins = spin(daemon.get(), low, run.kernel_us, run.sync_every, run.duration_s, epoch, run.block_us); });
    Result<RequestFigures> beside = requests(*daemon, high, run, epoch);
    trainer.join();
    RGPU_TRY(beside.status());
    if (!low_bins->is_ok()) return low_bins->status();
    const Bins& bins = **low_bins;
    RGPU_ASSIGN_OR_RETURN(Interval iv, steady_interval({&bins}));
    RGPU_ASSIGN_OR_RETURN(double low_beside, rate_in(bins, iv));
    for (PoolRow& row : priority_rows(label, alone, *beside, low_solo, low_beside)) rows_.push_back(std::move(row));
    return Status::ok();
  }

  // The over-commit run: its tenants' slices are 60 % of the GPU's memory, which a first session
  // on a whole-GPU daemon tells; what each holds is bounded by the host's free memory, since all
  // but one of them may be swapped out at once.
  Status run_one(const std::string& label, const OvercommitRun& run) {
    step(label + ": the GPU's memory");
    // The session that fills the report's header tells the GPU's memory too, when its daemon has
    // whole GPUs (the over-commit run is a plan of its own, so its first daemon is that one).
    if (gpu_memory_bytes_ == 0) RGPU_TRY(start_daemon(std::nullopt).status());
    const uint64_t gpu_mib = gpu_memory_bytes_ >> 20;
    const uint64_t slice_mib = gpu_mib * 6 / 10;
    uint64_t hold = run.hold_mib > 0 ? static_cast<uint64_t>(run.hold_mib) : slice_mib - std::min<uint64_t>(slice_mib, 1024);
    if (const std::optional<uint64_t> host = host_available_bytes(); run.hold_mib == 0 && host)
      hold = std::min(hold, (*host >> 20) * 8 / 10 / static_cast<uint64_t>(run.tenants));
    if (hold + 1024 > slice_mib)
      return RGPU_ERROR(kInvalidArgument, "--hold " + std::to_string(hold) + " MiB does not fit a slice of " +
                                              std::to_string(slice_mib) + " MiB (60 % of the GPU, less 1 GiB for the context)");
    const PoolConfig config = overcommit_config(run.tenants, slice_mib, run.swap_idle_ms);
    RGPU_ASSIGN_OR_RETURN(auto daemon, start_daemon(config));
    step(label + ": " + std::to_string(run.tenants) + " tenants holding " + std::to_string(hold) + " MiB each take turns");
    std::vector<std::optional<Result<WorkerOutput>>> outs(config.tenants.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < config.tenants.size(); ++i)
      threads.emplace_back([&, i] {
        outs[i] = tenant_worker(*daemon, config.tenants[i],
                                {"turns", "--mib", std::to_string(hold), "--rounds", std::to_string(run.rounds),
                                 "--idle-ms", std::to_string(run.idle_ms)});
      });
    for (std::thread& t : threads) t.join();
    double max_pause = 0;
    int intact = 0;
    for (size_t i = 0; i < outs.size(); ++i) {
      if (!outs[i]->is_ok()) return outs[i]->status();
      const Measurement* ok = find((*outs[i])->metrics, "turns_intact");
      const Measurement* pause = find((*outs[i])->metrics, "turn_pause_max");
      if (!ok || !pause) return RGPU_ERROR(kProtocol, config.tenants[i].name + ": the turns worker printed no figures");
      intact += ok->value == 1;
      max_pause = std::max(max_pause, pause->value);
      std::fprintf(stderr, "      %s: data %s, longest pause %.0f ms\n", config.tenants[i].name.c_str(),
                   ok->value == 1 ? "intact" : "CHANGED", pause->value);
    }
    const SwapRates swaps = parse_swap_log(daemon->log_text());
    for (PoolRow& row : overcommit_rows(label, swaps, max_pause, intact == run.tenants, intact, run.tenants))
      rows_.push_back(std::move(row));
    return Status::ok();
  }

  // The queue run: round after round, a session holds the tenant's room while a second one waits
  // for it in the admission queue. The workers say when their sessions were up and when the first
  // one let go (CLOCK_MONOTONIC, bench/worker: `hold`).
  Status run_one(const std::string& label, const QueueRun& run) {
    step(label + ": the GPU's memory");
    if (gpu_memory_bytes_ == 0) RGPU_TRY(start_daemon(std::nullopt).status());
    const PoolConfig config = queue_config((gpu_memory_bytes_ >> 20) * 6 / 10);
    RGPU_ASSIGN_OR_RETURN(auto daemon, start_daemon(config));
    const PoolTenant& tenant = config.tenants[0];
    auto info = [](const WorkerOutput& out, const char* key) -> std::optional<int64_t> {
      for (const auto& [k, v] : out.info)
        if (k == key) return std::strtoll(v.c_str(), nullptr, 10);
      return std::nullopt;
    };
    std::vector<double> start_ms, waited_ms;
    for (int r = 0; r < run.rounds; ++r) {
      step(label + ": round " + std::to_string(r + 1));
      std::optional<Result<WorkerOutput>> holder;
      std::thread first([&] { holder = tenant_worker(*daemon, tenant, {"hold", "--idle-ms", std::to_string(run.hold_ms)}); });
      std::this_thread::sleep_for(std::chrono::milliseconds(run.queued_after_ms));
      Result<WorkerOutput> waiter = tenant_worker(*daemon, tenant, {"hold", "--idle-ms", "0"});
      first.join();
      if (!holder->is_ok()) return holder->status();
      if (!waiter.is_ok()) return waiter.status();
      const std::optional<int64_t> end = info(**holder, "hold_end_ns"), up = info(*waiter, "hold_up_ns");
      const Measurement* waited = find(waiter->metrics, "hold_start");
      if (!end || !up || !waited) return RGPU_ERROR(kProtocol, "the hold worker printed no times");
      // It must have waited for the room: started before the holder let go, it would not have queued.
      if (*up < *end)
        return RGPU_ERROR(kInternal, "the second session started before the first let go: it did not wait in the queue");
      start_ms.push_back(static_cast<double>(*up - *end) / 1e6);
      waited_ms.push_back(waited->value);
      std::fprintf(stderr, "      round %d: waited %.0f ms, started %.1f ms after the room freed\n", r + 1, waited->value,
                   start_ms.back());
    }
    for (PoolRow& row : queue_rows(label, start_ms, waited_ms)) rows_.push_back(std::move(row));
    return Status::ok();
  }

  const PoolOptions options_;
  const std::string dir_;
  PoolHeader header_;
  std::vector<PoolRow> rows_;
  std::string rgpud_, rgpu_, worker_, torch_rounds_, torch_dir_;
  std::vector<std::string> torch_scripts_;
  int step_ = 0, total_steps_ = 0, daemons_ = 0;
  uint64_t gpu_memory_bytes_ = 0;  // the first GPU's memory, when the first daemon had no --config
  bool failed_ = false;
};

}  // namespace

// The full-occupancy trainer's block length: short next to its kernel, as a real trainer's are.
constexpr int kFullTrainerBlockUs = 20;

std::vector<PoolRun> plan_pool_runs(const PoolOptions& o) {
  OverheadRun overhead;
  if (o.rounds) overhead.rounds = *o.rounds;
  if (o.torch_rounds) overhead.torch_rounds = *o.torch_rounds;
  if (o.overhead) return {overhead};
  // Priorities three times: the GPU time-sliced between the sessions' contexts; shared through
  // MPS; and through MPS beside a trainer whose kernels fill every SM with 20 us blocks (no room
  // beside them until blocks retire, as a real trainer's kernels leave none).
  const PriorityRun priority{200, 2000, o.kernel_us, o.sync_every, o.duration_s};
  PriorityRun priority_mps = priority, priority_mps_full = priority;
  priority_mps.mps = priority_mps_full.mps = true;
  priority_mps_full.block_us = kFullTrainerBlockUs;
  if (o.priority) return {priority, priority_mps, priority_mps_full};
  if (o.overcommit) {
    OvercommitRun run;
    if (o.hold_mib) run.hold_mib = *o.hold_mib;
    if (o.tenants) run.tenants = *o.tenants;
    return {run};
  }
  if (o.queue) return {QueueRun{}};
  if (o.cap) return {CapRun{*o.cap, o.kernel_us, o.sync_every, o.duration_s, o.tenant_from_env}};
  if (!o.suite) return {ShareRun{o.shares, o.kernel_us, o.sync_every, o.sync_each, o.duration_s, o.change}};
  const double d = o.duration_s;
  const std::vector<int> four = {10, 20, 30, 40};
  auto shares = [&](std::vector<int> s, double duration) {
    return ShareRun{std::move(s), o.kernel_us, o.sync_every, std::nullopt, duration, std::nullopt};
  };
  std::vector<PoolRun> plan = {shares({10, 90}, d), shares({30, 70}, d), shares({50, 50}, d),
                               // A 1 % tenant gets one quantum in a hundred: a longer run, so that
                               // whole turns in or out of the interval stay well under 0.5 pp.
                               shares({1, 99}, 3 * d), shares(four, d)};
  ShareRun sync_each = shares(four, d);
  sync_each.sync_each = 0;
  ShareRun short_kernels = shares(four, d), long_kernels = shares(four, d);
  short_kernels.kernel_us = 10;
  long_kernels.kernel_us = 5000;
  // 10 -> 60 beside a 40 % tenant: the guaranteed shares fit in 100 % before and after.
  ShareRun change = shares({10, 40}, d);
  change.change = ComputeChange{0, 60, d / 2};
  plan.insert(plan.end(), {sync_each, short_kernels, long_kernels, CapRun{30, o.kernel_us, o.sync_every, d}, change,
                           priority, priority_mps, priority_mps_full, overhead});
  return plan;
}

std::string run_label(const PoolRun& run) {
  if (const auto* s = std::get_if<ShareRun>(&run)) {
    std::string mix = mix_text(s->kernel_us, s->sync_every);
    if (s->sync_each) mix += "; t" + std::to_string(*s->sync_each) + " every launch";
    if (!s->change) return shares_text(s->shares) + " (" + mix + ")";
    const auto& c = *s->change;
    return "change t" + std::to_string(c.tenant) + " " + std::to_string(s->shares[c.tenant]) + " -> " +
           std::to_string(c.compute) + " % at " + seconds_text(c.at_s) + ", " + shares_text(s->shares) + " (" + mix + ")";
  }
  if (const auto* c = std::get_if<CapRun>(&run))
    return "cap " + std::to_string(c->cap) + " %, " +
           (c->from_env ? "the tenant of RGPU_SERVER and RGPU_TOKEN" : std::string("lone tenant")) + " (" +
           mix_text(c->kernel_us, c->sync_every) + ")";
  if (const auto* p = std::get_if<PriorityRun>(&run))
    return std::string(p->mps ? "priority, MPS: high's " : "priority: high's ") + std::to_string(p->request_us) +
           " us requests, " + std::to_string(p->gap_us) + " us apart on average, beside a saturating low (" +
           mix_text(p->kernel_us, p->sync_every) +
           (p->block_us > 0 ? ", blocks of " + std::to_string(p->block_us) + " us filling every SM)" : ")");
  if (const auto* c = std::get_if<OvercommitRun>(&run))
    return "over-commit: " + std::to_string(c->tenants) + " tenants x 60 % of the memory, promised 2 x, " +
           std::to_string(c->rounds) + " turns " + std::to_string(c->idle_ms) + " ms apart";
  if (std::holds_alternative<QueueRun>(run))
    return "queue: waiting for another session's 60 % of the memory";
  return "overhead: launch rate, lone slice (compute 100, " + std::to_string(kOverheadMemoryMib / 1024) + "G) / whole GPU";
}

std::vector<std::string> spin_args(int kernel_us, int sync_every, double duration_s, std::optional<int64_t> epoch_ns,
                                   int block_us) {
  char duration[32];
  std::snprintf(duration, sizeof duration, "%.9g", duration_s);
  std::vector<std::string> args = {"spin", "--kernel-us", std::to_string(kernel_us), "--sync-every",
                                   std::to_string(sync_every), "--duration", duration, "--bin-ms", "10"};
  if (epoch_ns) args.insert(args.end(), {"--epoch", std::to_string(*epoch_ns)});
  if (block_us > 0) args.insert(args.end(), {"--block-us", std::to_string(block_us)});
  return args;
}

int run_pool_bench(const PoolOptions& options) {
  auto dir = make_temp_dir();
  if (!dir.is_ok()) {
    std::fprintf(stderr, "rgpu bench pool: %s\n", dir.status().message().c_str());
    return 1;
  }
  PoolBench bench(options, *dir);
  int rc = bench.run();
  // Configurations hold tokens: removed. Daemon logs are kept when something failed.
  std::error_code ec;
  if (rc == 0) {
    std::filesystem::remove_all(*dir, ec);
  } else {
    for (const auto& e : std::filesystem::directory_iterator(*dir, ec))
      if (e.path().extension() == ".yaml") std::filesystem::remove(e.path(), ec);
    std::fprintf(stderr, "rgpu bench pool: rgpud's logs are kept in %s\n", dir->c_str());
  }
  return rc;
}

}  // namespace rgpu::bench
