// rgpud: the GPU host's daemon. Listens (loopback by default), serves each client in a worker
// process of its own (server/daemon/worker.h), and keeps the pool's books in this, the parent
// process (server/daemon/pool_service.h): tenants and their slices come from `--config FILE`.
#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "codegen/support/api_hash.h"
#include "common/config.h"
#include "common/log_event.h"
#include "server/daemon/daemon_settings.h"
#include "server/daemon/fork_gate.h"
#include "server/daemon/gpu_health.h"
#include "server/daemon/device_inventory.h"
#include "server/daemon/metrics_setup.h"
#include "server/daemon/mps_daemon.h"
#include "server/daemon/pool_service.h"
#include "server/daemon/worker.h"
#include "server/pool/pool_config.h"
#include "transports/descriptor_passing.h"
#include "transports/handshake_server.h"
#include "transports/tls/tls_context.h"
#include "transports/transport.h"
#include "transports/ucx/ucx_plugin.h"
#include "transports/ucx/ucx_selection.h"

namespace {

const rgpu::Tunable kGpuHealthEvery{"RGPU_GPU_HEALTH_S", "10",
                                    "seconds between rgpud's probes of its GPUs' health (NVML, no CUDA context); 0: none"};

void usage() {
  std::fprintf(stderr,
               "usage: rgpud [--config FILE] [--listen HOST:PORT|unix:PATH]... [--backend cuda|emulated] [--emulate]\n"
               "             [--tls auto|on|off] [--log-level error|warn|info|debug] [--log-format text|json]\n"
               "       rgpud --check-config FILE | --print-config [--config FILE ...] | --tunables\n"
               "  Serves this host's GPUs to rgpu clients. The configuration file (--config FILE, else RGPU_CONFIG,\n"
               "  else /etc/rgpu/rgpud.yaml if it exists; YAML, see docs/operations.md) holds every setting: listen,\n"
               "  tls, backend, logging, the tenants, their tokens and slices, the pool's policy. The environment\n"
               "  (RGPU_LISTEN, RGPU_TLS, ...) overrides it, flags override both. Without tenants every client\n"
               "  proves RGPU_TOKEN and gets whole GPUs. A daemon listening beyond loopback refuses to start without\n"
               "  a token.\n"
               "  --check-config FILE: checks FILE, names each bad key with its line (exit 2), or says ok (exit 0).\n"
               "  --print-config: the effective settings and where each came from (file:LINE, env, flag, default).\n"
               "  --listen may be given more than once: unix:PATH is a Unix socket for clients on this host (a socket\n"
               "  file made with rgpud's umask, removed when it stops; a stale one is replaced), as loopback TCP is.\n"
               "  --tls (or RGPU_TLS): auto takes plain TCP only from this host and TLS from anywhere; on, TLS only;\n"
               "  off, plain TCP from anywhere too (by choice, on a network you trust).\n"
               "  --tunables prints every environment tunable with its value and default.\n");
}

// rgpud's end must end its MPS daemon, if any, and remove its Unix socket files: SIGINT and SIGTERM
// are taken by a thread of their own (blocked in every other thread, workers unblock them), which
// does both and then lets the signal end the process as it would have.
sigset_t termination_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

// A forked worker must hold no other connection open: not another worker's link (whose end would
// then outlive its worker), nor another client's connection or pending handshake, nor the listening
// socket. It closes every stream and SOCK_SEQPACKET socket but its own two. Other descriptors stay:
// the transport's event loop made some before the fork and keeps using them.
void close_other_sockets(int connection, int link) {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return;
  std::vector<int> fds;
  while (dirent* e = readdir(dir)) {
    int fd = std::atoi(e->d_name);
    int type = 0;
    socklen_t len = sizeof type;
    if (fd > 2 && fd != connection && fd != link && fd != dirfd(dir) &&
        getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && (type == SOCK_SEQPACKET || type == SOCK_STREAM))
      fds.push_back(fd);
  }
  closedir(dir);
  for (int fd : fds) close(fd);
}

// Forks the worker of an authenticated connection, which the parent gives up. The worker
// ends with rgpud: a restarted rgpud could not account for a session it did not start, so none
// outlives its parent. PR_SET_PDEATHSIG fires when the forking thread ends, and this is rgpud's main
// thread, which ends only with the process.
void spawn_worker(rgpu::transport::AcceptedConnection&& accepted, uint64_t id,
                  const rgpu::transport::ClientIdentity& client, const rgpu::server::WorkerConfig& config,
                  rgpu::server::PoolService& pool) {
  auto link = rgpu::server::PoolLink::make_pair();
  if (!link.is_ok()) {
    RGPU_LOG_ERROR("%s; dropping the connection", link.status().message().c_str());
    return;
  }
  auto [parent_end, worker_end] = *link;
  pid_t pid = pool.fork_parked();
  if (pid < 0) {
    RGPU_LOG_ERROR("fork failed: %s; dropping the connection", std::strerror(errno));
    close(parent_end);
    close(worker_end);
    return;
  }
  if (pid == 0) {
    rgpu::log_set_session(id);  // every line this worker writes concerns its session
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != config.daemon_pid) _exit(1);  // rgpud ended before the line above
    const sigset_t set = termination_signals();
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
    if (rgpu::Status st = rgpu::transport::after_fork_in_child(); !st.is_ok()) {
      RGPU_LOG_ERROR("session %llu: %s", static_cast<unsigned long long>(id), st.message().c_str());
      _exit(1);
    }
    close_other_sockets(accepted.fd, worker_end);
    auto conn = rgpu::transport::adopt(std::move(accepted));
    if (!conn.is_ok()) {
      RGPU_LOG_ERROR("session %llu: %s", static_cast<unsigned long long>(id), conn.status().message().c_str());
      _exit(1);
    }
    int code = rgpu::server::run_worker(std::move(*conn), id, client, config, rgpu::server::PoolLink(worker_end));
    std::fflush(nullptr);
    _exit(code);
  }
  // The parent drops its copy of the connection when `accepted` goes (the worker owns it) and gives
  // the pool its end of the link.
  close(worker_end);
  pool.add_worker(id, parent_end);
}

