// rgpud for `rgpu bench pool` (see pool_daemon.h).
#include "bench/cli/pool_daemon.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "bench/cli/format.h"
#include "bench/cli/run_worker.h"

namespace rgpu::bench {
namespace {

// Process groups of the daemons alive now, for the signal handler.
constexpr int kMaxDaemons = 8;
std::atomic<pid_t> g_groups[kMaxDaemons];

// Files of the daemons (configurations hold tokens) and their folder, removed on a signal too.
constexpr int kMaxPaths = 2 * kMaxDaemons + 1;
char g_paths[kMaxPaths][512];
std::atomic<int> g_path_count{0};

void on_signal(int sig) {
  for (auto& g : g_groups) {
    pid_t pgid = g.load();
    if (pgid > 0) kill(-pgid, SIGKILL);
  }
  // Files first, the folder (registered first) last.
  for (int i = std::min(g_path_count.load(), kMaxPaths) - 1; i >= 0; --i)
    if (unlink(g_paths[i]) != 0) rmdir(g_paths[i]);
  _exit(128 + sig);
}

void track(pid_t pgid) {
  static std::atomic<bool> installed{false};
  if (!installed.exchange(true)) {
    struct sigaction sa{};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  }
  for (auto& g : g_groups) {
    pid_t none = 0;
    if (g.compare_exchange_strong(none, pgid)) return;
  }
}

void untrack(pid_t pgid) {
  for (auto& g : g_groups) {
    pid_t expected = pgid;
    g.compare_exchange_strong(expected, 0);
  }
}

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

bool accepts(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

PoolTenant tenant(int index, uint64_t memory_mib, int compute, int compute_limit) {
  std::string name = "t";  // appended: GCC 12's -Wrestrict misfires on `"t" + std::string` at -O3
  name += std::to_string(index);
  return PoolTenant{std::move(name), random_token(), memory_mib, compute, compute_limit, "normal"};
}

}  // namespace

void remove_on_signal(const std::string& path) {
  int i = g_path_count.load();
  if (i >= kMaxPaths || path.size() >= sizeof g_paths[0]) return;
  std::memcpy(g_paths[i], path.c_str(), path.size() + 1);
  g_path_count.store(i + 1);
}

PoolConfig shares_config(const std::vector<int>& shares) {
  PoolConfig c{random_token(), {}};
  for (size_t i = 0; i < shares.size(); ++i) c.tenants.push_back(tenant(static_cast<int>(i), kTenantMemoryMib, shares[i], 100));
  return c;
}

PoolConfig lone_config(int pct, uint64_t memory_mib) { return PoolConfig{random_token(), {tenant(0, memory_mib, pct, pct)}}; }

PoolConfig priority_config(bool mps) {
  PoolConfig c{random_token(),
               {PoolTenant{"high", random_token(), kTenantMemoryMib, 50, 100, "high"},
                PoolTenant{"low", random_token(), kTenantMemoryMib, 50, 100, "low"}}};
  c.mps = mps;
  return c;
}

PoolConfig overcommit_config(int n, uint64_t memory_mib, int swap_idle_ms) {
  PoolConfig c{random_token(), {}, 2.0, swap_idle_ms};
  for (int i = 0; i < n; ++i) c.tenants.push_back(tenant(i, memory_mib, 30, 100));
  return c;
}

PoolConfig queue_config(uint64_t memory_mib) { return PoolConfig{random_token(), {tenant(0, memory_mib, 60, 100)}}; }

std::string pool_config_yaml(const PoolConfig& config) {
  std::string out = "# written by rgpu bench pool; removed when the run ends\n";
  out += "admin_token: " + config.admin_token + "\n";
  if (config.memory_overcommit > 1.0 || config.swap_idle_ms > 0 || config.mps) {
    out += "policy:\n";
    if (config.mps) out += "  mps: true\n";
    // Appended piece by piece: GCC 12 at -O3 reports a false -Wrestrict on the chained form.
    if (config.memory_overcommit > 1.0) out.append("  memory_overcommit: ").append(printf_text("%.2f", config.memory_overcommit)).append("\n");
    if (config.swap_idle_ms > 0) out.append("  swap_idle_ms: ").append(std::to_string(config.swap_idle_ms)).append("\n");
  }
  out += "tenants:\n";
  for (const auto& t : config.tenants) {
    out += "  - name: " + t.name + "\n";
    out += "    token: " + t.token + "\n";
    out += "    memory: " + std::to_string(t.memory_mib) + "M\n";
    out += "    compute: " + std::to_string(t.compute) + "\n";
    out += "    compute_limit: " + std::to_string(t.compute_limit) + "\n";
    out += "    priority: " + t.priority + "\n";
  }
  return out;
}

std::string random_token() {
  unsigned char bytes[16];
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n > 0) got += static_cast<size_t>(n);
    else if (errno != EINTR) std::abort();  // no randomness at all: nothing sensible to go on with
  }
  static const char kHex[] = "0123456789abcdef";
  std::string token;
  for (unsigned char b : bytes) token += {kHex[b >> 4], kHex[b & 15]};
  return token;
}

