// Parser of `rgpu bench pool`'s arguments (see pool_options.h).
#include "bench/cli/pool_options.h"

#include <cmath>
#include <cstdlib>

namespace rgpu::bench {

const char* const kPoolUsage =
    "usage: rgpu bench pool [--shares 10,90] [--kernel-us 1000] [--sync-every 8] [--sync-each TENANT_INDEX]\n"
    "                       [--duration SECONDS] [--cap PCT] [--change INDEX:PCT@SECONDS] [--suite | --overhead]\n"
    "                       [--rounds N] [--torch-rounds N] [--priority] [--overcommit [--hold MIB] [--tenants N]]\n"
    "                       [--queue] [--torch DIR]\n"
    "                       [--emulate] [--json]\n"
    "  Starts its own rgpud with a pool configuration (tenants t0, t1, ... with compute = their share), runs\n"
    "  a spin-kernel worker per tenant alone and then all together, and prints each tenant's share of its\n"
    "  solo throughput against its target (shares normalised to 100).\n"
    "  --shares A,B,..  compute % per tenant (default 10,90)       --kernel-us N  spin kernel length (1000)\n"
    "  --sync-every N   cudaStreamSynchronize every N launches (8)  --sync-each I  tenant I syncs every launch\n"
    "  --duration S     seconds per run (3)                         --cap PCT      one tenant capped at PCT\n"
    "  --change I:P@S   S seconds into the run together, set tenant I's compute to P (`rgpu pool set`)\n"
    "  --tenant-from-env  with --cap: the capped tenant is the one RGPU_SERVER and RGPU_TOKEN name (say, a\n"
    "                   pod's slice from rgpu-device-plugin), not the bench's own; PCT is what it should get\n"
    "  --suite          the whole bar table: pairs, four tenants, sync-each, short and long kernels, cap,\n"
    "                   change and scheduler overhead\n"
    "  --overhead       only the scheduler overhead on a lone tenant: launch rate, launch + sync latency and\n"
    "                   the PyTorch step times, sliced against a whole-GPU session in alternating rounds,\n"
    "                   each figure the median of the rounds' pairs (sliced / the whole-GPU round beside it)\n"
    "  --rounds N       the overhead run's launch rounds a side (30)   --torch-rounds N  its PyTorch rounds (10)\n"
    "  --torch DIR      the PyTorch step workloads' folder (default: the installed GPU suite's torch/)\n"
    "  --priority       only the priority run: a high-priority tenant's 200 us requests, 2 ms apart, beside a\n"
    "                   low-priority one saturating the GPU (--kernel-us, --sync-every)\n"
    "  --overcommit     only the over-commit run: three tenants, each slice 60 % of the GPU's memory on a GPU\n"
    "                   promised twice over, holding --hold MIB each (default: what the GPU and the host's\n"
    "                   free memory allow) and taking turns: swap-out and swap-in GB/s, the pause a tenant\n"
    "                   sees, and whether each found its data intact; --tenants N of them (3)\n"
    "  --queue          only the admission queue's run: a session that does not fit waits while another\n"
    "                   holds the GPU's room; how long after that one's program ends the waiting one starts\n"
    "  --emulate        rgpud --emulate: checks the plumbing without a GPU (the figures mean nothing)\n"
    "  --json           the report as JSON\n";

namespace {

Result<long> whole(const std::string& flag, const std::string& text, long lo, long hi) {
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end || v < lo || v > hi)
    return RGPU_ERROR(kInvalidArgument, flag + " takes a whole number from " + std::to_string(lo) + " to " +
                                            std::to_string(hi) + ", not '" + text + "'");
  return v;
}

Result<double> seconds(const std::string& flag, const std::string& text, double hi) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end || !std::isfinite(v) || v <= 0 || v > hi)
    return RGPU_ERROR(kInvalidArgument, flag + " takes seconds above 0, at most " + std::to_string(int(hi)) +
                                            ", not '" + text + "'");
  return v;
}