// Pending handshakes and workers' links cost descriptors: rgpud takes all the host lets it have.
void raise_descriptor_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0)
    RGPU_LOG_WARN("cannot raise the descriptor limit to %llu: %s", static_cast<unsigned long long>(limit.rlim_max),
                  std::strerror(errno));
}

// Starts one of the parent's helper threads (fork_gate.h): `body` runs holding the fork gate from
// the thread's first statement, and this returns once it does, so that the thread's start-up (ASan's
// allocates) is over before the main thread forks a worker. A promise, whose state outlives both
// ends, tells it: a latch on this stack could go while the thread still signals it.
template <class Body>
void start_helper(Body body) {
  std::promise<void> entered;
  std::future<void> running = entered.get_future();
  std::thread([body = std::move(body), entered = std::move(entered)]() mutable {
    rgpu::server::ForkGate::Hold hold(rgpu::server::parent_fork_gate());
    entered.set_value();
    body(hold);
  }).detach();
  running.wait();
}

// Logs how each worker ended when it did not end by itself (a crash is one tenant's, not ours).
void reap_workers(rgpu::server::ForkGate::Hold& hold) {
  for (;;) {
    int status = 0;
    pid_t pid = hold.released([&] { return waitpid(-1, &status, 0); });
    if (pid < 0) {
      if (errno == ECHILD) {
        hold.released([] { usleep(200 * 1000); });
        continue;
      }
      if (errno == EINTR) continue;
      return;
    }
    if (WIFSIGNALED(status))
      rgpu::log_event(rgpu::LogLevel::kWarn, "worker_killed", 0, {{"pid", pid}, {"signal", WTERMSIG(status)}},
                      "session worker %d was killed by signal %d (%s); its GPU resources are freed", pid,
                      WTERMSIG(status), strsignal(WTERMSIG(status)));
  }
}

// Keeps the fork gate from the signal on: rgpud is ending, so the main thread forks no worker
// meanwhile (it waits at the gate until the signal ends the process).
void end_on_signal(rgpu::server::ForkGate::Hold& hold, std::unique_ptr<rgpu::server::MpsDaemon> mps,
                   std::vector<std::unique_ptr<rgpu::transport::Listener>> listeners) {
  const sigset_t set = termination_signals();
  int sig = 0;
  while (hold.released([&] { return sigwait(&set, &sig); }) != 0) {
  }
  RGPU_LOG_INFO("%s: %sexiting", strsignal(sig), mps ? "stopping the MPS daemon, then " : "");
  mps.reset();
  listeners.clear();  // a Unix listener removes its socket file
  signal(sig, SIG_DFL);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
}

