// rgpu-bench: `rgpu bench`, and `rgpu bench pool` (bench/cli/pool_run.h). Runs the transport probe against rgpud, then rgpu-bench-worker
// natively (when this host has a GPU) and remotely through rgpu's shim, and prints one report
// with both sides, their ratios and issue 3's bars. Progress goes to stderr, the report to stdout.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/cli/format.h"
#include "bench/cli/locations.h"
#include "bench/cli/options.h"
#include "bench/cli/pool_options.h"
#include "bench/cli/pool_run.h"
#include "bench/cli/report.h"
#include "bench/cli/run_worker.h"
#include "bench/cli/transport_probe_client.h"
#include "client/runtime/settings.h"
#include "common/log.h"
#include "common/wire/copy_args.h"
#include "transports/unix/unix_address.h"

namespace {

using namespace rgpu::bench;

std::string first_line(const rgpu::Status& st) { return st.message().substr(0, st.message().find('\n')); }

// One numbered piece of the run, announced on stderr as "[3/7] copy, remote ...".
struct Step {
  std::string label;
  std::function<rgpu::Status()> run;
};

class Bench {
 public:
  Bench(const Options& options, std::string server) : options_(options) {
    server_.address = std::move(server);
    server_.token = rgpu::client::kToken.get();
    server_.handshake_timeout = std::chrono::seconds(rgpu::client::kHandshakeTimeout.get_int());
    header_.date_utc = utc_now();
    header_.host = host_name();
    header_.server = server_.address;
    // Over UCX a Unix socket is only the lifeline: no memory is shared with the session.
    runs_.same_host = rgpu::transport::unix_socket::is_unix_address(server_.address) && options.via != Via::kUcx;
    header_.quick = options.quick;
  }

  int run() {
    auto info = query_server(server_);
    if (!info.is_ok()) {
      std::fprintf(stderr, "rgpu bench: cannot reach rgpud at %s: %s\n", server_.address.c_str(),
                   first_line(info.status()).c_str());
      return 1;
    }
    header_.backend = info->backend;
    header_.server_device = info->device;

    std::vector<Step> steps = plan();
    for (size_t i = 0; i < steps.size(); ++i) {
      std::fprintf(stderr, "[%zu/%zu] %s ...\n", i + 1, steps.size(), steps[i].label.c_str());
      rgpu::Status st = steps[i].run();
      if (!st.is_ok()) {
        std::fprintf(stderr, "rgpu bench: %s failed: %s\n", steps[i].label.c_str(), st.message().c_str());
        failed_ = true;
      }
    }
    std::fputs(format_report(options_.format, header_, build_rows(runs_)).c_str(), stdout);
    return failed_ ? 1 : 0;
  }

 private:
  std::vector<Step> plan() {
    std::vector<Step> steps;
    if (options_.transport) steps.push_back({"transport probe", [this] { return probe(); }});
    const bool needs_worker = options_.copy || options_.latency || options_.launch;
    worker_ = own_dir() + "/rgpu-bench-worker";
    if (needs_worker && !std::filesystem::exists(worker_)) {
      std::fprintf(stderr, "rgpu bench: %s is missing (rgpu was built without nvcc): only the transport is measured\n",
                   worker_.c_str());
      failed_ = true;
      return steps;
    }
    cudart_dir_ = native_cudart_dir();
    native_ = has_gpu() && !cudart_dir_.empty();
    if (!native_)
      std::fprintf(stderr, "rgpu bench: %s: remote only\n",
                   has_gpu() ? "no real libcudart.so.13 found (set RGPU_CUDA_LIB_DIR)" : "no GPU on this host");
    auto add = [&](const char* scenario, bool wanted) {
      if (!wanted) return;
      std::string s = scenario;
      if (native_) steps.push_back({s + ", native", [this, s] { return native(s); }});
      if (s != "copy") {
        steps.push_back({s + ", remote", [this, s] { return remote(s, runs_.remote, std::nullopt); }});
        return;
      }
      // Copies run remotely twice: over one connection (the transport's floor applies) and
      // striped over several (the bar is native speed).
      steps.push_back({"copy, remote (1 connection)", [this, s] { return remote(s, runs_.remote, "1"); }});
      runs_.stripes = striped_connections();
      steps.push_back({"copy, remote (striped: " + std::to_string(runs_.stripes) + " connections)", [this, s] {
                         return remote(s, runs_.remote_striped, std::to_string(runs_.stripes));
                       }});
    };
    add("latency", options_.latency);
    add("launch", options_.launch);
    add("copy", options_.copy);
    return steps;
  }