Result<std::vector<int>> share_list(const std::string& text) {
  std::vector<int> shares;
  size_t start = 0;
  for (;;) {
    size_t comma = text.find(',', start);
    RGPU_ASSIGN_OR_RETURN(long v, whole("--shares", text.substr(start, comma - start), 1, 100));
    shares.push_back(static_cast<int>(v));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (shares.size() > 16) return RGPU_ERROR(kInvalidArgument, "--shares: at most 16 tenants");
  return shares;
}

Result<ComputeChange> change_spec(const std::string& text) {
  size_t colon = text.find(':'), at = text.find('@');
  if (colon == std::string::npos || at == std::string::npos || at < colon)
    return RGPU_ERROR(kInvalidArgument, "--change takes INDEX:PCT@SECONDS (e.g. 0:60@1.5), not '" + text + "'");
  ComputeChange c;
  RGPU_ASSIGN_OR_RETURN(long index, whole("--change's INDEX", text.substr(0, colon), 0, 15));
  RGPU_ASSIGN_OR_RETURN(long pct, whole("--change's PCT", text.substr(colon + 1, at - colon - 1), 1, 100));
  RGPU_ASSIGN_OR_RETURN(c.at_s, seconds("--change's SECONDS", text.substr(at + 1), 3600));
  c.tenant = static_cast<int>(index);
  c.compute = static_cast<int>(pct);
  return c;
}

}  // namespace