// RGPU_TRANSPORT=ucx: sessions that ask continue over UCX. Its library is loaded now, so that a host
// without UCX says so at the start rather than to every client.
rgpu::Status check_session_transport() {
  RGPU_ASSIGN_OR_RETURN(std::string transport, rgpu::transport::session_transport());
  if (transport.empty()) return rgpu::Status::ok();
  RGPU_TRY(rgpu::transport::ucx::plugin().status());
  RGPU_LOG_INFO("RGPU_TRANSPORT=ucx: sessions that ask continue over UCX after their handshake");
  return rgpu::Status::ok();
}

// `rgpud --check-config FILE`: every error with its line (exit 2), or "FILE: ok" (exit 0).
int check_config(const std::string& file) {
  auto loaded = rgpu::pool::load_config(file);
  if (!loaded.is_ok()) {
    std::fprintf(stderr, "%s\n", loaded.status().message().c_str());
    return 2;
  }
  std::printf("%s: ok\n", file.c_str());
  return 0;
}

// The flags; nullopt after printing the usage (exit status in `status`).
std::optional<rgpu::server::DaemonFlags> parse_flags(int argc, char** argv, bool* print_config, int* status) {
  rgpu::server::DaemonFlags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if ((a == "--listen" || a == "-l") && has_value) flags.listen.push_back(argv[++i]);
    else if (a == "--backend" && has_value) flags.backend = rgpu::server::FlagValue{argv[++i], a};
    else if (a == "--emulate") flags.backend = rgpu::server::FlagValue{"emulated", a};
    else if (a == "--config" && has_value) flags.config = argv[++i];
    else if (a == "--tls" && has_value) flags.tls = rgpu::server::FlagValue{argv[++i], a};
    else if (a == "--log-level" && has_value) flags.log_level = rgpu::server::FlagValue{argv[++i], a};
    else if (a == "--log-format" && has_value) flags.log_format = rgpu::server::FlagValue{argv[++i], a};
    else if (a == "--print-config") *print_config = true;
    else {
      usage();
      *status = a == "--help" || a == "-h" ? 0 : 2;
      return std::nullopt;
    }
  }
  return flags;
}

// The file (if any), the environment and the flags, resolved; nullopt after saying why not.
std::optional<rgpu::server::DaemonSettings> load_settings(const rgpu::server::DaemonFlags& flags) {
  const rgpu::server::Environment env = rgpu::server::process_environment();
  auto [file, origin] = rgpu::server::choose_config_file(flags, env, [](const std::string& path) {
    return access(path.c_str(), F_OK) == 0;
  });
  std::optional<rgpu::pool::DaemonConfig> config;
  if (!file.empty()) {
    auto loaded = rgpu::pool::load_config(file);
    if (!loaded.is_ok()) {
      std::fprintf(stderr, "rgpud: %s\n", loaded.status().message().c_str());
      return std::nullopt;
    }
    config = std::move(*loaded);
  }
  auto settings = rgpu::server::resolve_settings(std::move(config), file, origin, flags, env);
  if (!settings.is_ok()) {
    std::fprintf(stderr, "rgpud: %s\n", settings.status().message().c_str());
    return std::nullopt;
  }
  return std::move(*settings);
}

// SIGHUP reads the configuration anew (the file, with the environment and the flags over it, as
// at the start): tenants and policy change without dropping a session (PoolService::reload). A
// file that no longer parses changes nothing; the error is logged.
void reload_on_hangup(rgpu::server::ForkGate::Hold& hold, const rgpu::server::DaemonFlags& flags,
                      rgpu::server::PoolService* pool) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGHUP);
  for (;;) {
    int sig = 0;
    if (hold.released([&] { return sigwait(&set, &sig); }) != 0) continue;
    std::optional<rgpu::server::DaemonSettings> settings = load_settings(flags);
    if (!settings) {
      RGPU_LOG_ERROR("SIGHUP: the configuration does not load (above); the one in force stays: fix it and send "
                     "SIGHUP again");
      continue;
    }
    if (settings->config_file.empty())
      RGPU_LOG_WARN("SIGHUP: rgpud reads no configuration file (%s); the built-in default applies",
                    settings->config_origin.c_str());
    RGPU_LOG_INFO("SIGHUP: reloading %s", settings->config_file.empty() ? "the defaults" : settings->config_file.c_str());
    pool->reload(std::move(settings->config));
  }
}

}  // namespace