  rgpu::Status probe() {
    ProbePlan plan;
    plan.quick = options_.quick;
    // The raw stream over as many connections as the striped copies use: their bar's floor.
    const int striped = options_.copy ? striped_connections() : options_.stripes.value_or(1);
    if (striped != 1 && striped != 4) plan.stream_connections.push_back(striped);
    RGPU_ASSIGN_OR_RETURN(runs_.transport, run_transport_probe(server_, plan));
    return rgpu::Status::ok();
  }

  std::vector<std::string> worker_args(const std::string& scenario) const {
    std::vector<std::string> args = {scenario};
    if (options_.quick) args.push_back("--quick");
    return args;
  }

  // A native run that fails (driver too old, GPU busy) leaves the native column empty rather
  // than ending the benchmark: the remote side is still worth measuring.
  rgpu::Status native(const std::string& scenario) {
    if (!native_) return rgpu::Status::ok();
    EnvChanges env = {{"LD_LIBRARY_PATH", prepend_path(cudart_dir_, std::getenv("LD_LIBRARY_PATH"))}};
    auto out = run_worker(worker_, worker_args(scenario), env);
    if (!out.is_ok()) {
      std::fprintf(stderr, "rgpu bench: the native run failed, native numbers are left out:\n%s\n",
                   out.status().message().c_str());
      native_ = false;
      return rgpu::Status::ok();
    }
    header_.native_device = out->device;
    runs_.native.insert(runs_.native.end(), out->metrics.begin(), out->metrics.end());
    return rgpu::Status::ok();
  }

  // The striped copy run's connections: --stripes, else the client's own setting (RGPU_STRIPES,
  // else its default), clamped as the client clamps it.
  int striped_connections() const {
    const char* env = std::getenv("RGPU_STRIPES");
    const int n = options_.stripes ? *options_.stripes : std::atoi(env && *env ? env : rgpu::wire::kDefaultStripes);
    return std::clamp(n, 1, 64);
  }

  // `stripes`: RGPU_STRIPES for the client runtime; nullopt leaves the inherited setting.
  rgpu::Status remote(const std::string& scenario, Measurements& into, const std::optional<std::string>& stripes) {
    EnvChanges env = {{"LD_LIBRARY_PATH", prepend_path(shim_dir(), std::getenv("LD_LIBRARY_PATH"))},
                      {"RGPU_SERVER", server_.address}};
    if (stripes) env.push_back({"RGPU_STRIPES", *stripes});
    RGPU_ASSIGN_OR_RETURN(WorkerOutput out, run_worker(worker_, worker_args(scenario), env));
    into.insert(into.end(), out.metrics.begin(), out.metrics.end());
    return rgpu::Status::ok();
  }

  const Options options_;
  ServerEndpoint server_;
  ReportHeader header_;
  RunSet runs_;
  std::string worker_;
  std::string cudart_dir_;
  bool native_ = false;
  bool failed_ = false;
};

}  // namespace

int main(int argc, char** argv) {
  rgpu::log_set_prefix("rgpu-bench");
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "pool") {
    args.erase(args.begin());
    for (const auto& a : args)
      if (a == "--help" || a == "-h" || a == "help") {
        std::fputs(kPoolUsage, stdout);
        return 0;
      }
    auto pool = parse_pool_options(args);
    if (!pool.is_ok()) {
      std::fprintf(stderr, "rgpu bench pool: %s\n%s", first_line(pool.status()).c_str(), kPoolUsage);
      return 2;
    }
    return run_pool_bench(*pool);
  }
  for (const auto& a : args)
    if (a == "--help" || a == "-h" || a == "help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
  auto options = parse_options(args);
  if (!options.is_ok()) {
    std::fprintf(stderr, "rgpu bench: %s\n%s", first_line(options.status()).c_str(), kUsage);
    return 2;
  }
  // Every connection of the run asks for UCX, the probe's and the workers' (which inherit it).
  if (options->via == Via::kUcx) setenv("RGPU_TRANSPORT", "ucx", 1);
  auto server = server_for(options->via, rgpu::client::server_address(), rgpu::client::kUnixSocket.get());
  if (!server.is_ok()) {
    std::fprintf(stderr, "rgpu bench: %s\n", first_line(server.status()).c_str());
    return 2;
  }
  return Bench(*options, std::move(*server)).run();
}