Result<int> free_port() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return RGPU_ERROR(kIo, errno_text("socket"));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    Status st = RGPU_ERROR(kIo, errno_text("bind 127.0.0.1:0"));
    close(fd);
    return st;
  }
  close(fd);
  return static_cast<int>(ntohs(addr.sin_port));
}

Result<std::string> make_temp_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/rgpu-bench-pool.XXXXXX";
  if (!mkdtemp(pattern.data())) return RGPU_ERROR(kIo, errno_text(("mkdtemp " + pattern).c_str()));
  remove_on_signal(pattern);
  return pattern;
}

Status write_private_file(const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return RGPU_ERROR(kIo, errno_text(("open " + path).c_str()));
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Status st = RGPU_ERROR(kIo, errno_text(("write " + path).c_str()));
      close(fd);
      return st;
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) return RGPU_ERROR(kIo, errno_text(("close " + path).c_str()));
  return Status::ok();
}

Result<std::unique_ptr<Daemon>> Daemon::start(const Spec& spec) {
  RGPU_ASSIGN_OR_RETURN(int port, free_port());
  const std::string address = "127.0.0.1:" + std::to_string(port);
  std::vector<std::string> args;
  if (spec.config) args.insert(args.end(), {"--config", *spec.config});
  args.insert(args.end(), {"--listen", address});
  if (spec.emulate) args.push_back("--emulate");
  if (spec.config) remove_on_signal(*spec.config);
  remove_on_signal(spec.log);
  int log = open(spec.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (log < 0) return RGPU_ERROR(kIo, errno_text(("open " + spec.log).c_str()));
  // The daemon's settings come from its flags and file only: none inherited from this shell, no
  // installed /etc/rgpu/rgpud.yaml (RGPU_CONFIG set but empty), and no /metrics to compete for.
  const EnvChanges env = {{"RGPU_TOKEN", std::nullopt}, {"RGPU_LISTEN", std::nullopt}, {"RGPU_BACKEND", std::nullopt},
                          {"RGPU_CONFIG", ""}, {"RGPU_METRICS_LISTEN", "off"}};
  auto pid = spawn_process(spec.rgpud, args, env, ChildIo{log, log, true, spec.cpus});
  close(log);
  if (!pid.is_ok()) return pid.status();
  track(*pid);
  std::unique_ptr<Daemon> daemon(new Daemon(*pid, address, spec.log));

  const auto deadline = std::chrono::steady_clock::now() + spec.timeout;
  for (;;) {
    int status = 0;
    if (waitpid(daemon->pid_, &status, WNOHANG) == daemon->pid_) {
      untrack(daemon->pid_);
      kill(-daemon->pid_, SIGKILL);  // any session worker it left
      daemon->pid_ = -1;
      std::string how = WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                          : "was killed by signal " + std::to_string(WTERMSIG(status));
      return RGPU_ERROR(kUnavailable, spec.rgpud + " " + how + " before accepting connections:\n" + daemon->log_tail());
    }
    if (accepts(port)) return daemon;
    if (std::chrono::steady_clock::now() > deadline)
      return RGPU_ERROR(kUnavailable, spec.rgpud + " did not accept connections on " + address + " within " +
                                          std::to_string(spec.timeout.count()) + " ms:\n" + daemon->log_tail());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

Daemon::~Daemon() { stop(); }

void Daemon::stop() {
  if (pid_ <= 0) return;
  kill(-pid_, SIGTERM);
  int status = 0;
  bool reaped = false;
  for (int i = 0; i < 150 && !reaped; ++i) {  // up to 3 s
    reaped = waitpid(pid_, &status, WNOHANG) == pid_;
    if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(-pid_, SIGKILL);  // the daemon if it lingers, and any session worker left in the group
  if (!reaped) waitpid(pid_, &status, 0);
  untrack(pid_);
  pid_ = -1;
}

std::string Daemon::log_text() const {
  std::ifstream in(log_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Daemon::log_tail() const {
  const std::string s = log_text();
  constexpr size_t kMax = 3000;
  return s.size() <= kMax ? s : "..." + s.substr(s.size() - kMax);
}

}  // namespace rgpu::bench
