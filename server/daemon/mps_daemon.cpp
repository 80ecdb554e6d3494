// rgpud's own MPS control daemon (see mps_daemon.h).
#include "server/daemon/mps_daemon.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/log.h"
#include "server/pool/pool_config.h"

namespace rgpu::server {
namespace {

constexpr const char* kControl = "nvidia-cuda-mps-control";
constexpr int kNotFound = 127;

std::string pipe_dir(const std::string& dir) { return dir + "/pipe"; }
std::string log_dir(const std::string& dir) { return dir + "/log"; }

// Runs the control program with `arg` (nullptr: none) and `input` on its stdin; its exit status
// (kNotFound when it cannot be run). The MPS directories reach it through its environment.
int run_control(const std::string& dir, const char* arg, const char* input) {
  int in[2] = {-1, -1};
  if (input && pipe(in) != 0) return -1;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    // rgpud blocks SIGINT and SIGTERM in its threads (main.cpp); a mask survives exec, and the
    // daemon must stay one that `kill` ends.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    setenv("CUDA_MPS_PIPE_DIRECTORY", pipe_dir(dir).c_str(), 1);
    setenv("CUDA_MPS_LOG_DIRECTORY", log_dir(dir).c_str(), 1);
    if (input) {
      dup2(in[0], STDIN_FILENO);
      close(in[0]);
      close(in[1]);
    }
    if (arg) execlp(kControl, kControl, arg, static_cast<char*>(nullptr));
    else execlp(kControl, kControl, static_cast<char*>(nullptr));
    _exit(kNotFound);
  }
  if (input) {
    close(in[0]);
    (void)!write(in[1], input, std::strlen(input));
    close(in[1]);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Whether a process runs: a zombie does not (the daemon's parent is init, which may be slow to
// reap it, or, in some containers, never does).
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] != 'Z';
}

}  // namespace

Result<std::unique_ptr<MpsDaemon>> MpsDaemon::start() {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/rgpud-mps.XXXXXX";
  if (!mkdtemp(dir.data())) return RGPU_ERROR(kIo, "cannot make a directory for MPS (" + dir + "): " + std::strerror(errno));
  std::unique_ptr<MpsDaemon> mps(new MpsDaemon(dir));  // removes the directory should the start fail
  if (mkdir(pipe_dir(dir).c_str(), 0700) != 0 || mkdir(log_dir(dir).c_str(), 0700) != 0)
    return RGPU_ERROR(kIo, "cannot make MPS's directories under " + dir + ": " + std::strerror(errno));
  const int rc = run_control(dir, "-d", nullptr);
  if (rc == kNotFound)
    return RGPU_ERROR(kUnavailable, std::string("policy.mps is true but ") + kControl +
                                        " cannot be run: install NVIDIA's compute utilities (it comes with the driver), "
                                        "or set policy.mps to false");
  if (rc != 0)
    return RGPU_ERROR(kUnavailable, std::string(kControl) + " -d failed (exit status " + std::to_string(rc) + "); see " +
                                        log_dir(dir) + "/control.log, or set policy.mps to false");
  // The daemon is up once it has written its pid file (a client that came sooner would run
  // without MPS, silently).
  const std::string pid_file = pipe_dir(dir) + "/nvidia-cuda-mps-control.pid";
  for (int i = 0; i < 200 && access(pid_file.c_str(), F_OK) != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (access(pid_file.c_str(), F_OK) != 0)
    return RGPU_ERROR(kUnavailable, std::string(kControl) + " started but wrote no " + pid_file + " within 2 s; see " +
                                        log_dir(dir) + "/control.log, or set policy.mps to false");
  setenv("CUDA_MPS_PIPE_DIRECTORY", pipe_dir(dir).c_str(), 1);
  setenv("CUDA_MPS_LOG_DIRECTORY", log_dir(dir).c_str(), 1);
  return mps;
}

MpsDaemon::~MpsDaemon() {
  std::ifstream pid_file(pipe_dir(dir_) + "/nvidia-cuda-mps-control.pid");
  pid_t pid = 0;
  if (pid_file >> pid && pid > 0) {
    // -1 when rgpud's reaper thread (main.cpp) collected the child first: its status is unknown,
    // and whether the daemon is gone is checked below.
    const int rc = run_control(dir_, nullptr, "quit\n");
    if (rc > 0) RGPU_LOG_WARN("MPS: '%s quit' ended with status %d", kControl, rc);
    for (int i = 0; i < 200 && running(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (running(pid))
      RGPU_LOG_WARN("MPS: its control daemon (pid %d) has not ended 2 s after 'quit'; its directory %s is removed",
                    static_cast<int>(pid), dir_.c_str());
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

void set_mps_client_priority(int priority) {
  // CUDA_MPS_CLIENT_PRIORITY: 0 is NORMAL, 1 BELOW_NORMAL.
  setenv("CUDA_MPS_CLIENT_PRIORITY", priority < pool::kPriorityNormal ? "1" : "0", 1);
}

}  // namespace rgpu::server