int main(int argc, char** argv) {
  rgpu::log_set_prefix("rgpud");
  if (argc == 3 && std::string(argv[1]) == "--check-config") return check_config(argv[2]);
  if (argc == 4 && std::string(argv[1]) == "--gpu-health")  // the probe rgpud runs (gpu_health.h)
    return rgpu::server::print_gpu_health(argv[2], std::strtoul(argv[3], nullptr, 10));
  if (argc == 2 && std::string(argv[1]) == "--tunables") {
    std::fputs(rgpu::describe_tunables().c_str(), stdout);
    return 0;
  }
  bool print_config = false;
  int status = 0;
  std::optional<rgpu::server::DaemonFlags> flags = parse_flags(argc, argv, &print_config, &status);
  if (!flags) return status;
  std::optional<rgpu::server::DaemonSettings> settings = load_settings(*flags);
  if (!settings) return 2;
  if (print_config) {
    std::fputs(rgpu::server::format_settings(*settings).c_str(), stdout);
    return 0;
  }
  rgpu::log_set_level(settings->log_level);
  rgpu::log_set_format(settings->log_format);
  for (const auto& [name, value] : settings->exports) setenv(name.c_str(), value.c_str(), 0);
  const rgpu::transport::tls::Mode tls = *rgpu::transport::tls::parse_mode(settings->tls);
  if (rgpu::Status st = check_session_transport(); !st.is_ok()) {
    std::fprintf(stderr, "rgpud: %s\n", st.message().c_str());
    return 2;
  }
  const std::string& backend = settings->backend;
  const std::vector<std::string>& listen = settings->listen;
  rgpu::pool::DaemonConfig& config = settings->config;
  sigset_t blocked = termination_signals();
  sigaddset(&blocked, SIGHUP);  // taken by reload_on_hangup; blocked in the workers too
  pthread_sigmask(SIG_BLOCK, &blocked, nullptr);  // before any thread exists
  std::unique_ptr<rgpu::server::MpsDaemon> mps;
  if (config.policy.mps && backend == "cuda") {
    auto started = rgpu::server::MpsDaemon::start();
    if (!started.is_ok()) {
      std::fprintf(stderr, "rgpud: %s\n", started.status().message().c_str());
      return 1;
    }
    mps = std::move(*started);
    RGPU_LOG_INFO("MPS: the sessions share each GPU through rgpud's MPS daemon (%s); a fatal GPU fault in one session "
                  "ends every session on its GPU", mps->directory().c_str());
  } else if (config.policy.mps) {
    RGPU_LOG_INFO("MPS: the %s backend has no GPU to share through it; the pool still preempts as under MPS",
                  backend.c_str());
  }
  std::vector<std::unique_ptr<rgpu::transport::Listener>> listeners;
  std::vector<const rgpu::transport::Listener*> serving;
  std::string addresses;  // for the log: "127.0.0.1:7070 and unix:/run/rgpu/rgpud.sock"
  bool beyond_loopback = false;
  for (const std::string& address : listen) {
    auto listener = rgpu::transport::listen(address);
    if (!listener.is_ok()) {
      std::fprintf(stderr, "rgpud: cannot listen on %s: %s\n", address.c_str(), listener.status().message().c_str());
      return 1;
    }
    listeners.push_back(std::move(*listener));
    serving.push_back(listeners.back().get());
    addresses += (addresses.empty() ? "" : " and ") + serving.back()->address();
    beyond_loopback = beyond_loopback || !serving.back()->is_loopback();
  }
  rgpu::server::WorkerConfig worker_config;
  worker_config.backend = backend;
  worker_config.admin_token = config.admin_token;
  worker_config.daemon_pid = static_cast<int>(getpid());
  worker_config.idle_release = std::chrono::milliseconds(config.policy.idle_release_ms);
  worker_config.mps = config.policy.mps;
  worker_config.tokens = rgpu::server::token_table(config);
  const bool tokens = std::any_of(worker_config.tokens.tokens.begin(), worker_config.tokens.tokens.end(),
                                  [](const std::string& t) { return !t.empty(); });
  if (beyond_loopback && !tokens) {
    std::fprintf(stderr,
                 "rgpud: refusing to listen on %s without a token: set RGPU_TOKEN to a shared secret (clients set the "
                 "same), or give the tenants tokens in --config, or listen on 127.0.0.1 or unix:PATH\n",
                 addresses.c_str());
    return 1;
  }
  auto gpus = rgpu::server::probe_devices(backend);
  if (!gpus.is_ok()) {
    std::fprintf(stderr, "rgpud: %s\n", gpus.status().message().c_str());
    return 1;
  }
  worker_config.gpus = gpus->size();
  signal(SIGPIPE, SIG_IGN);
  raise_descriptor_limit();
  // The TLS key is made now, so that a failure shows at start and no client waits for it.
  if (auto ctx = rgpu::transport::tls::server_context(); !ctx.is_ok()) {
    std::fprintf(stderr, "rgpud: %s\n", ctx.status().message().c_str());
    return 1;
  }
  const char* plain = tls == rgpu::transport::tls::Mode::kOff  ? "plain TCP from anywhere"
                      : tls == rgpu::transport::tls::Mode::kOn ? "TLS only"
                                                               : "TLS, plain TCP from this host";
  start_helper([](rgpu::server::ForkGate::Hold& hold) { reap_workers(hold); });
  rgpu::server::PoolService pool(std::make_unique<rgpu::pool::Pool>(std::move(*gpus), config));

  rgpu::transport::ServerIdentity identity;
  identity.protocol_version = rgpu::wire::kProtocolVersion;
  identity.api_hash = rgpu::gen::kApiHash;  // cudart's and cuBLAS's
  identity.server_version = "0.1.0";
  identity.tokens = worker_config.tokens.tokens;
  uint64_t next_session = 1;
  rgpu::transport::HandshakeServer::Limits limits;
  limits.tls = tls;
  rgpu::transport::HandshakeServer handshakes(
      serving, std::move(identity), limits,
      [&](rgpu::transport::AcceptedConnection&& accepted, const rgpu::transport::ClientIdentity& client,
          const std::string&) { spawn_worker(std::move(accepted), next_session++, client, worker_config, pool); });
  // A tenant added or removed through the control API: the handshake checks the new tokens, and
  // workers forked from then on map them to tenants, both changed at once on the handshake's thread.
  pool.on_tenants_changed([&](const rgpu::pool::DaemonConfig& now) {
    handshakes.post([&, table = rgpu::server::token_table(now), admin = now.admin_token]() mutable {
      handshakes.set_tokens(table.tokens);
      worker_config.tokens = std::move(table);
      worker_config.admin_token = std::move(admin);
    });
  });
  if (rgpu::Status st = rgpu::server::start_metrics(pool, config.metrics_listen, rgpu::server::kMetricsListen, handshakes); !st.is_ok()) {
    std::fprintf(stderr, "rgpud: %s\n", st.message().c_str());
    return 1;
  }
  pool.start();
  start_helper([flags = *flags, &pool](rgpu::server::ForkGate::Hold& hold) { reload_on_hangup(hold, flags, &pool); });
  if (const int64_t every = kGpuHealthEvery.get_int(); every > 0 && worker_config.gpus > 0)
    start_helper([backend, gpus = worker_config.gpus, every, &pool](rgpu::server::ForkGate::Hold& hold) {
      rgpu::server::watch_gpu_health(hold, backend, gpus, std::chrono::seconds(every), &pool);
    });
  // The handshake loop holds listening descriptors of its own: the listeners go to the thread that
  // ends rgpud, which closes them (a Unix listener's socket file goes with it).
  start_helper([mps = std::move(mps), listeners = std::move(listeners)](rgpu::server::ForkGate::Hold& hold) mutable {
    end_on_signal(hold, std::move(mps), std::move(listeners));
  });
  // Said once everything that serves is up, every helper thread running (start_helper), so that
  // "listening on" means ready (tests count the daemon's descriptors from it).
  RGPU_LOG_INFO("listening on %s (%s backend, %zu GPU(s), %s, %s, %zu tenant(s)%s%s)", addresses.c_str(),
                backend.c_str(), worker_config.gpus, tokens ? "token required" : "no token", plain,
                config.tenants.size(), config.source.empty() ? "" : " from ", config.source.c_str());
  handshakes.run();
  pool.stop();  // its metrics read the handshakes' counts
  return 1;
}