Result<PoolOptions> parse_pool_options(const std::vector<std::string>& args) {
  PoolOptions o;
  bool shares_given = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> Result<std::string> {
      if (i + 1 >= args.size()) return RGPU_ERROR(kInvalidArgument, a + " needs a value");
      return args[++i];
    };
    if (a == "--suite") {
      o.suite = true;
    } else if (a == "--overhead") {
      o.overhead = true;
    } else if (a == "--priority") {
      o.priority = true;
    } else if (a == "--overcommit") {
      o.overcommit = true;
    } else if (a == "--queue") {
      o.queue = true;
    } else if (a == "--tenants") {
      RGPU_ASSIGN_OR_RETURN(std::string v, value());
      RGPU_ASSIGN_OR_RETURN(long n, whole(a, v, 2, 8));
      o.tenants = static_cast<int>(n);
    } else if (a == "--hold") {
      RGPU_ASSIGN_OR_RETURN(std::string v, value());
      RGPU_ASSIGN_OR_RETURN(long mib, whole(a, v, 16, 1 << 22));
      o.hold_mib = static_cast<int>(mib);
    } else if (a == "--rounds" || a == "--torch-rounds") {
      RGPU_ASSIGN_OR_RETURN(std::string v, value());
      RGPU_ASSIGN_OR_RETURN(long n, whole(a, v, 1, 1000));
      (a == "--rounds" ? o.rounds : o.torch_rounds) = static_cast<int>(n);
    } else if (a == "--torch") {
      RGPU_ASSIGN_OR_RETURN(o.torch_dir, value());
    } else if (a == "--emulate") {
      o.emulate = true;
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--shares") {
      RGPU_ASSIGN_OR_RETURN(std::string v, value());
      RGPU_ASSIGN_OR_RETURN(o.shares, share_list(v));
      shares_given = true;
    } else if (a == "--kernel-us") {
      RGPU_ASSIGN_OR_RETURN(std::string v, value());
      RGPU_ASSIGN_OR_RETURN(long n, whole(a, v, 1, 1000000));
      o.kernel_us = static_cast<int>(n);
    } else if (a == "--sync-every") {
      RGPU_ASSIGN_OR_RETURN(std::string v, value());
      RGPU_ASSIGN_OR_RETURN(long n, whole(a, v, 1, 1000000));
      o.sync_every = static_cast<int>(n);
    } else if (a == "--sync-each") {
      RGPU_ASSIGN_OR_RETURN(std::string v, value());
      RGPU_ASSIGN_OR_RETURN(long n, whole(a, v, 0, 15));
      o.sync_each = static_cast<int>(n);
    } else if (a == "--duration") {
      RGPU_ASSIGN_OR_RETURN(std::string v, value());
      RGPU_ASSIGN_OR_RETURN(o.duration_s, seconds(a, v, 3600));
    } else if (a == "--cap") {
      RGPU_ASSIGN_OR_RETURN(std::string v, value());
      RGPU_ASSIGN_OR_RETURN(long n, whole(a, v, 1, 100));
      o.cap = static_cast<int>(n);
    } else if (a == "--tenant-from-env") {
      o.tenant_from_env = true;
    } else if (a == "--change") {
      RGPU_ASSIGN_OR_RETURN(std::string v, value());
      RGPU_ASSIGN_OR_RETURN(o.change, change_spec(v));
    } else {
      return RGPU_ERROR(kInvalidArgument, "unknown argument '" + a + "'");
    }
  }
  const int tenants = static_cast<int>(o.shares.size());
  if (o.suite && (o.overhead || o.priority))
    return RGPU_ERROR(kInvalidArgument, "--suite already holds the --overhead and --priority runs");
  if (o.overhead + o.priority + o.overcommit + o.queue + o.suite > 1)
    return RGPU_ERROR(kInvalidArgument, "--suite, --overhead, --priority, --overcommit and --queue are separate runs: pick one");
  if ((o.rounds || o.torch_rounds) && !o.overhead && !o.suite)
    return RGPU_ERROR(kInvalidArgument, "--rounds and --torch-rounds are the overhead run's: add --overhead (or --suite)");
  if ((o.hold_mib || o.tenants) && !o.overcommit)
    return RGPU_ERROR(kInvalidArgument, "--hold and --tenants are the --overcommit run's: add --overcommit");
  if (o.queue && (shares_given || o.cap || o.change || o.sync_each))
    return RGPU_ERROR(kInvalidArgument, "--queue sets its own tenant: no --shares, --cap, --change or --sync-each");
  if (o.overcommit && (shares_given || o.cap || o.change || o.sync_each))
    return RGPU_ERROR(kInvalidArgument, "--overcommit sets its own three tenants: no --shares, --cap, --change or --sync-each");
  if (o.priority && (shares_given || o.cap || o.change || o.sync_each))
    return RGPU_ERROR(kInvalidArgument, "--priority sets its own two tenants: no --shares, --cap, --change or --sync-each");
  if (o.overhead && (shares_given || o.cap || o.change || o.sync_each))
    return RGPU_ERROR(kInvalidArgument, "--overhead runs one lone tenant: no --shares, --cap, --change or --sync-each");
  if (o.suite && (shares_given || o.cap || o.change || o.sync_each))
    return RGPU_ERROR(kInvalidArgument, "--suite sets the shares, cap, change and sync-each of each run itself");
  if (o.cap && (shares_given || o.change || o.sync_each))
    return RGPU_ERROR(kInvalidArgument, "--cap runs one tenant alone: no --shares, --change or --sync-each");
  if (o.tenant_from_env && !o.cap)
    return RGPU_ERROR(kInvalidArgument, "--tenant-from-env measures a cap: add --cap PCT (what the tenant should get)");
  if (o.tenant_from_env && (!std::getenv("RGPU_SERVER") || !std::getenv("RGPU_TOKEN")))
    return RGPU_ERROR(kInvalidArgument, "--tenant-from-env: set RGPU_SERVER and RGPU_TOKEN to the tenant's (the pod's "
                                        "environment)");
  if (o.sync_each && *o.sync_each >= tenants)
    return RGPU_ERROR(kInvalidArgument, "--sync-each " + std::to_string(*o.sync_each) + ": there are only " +
                                            std::to_string(tenants) + " tenants (t0..t" + std::to_string(tenants - 1) + ")");
  if (o.change && o.change->tenant >= tenants)
    return RGPU_ERROR(kInvalidArgument, "--change: tenant " + std::to_string(o.change->tenant) + " does not exist (t0..t" +
                                            std::to_string(tenants - 1) + ")");
  if (o.change && o.change->at_s >= o.duration_s)
    return RGPU_ERROR(kInvalidArgument, "--change comes after the run ends (--duration " +
                                            std::to_string(o.duration_s) + ")");
  return o;
}

}  // namespace rgpu::bench
